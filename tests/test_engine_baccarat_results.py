"""Naturals, results, EZ Baccarat and the Dragon 7, the Dragon Bonus, vigorish, options.

58 Pa. Code § 545.1, § 545.8(a), § 545.12(a), § 545.13(a)-(d), § 541.13(d).
"""

from __future__ import annotations

import pytest
from test_engine_baccarat_support import make_table, of_type, result, violations

from floord.contract import EventType, cite
from floord.engine.baccarat.rules import BaccaratRules, RulesError
from floord.engine.baccarat.settle import dragon_bonus

pytestmark = pytest.mark.unit


def _table(game: str = "baccarat", **over):
    t = make_table(game, **over)
    t.ready()
    return t


def test_a_natural_stops_both_hands_545_1() -> None:
    t = _table()
    t.start()
    hands = of_type(t.draws("4S", "2H", "5D", "3C"), EventType.BACCARAT_HAND)
    assert hands[2].data["natural"] is True and hands[2].data["total"] == 9
    assert hands[-1].data["next"] == "none"
    assert hands[-1].data["third_card"] == {"player": "stands", "banker": "stands"}
    [wrong] = violations(t.draw("KS"))
    assert wrong.data["what"] == "third_card_not_allowed" and "Natural" in wrong.data["detail"]
    body = result(t.end().output)
    assert body["winner"] == "player" and body["natural"] is True and body["player"]["natural"]


def test_banker_win_records_the_vigorish_of_the_rules_submission_545_13_c() -> None:
    for vig in (4, 5):
        t = _table(vigorish_percent=vig)
        body = result(t.coup("2S", "7H", "4D", "KC", "KH"))  # P 6 stands, B 7 stands
        assert body["winner"] == "banker" and body["margin"] == 1
        banker = body["wagers"]["banker"]
        assert banker["outcome"] == "win" and banker["vigorish_percent"] == vig
        assert banker["vigorish_rule"] == cite("545.13(c)") and body["vigorish_percent"] == vig
        assert body["wagers"]["player"]["outcome"] == "lose"
        assert body["announcement"] == "Banker wins, 7 over 6"


def test_player_win_and_the_result_cite_545_8_a_and_545_13_a() -> None:
    t = _table()
    out = t.coup("7S", "2H", "KD", "4C", "KH")  # P 7, B 6 stands
    [decision] = of_type(out, EventType.BACCARAT_RESULT)
    assert decision.rule == cite("545.8(a)")
    body = decision.data
    assert body["winner"] == "player"
    assert body["wagers"]["player"] == {
        "outcome": "win",
        "odds": "1 to 1",
        "rule": cite("545.13(a)"),
    }
    assert body["wagers"]["banker"]["vigorish_percent"] is None
    assert body["wagers"]["tie"]["outcome"] == "lose"
    assert [str(d.type) for d in out.events][-2:] == ["baccarat.result", "round.ended"]


def test_a_tie_pushes_both_hands_and_pays_the_tie_545_8_a_3_545_13_b() -> None:
    t = _table(tie_pays=9)
    body = result(t.coup("6S", "4H", "KD", "2C"))  # 6 - 6
    assert body["winner"] == "tie" and body["announcement"] == "tie hand"
    assert body["wagers"]["banker"]["outcome"] == "push"
    assert body["wagers"]["player"]["outcome"] == "push"
    assert body["wagers"]["tie"] == {"outcome": "win", "odds": "9 to 1", "rule": cite("545.13(b)")}


def test_dragon_7_on_ez_baccarat_545_8_a_545_13_d() -> None:
    t = _table(ez_baccarat=True, vigorish_percent=None)
    # P 3+K = 3 draws a 2: 5. B 2+2 = 4 draws on a 2: 4+3 = 7 on three cards.
    body = result(t.coup("3S", "2H", "KD", "2C", "2D", "3H"))
    assert body["banker"]["total"] == 7 and body["player"]["total"] == 5
    assert body["dragon_7"] is True and body["announcement"] == "Dragon 7"
    assert body["winner"] == "banker"
    assert body["wagers"]["banker"] == {
        "outcome": "push",
        "odds": None,
        "rule": cite("545.8(a)(1)(iii)"),
        "vigorish_percent": None,
        "vigorish_rule": cite("545.13(c)"),
    }
    assert body["wagers"]["player"]["outcome"] == "lose"
    assert body["wagers"]["dragon_7_insurance"] == {
        "outcome": "win",
        "odds": "40 to 1",
        "rule": cite("545.13(d)"),
    }
    assert body["announcement_rule"] == cite("545.12(a)")


def test_ez_baccarat_collects_no_vigorish_and_insurance_loses_without_dragon_7() -> None:
    t = _table(ez_baccarat=True, vigorish_percent=5)
    body = result(t.coup("2S", "7H", "4D", "KC"))  # B 7 on two cards: no Dragon 7
    assert body["dragon_7"] is False and body["wagers"]["banker"]["outcome"] == "win"
    assert body["wagers"]["banker"]["vigorish_percent"] is None
    assert body["wagers"]["dragon_7_insurance"]["outcome"] == "lose"
    assert body["vigorish_percent"] is None and body["ez_baccarat"] is True


def test_three_card_7_on_a_table_without_ez_is_a_plain_banker_win() -> None:
    t = _table()
    body = result(t.coup("3S", "2H", "KD", "2C", "2D", "3H"))
    assert body["dragon_7"] is False and body["wagers"]["banker"]["outcome"] == "win"
    assert "dragon_7_insurance" not in body["wagers"]


# Win by N -> odds per table, as § 541.13(d) prints them.
PAYOUTS = {
    "A": {9: "30 to 1", 8: "10 to 1", 7: "6 to 1", 6: "4 to 1", 5: "2 to 1", 4: "1 to 1"},
    "B": {9: "20 to 1", 8: "8 to 1", 7: "7 to 1", 6: "4 to 1", 5: "3 to 1", 4: "1 to 1"},
    "C": {9: "30 to 1", 8: "10 to 1", 7: "4 to 1", 6: "4 to 1", 5: "2 to 1", 4: "2 to 1"},
}


@pytest.mark.parametrize("table", "ABC")
def test_dragon_bonus_margins_per_table_541_13_d(table) -> None:
    rules = BaccaratRules("minibaccarat", dragon_bonus_table=table)
    for margin in range(1, 10):
        # Non-natural three-card hands: the Player's total is the margin over a Banker 0.
        player = ["KS", "KH", f"{'A23456789'[margin - 1]}D"]  # total = margin
        banker = ["KD", "KC", "KS"]  # total 0
        bonus = dragon_bonus(rules, "player", player, banker)
        assert bonus["margin"] == margin and bonus["rule"] == cite("541.13(d)")
        if margin >= 4:
            assert (bonus["outcome"], bonus["odds"]) == ("win", PAYOUTS[table][margin])
        else:
            assert bonus["outcome"] == "lose"
        losing = dragon_bonus(rules, "banker", player, banker)
        assert losing["outcome"] == "lose"
    beaten = dragon_bonus(rules, "player", ["2S", "KH", "KD"], ["9S", "KC"])
    assert (beaten["outcome"], beaten["odds"]) == ("lose", None)
    natural_win = dragon_bonus(rules, "player", ["9S", "KC"], ["2S", "KH", "KD"])
    assert (natural_win["outcome"], natural_win["odds"], natural_win["why"]) == (
        "win",
        "1 to 1",
        "natural winner",
    )
    natural_tie = dragon_bonus(rules, "player", ["8S", "KC"], ["4S", "4H"])
    assert natural_tie["outcome"] == "push"
    plain_tie = dragon_bonus(rules, "banker", ["5S", "KC", "AD"], ["6S", "KH", "KD"])
    assert plain_tie["outcome"] == "lose"


def test_dragon_bonus_through_the_engine_on_minibaccarat_541_13_d() -> None:
    t = _table("minibaccarat", dragon_bonus_table="B")
    # P 7 stands, B 3 draws a king: 3. Banker loses by 4.
    out = t.coup("7S", "3H", "KD", "KC", "KH")
    [decision] = of_type(out, EventType.BACCARAT_RESULT)
    bonus = decision.data["wagers"]["dragon_bonus"]
    assert bonus["player"]["outcome"] == "win" and bonus["player"]["odds"] == "1 to 1"
    assert bonus["banker"]["outcome"] == "lose"
    # Minibaccarat's result borrows § 545.8(a) and says so.
    assert decision.rule == cite("545.8(a)") and "chapter 541" in decision.data["rule_note"]


def test_bad_options_are_refused_with_their_section() -> None:
    bad = [
        ("baccarat", {"vigorish_percent": 3}, "545.13(c)"),
        ("baccarat", {"vigorish_percent": None}, "545.13(c)"),
        ("baccarat", {"decks": 4}, "541.4(a)"),
        ("baccarat", {"dragon_bonus_table": "A"}, "541.13(d)"),
        ("minibaccarat", {"dragon_bonus_table": "D"}, "A, B, C"),
        ("midibaccarat", {"ez_baccarat": True}, "545.2(b)(6)"),
        ("baccarat", {"ez_baccarat": "yes"}, "true or false"),
        ("baccarat", {"tie_pays": 7}, "545.13(b)"),
        ("chemin_de_fer", {}, "expected"),
    ]
    for game, rules, said in bad:
        with pytest.raises(RulesError, match=said.replace("(", r"\(").replace(")", r"\)")):
            BaccaratRules(game, **rules)
