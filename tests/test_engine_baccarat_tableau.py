"""The drawing rules (§ 54x.11) against every two-card total, and the Banker's dependence
on the Player's third card, checked against a tableau written out by hand here.

The tableau below is the standard one, typed as it is printed on a dealer's card: it
shares no code with `floord.engine.baccarat.tableau`.
"""

from __future__ import annotations

import pytest
from test_engine_baccarat_support import card, make_table, of_type, result, violations

from floord.contract import EventType, cite
from floord.engine.baccarat.tableau import banker_draws, next_card, player_draws

pytestmark = pytest.mark.unit

# Player (no natural on the table): D draws, S stands; index = two-card total 0-7.
PLAYER_TABLEAU = "DDDDDDSS"
# Banker when the Player stood: index = the Banker's two-card total 0-7.
BANKER_PLAYER_STOOD = "DDDDDDSS"
# Banker when the Player drew: row = the Banker's two-card total,
# column = the value of the Player's third card 0 1 2 3 4 5 6 7 8 9.
BANKER_PLAYER_DREW = {
    0: "DDDDDDDDDD",
    1: "DDDDDDDDDD",
    2: "DDDDDDDDDD",
    3: "DDDDDDDDSD",
    4: "SSDDDDDDSS",
    5: "SSSSDDDDSS",
    6: "SSSSSSDDSS",
    7: "SSSSSSSSSS",
}


def _two(total: int) -> tuple[str, str]:
    """Two cards of the given total: the first carries it, the second is a face card."""
    return card(total), card(0)


def test_the_pure_tableau_matches_the_hand_written_one() -> None:
    for total in range(8):
        assert player_draws(total) is (PLAYER_TABLEAU[total] == "D"), total
        assert banker_draws(total, None) is (BANKER_PLAYER_STOOD[total] == "D"), total
        for third in range(10):
            expected = BANKER_PLAYER_DREW[total][third] == "D"
            assert banker_draws(total, third) is expected, (total, third)


@pytest.mark.parametrize("player_total", range(10))
def test_every_two_card_total_through_the_engine_541_11_543_11_545_11(player_total) -> None:
    """Each Player total against each Banker total, and each value of the Player's third
    card: the engine calls what is due after every card, counts exactly the cards due,
    raises a forbidden extra card the moment it is drawn, and calls the result."""
    t = make_table("baccarat")
    t.ready()
    draw_rule = cite("545.11")
    for banker_total in range(10):
        natural = player_total >= 8 or banker_total >= 8
        thirds: list[int | None] = (
            list(range(10)) if not natural and PLAYER_TABLEAU[player_total] == "D" else [None]
        )
        for third in thirds:
            p1, p2 = _two(player_total)
            b1, b2 = _two(banker_total)
            assert t.start().ok
            hands = of_type(t.draws(p1, b1, p2, b2), EventType.BACCARAT_HAND)
            assert [h.data["hand"] for h in hands] == ["player", "banker"] * 2
            assert all(h.rule == cite("545.9") for h in hands)
            after_four = hands[-1].data
            if natural:
                expected_next = "none"
            elif third is not None:
                expected_next = "player_third"
            elif BANKER_PLAYER_STOOD[banker_total] == "D":
                expected_next = "banker_third"
            else:
                expected_next = "none"
            assert after_four["next"] == expected_next, (player_total, banker_total)
            player, banker = [p1, p2], [b1, b2]
            if third is not None:
                p3 = card(third)
                [hand] = of_type(t.draw(p3), EventType.BACCARAT_HAND)
                assert hand.rule == draw_rule and hand.data["hand"] == "player"
                player.append(p3)
                due = BANKER_PLAYER_DREW[banker_total][third] == "D"
                assert hand.data["next"] == ("banker_third" if due else "none")
            if after_four["next"] == "banker_third" or (
                third is not None and BANKER_PLAYER_DREW[banker_total][third] == "D"
            ):
                b3 = card(5)
                [hand] = of_type(t.draw(b3), EventType.BACCARAT_HAND)
                assert hand.data["hand"] == "banker" and hand.data["next"] == "none"
                banker.append(b3)
            extra = t.draw(card(4))
            [wrong] = violations(extra)
            assert wrong.data["what"] == "third_card_not_allowed"
            assert wrong.rule in (draw_rule, cite("545.10(d)"))
            assert not of_type(extra, EventType.BACCARAT_HAND)
            end = t.end()
            assert end.ok
            body = result(end.output)
            assert body["player"]["cards"] == player and body["banker"]["cards"] == banker
            assert body["irregularities"] == ["third_card_not_allowed"]


def test_third_card_status_after_the_initial_four() -> None:
    t = make_table()
    t.ready()
    t.start()
    hands = of_type(t.draws("3S", "6H", "KD", "KC"), EventType.BACCARAT_HAND)
    assert hands[-1].data["third_card"] == {"player": "due", "banker": "undecided"}
    [hand] = of_type(t.draw("6D"), EventType.BACCARAT_HAND)  # Banker 6 draws on a 6
    assert hand.data["third_card"] == {"player": "drew", "banker": "due"}
    assert hand.data["total"] == 9


def test_a_missing_third_card_is_a_violation_and_the_coup_has_no_result() -> None:
    t = make_table("minibaccarat", dragon_bonus_table="A")
    t.ready()
    t.start()
    t.draws("2S", "3H", "KD", "KC")  # Player 2 draws
    end = t.end()
    assert end.ok
    [missing] = violations(end.output)
    assert missing.data["what"] == "card_missing" and missing.data["due"] == "player_third"
    assert missing.rule == cite("541.11")
    assert not of_type(end.output, EventType.BACCARAT_RESULT)
    [ended] = of_type(end.output, EventType.ROUND_ENDED)
    assert ended.data["outcome"] == "irregular"


def test_missing_initial_cards_cite_the_deal_543_9_c() -> None:
    t = make_table("midibaccarat")
    t.ready()
    t.start()
    t.draws("2S", "3H")
    [missing] = violations(t.end().output)
    assert missing.rule == cite("543.9(c)") and missing.data["missing"] == 2


def test_next_card_follows_the_deal_order_of_54x_9_c() -> None:
    assert [next_card(["AS"] * p, ["AS"] * b) for p, b in ((0, 0), (1, 0), (1, 1), (2, 1))] == [
        "player",
        "banker",
        "player",
        "banker",
    ]
