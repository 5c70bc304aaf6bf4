"""Dealing and calling a round: § 549.7(e) order, player and dealer draws, results."""

from __future__ import annotations

import pytest
from test_engine_blackjack_support import make_table, of_type, types, violations

from floord.contract import EventType, cite

pytestmark = pytest.mark.unit


def _round(*boxes: int, game: str = "blackjack", recognition: bool = True):
    t = make_table(game, recognition=recognition)
    t.ready()
    assert t.start(*boxes).ok
    return t


def _result(t):
    assert t.dealer("dealer_turn").ok
    out = t.dealer("round_end")
    assert out.ok, out.error
    return out.output


def test_round_start_checks_the_boxes() -> None:
    t = make_table()
    t.ready()
    for bad in ([], [0], [8], [1, 1], ["1"], None):
        assert not t.start(*bad).ok if isinstance(bad, list) else not t.dealer("round_start", {}).ok
    assert t.start(3, 1).ok
    assert t.engine.snapshot()["round"]["boxes"] == [1, 3]
    assert not t.start(2).ok  # a round is in play


def test_cards_go_to_the_places_of_549_7_e_and_each_hand_is_called() -> None:
    t = _round(1, 3)
    out = t.draws("5S", "TH", "8D", "6C", "AD", "9S")
    hands = of_type(out, EventType.BLACKJACK_HAND)
    assert [(h.data["box"], h.data["cards"]) for h in hands] == [
        (1, ["5S"]),
        (3, ["TH"]),
        (1, ["5S", "6C"]),
        (3, ["TH", "AD"]),
    ]
    assert hands[-1].data["blackjack"] and hands[-1].rule == cite("549.3(b)")
    dealer = of_type(out, EventType.BLACKJACK_DEALER_HAND)
    assert len(dealer) == 1 and dealer[0].data["cards"] == ["8D"]  # the hole card stays down
    assert t.decide(1, "double").ok
    assert of_type(t.draw("TC"), EventType.BLACKJACK_HAND)[0].data["total"] == 21
    reveal = t.dealer("dealer_turn").output.events[0]
    assert reveal.data["cards"] == ["8D", "9S"] and reveal.data["hole_card"] == "revealed"
    out = t.dealer("round_end").output
    assert types(out) == ["blackjack.result", "round.ended"]
    result = out.events[0]
    assert result.rule == cite("549.4(b)")
    by_box = {h["box"]: h for h in result.data["hands"]}
    assert by_box[1]["outcome"] == "win" and by_box[1]["doubled"]
    assert by_box[3]["outcome"] == "blackjack" and by_box[3]["odds"] == "3 to 2"
    assert by_box[3]["rule"] == cite("549.8")


def test_a_second_card_to_a_doubled_hand_is_a_violation_549_11_a() -> None:
    t = _round(1)
    t.draws("5S", "8D", "6C", "9S")
    assert t.decide(1, "double").ok
    t.draw("2C")
    v = violations(t.draw("3C"))[0]
    assert v.rule == cite("549.11(a)") and v.data["counted"] is False


def test_a_second_card_to_a_split_ace_is_a_violation_549_12_c_2() -> None:
    t = _round(1)
    t.draws("AS", "8D", "AC", "9S")
    assert t.decide(1, "split").ok
    t.draws("7H", "5D")  # one card to each ace
    refused = t.decide(1, "hit", hand=1)
    assert not refused.ok and refused.rule == cite("549.12(c)(2)")
    assert t.decide(1, "stand", hand=2).ok
    v = violations(t.draw("4C"))[0]
    assert v.rule == cite("549.12(c)(2)")


def test_spanish21_does_not_restrict_split_aces_and_a_ten_breaks_551_3_a() -> None:
    t = _round(1, game="spanish21")
    t.draws("AS", "8D", "AC", "9S")
    assert t.decide(1, "split").ok
    t.draws("7H", "5D")
    assert t.decide(1, "hit", hand=1).ok
    v = violations(t.draw("TC"))[0]
    assert v.rule == cite("551.3(a)") and v.data["what"] == "ten_in_spanish21"


def test_a_card_to_a_hand_of_21_or_blackjack_is_a_violation_549_13_a_1() -> None:
    t = _round(1)
    t.draws("AS", "8D", "KC", "9S")
    refused = t.decide(1, "hit")
    assert not refused.ok and refused.rule == cite("549.13(a)(1)")
    assert t.decide(1, "stand").ok
    v = violations(t.draw("2C"))[0]
    assert v.rule == cite("549.13(a)(1)") and v.data["box"] == 1


def test_splits_need_a_pair_and_stop_at_three_hands_549_12() -> None:
    t = _round(1)
    t.draws("8S", "6D", "9C", "9S")
    refused = t.decide(1, "split")
    assert not refused.ok and refused.rule == cite("549.12(a)")
    t = _round(1)
    t.draws("8S", "6D", "8C", "9S")
    assert t.decide(1, "split").ok
    refused = t.decide(1, "stand", hand=2)
    assert not refused.ok and refused.rule == cite("549.12(b)")  # hand 1 first
    t.draw("8H")
    assert t.decide(1, "split", hand=1).ok  # a second split: three hands
    t.draws("2C")
    assert t.decide(1, "stand", hand=1).ok
    t.draw("3C")  # hand 3's second card
    assert t.decide(1, "stand", hand=3).ok
    t.draw("8D")  # hand 2's second card: a pair again
    refused = t.decide(1, "split", hand=2)
    assert not refused.ok and refused.rule == cite("549.12(c)(1)")
    hands = t.engine.snapshot()["round"]["hands"]
    assert [(h["hand"], h["cards"]) for h in hands] == [
        (1, ["8S", "2C"]),
        (3, ["8H", "3C"]),
        (2, ["8C", "8D"]),
    ]


def test_the_dealer_draws_to_16_and_stands_on_all_17s_549_13_b() -> None:
    t = _round(1)
    t.draws("TS", "AD", "9C", "6S")  # dealer soft 17
    t.peek(False)
    assert t.decide(1, "stand").ok
    t.dealer("dealer_turn")
    v = violations(t.draw("2C"))[0]
    assert v.rule == cite("549.13(b)") and v.data["what"] == "dealer_drew_at_17_or_more"
    assert v.data["not_counted_rule"] == cite("549.16(d)")
    out = t.dealer("round_end").output
    assert out.events[0].data["dealer"]["total"] == 17
    assert out.events[0].data["hands"][0]["outcome"] == "win"
    # Standing below 17 with a live hand:
    t = _round(1)
    t.draws("TS", "6D", "9C", "9S")
    t.decide(1, "stand")
    v = violations(_result(t))[0]
    assert v.rule == cite("549.13(b)") and v.data["what"] == "dealer_stood_below_17"


def test_no_dealer_draw_when_no_hand_depends_on_it_549_13_c() -> None:
    t = _round(1)
    t.draws("TS", "6D", "6C", "9S")
    t.decide(1, "hit")
    t.draw("KH")  # bust
    out = _result(t)
    assert violations(out) == []  # standing on 15 is right: the player is bust
    assert out.events[0].data["hands"][0]["outcome"] == "lose"


def test_a_dealer_card_drawn_when_no_hand_depends_on_it_breaks_549_13_c() -> None:
    """§ 549.13(c): "A dealer shall draw no additional cards to his hand, regardless of the
    point count, if decisions have been made on all player's hands and the point count of
    the dealer's hand will have no effect on the outcome of the round of play". Box 1 busts,
    box 2 has Blackjack: the dealer's 15 stands; a card drawn to it is a violation and not
    counted (§ 549.16(d))."""
    t = _round(1, 2)
    t.draws("TS", "AC", "6D", "6C", "KD", "9S")  # box 2: A, K
    assert t.decide(1, "hit").ok
    t.draw("KH")  # box 1 bust
    assert t.dealer("dealer_turn").ok
    drawn = t.draw("5C")
    [v] = violations(drawn)
    assert v.rule == cite("549.13(c)") and v.data["what"] == "dealer_drew_without_effect"
    assert v.data["card"] == "5C" and v.data["counted"] is False
    assert v.data["dealer"]["total"] == 15
    assert v.data["not_counted_rule"] == cite("549.16(d)")
    result = t.dealer("round_end").output.events[0].data
    assert result["dealer"]["total"] == 15
    assert [h["outcome"] for h in result["hands"]] == ["lose", "blackjack"]


def test_dealer_blackjack_pushes_a_blackjack_and_wins_insurance_549_8_b_549_10() -> None:
    t = _round(1, 2)
    t.draws("AC", "9S", "AS", "KD", "5H", "QS")
    assert t.decide(1, "insurance").ok
    out = t.peek(True, "QS")
    assert of_type(out, EventType.BLACKJACK_PEEK)[0].data["hole_card"] == "QS"
    refused = t.decide(2, "hit")
    assert not refused.ok and refused.rule == cite("549.8")
    result = _result(t).events[0].data
    assert result["dealer_blackjack"]
    assert [h["outcome"] for h in result["hands"]] == ["push", "lose"]
    assert result["insurance"] == [
        {"box": 1, "outcome": "win", "odds": "2 to 1", "rule": cite("549.10(c)")}
    ]


def test_surrender_is_the_first_decision_and_returns_half_549_9() -> None:
    t = _round(1)
    t.draws("TS", "9D", "6C", "8S")
    assert t.decide(1, "surrender").ok
    hand = _result(t).events[0].data["hands"][0]
    assert hand["outcome"] == "surrender" and hand["rule"] == cite("549.9(a)")
    t = _round(1)
    t.draws("TS", "9D", "6C", "8S")
    t.decide(1, "hit")
    t.draw("2C")
    refused = t.decide(1, "surrender")
    assert not refused.ok and refused.rule == cite("549.9(a)")


def test_a_card_no_decision_called_for_is_a_violation_549_7_h() -> None:
    t = _round(1)
    t.draws("TS", "9D", "6C", "8S")
    v = violations(t.draw("2C"))[0]
    assert v.rule == cite("549.7(h)") and v.data["counted"] is False


def test_a_manual_shoe_counts_cards_only() -> None:
    t = _round(1, 2, recognition=False)
    out = t.draws(None, None, None, None, None, None)
    assert types(out) == []
    t.peek(False)  # the up card is unknown: the peek cannot be judged
    assert t.decide(1, "double").ok
    t.draw(None)
    assert violations(t.draw(None))[0].rule == cite("549.11(a)")
    t.decide(2, "stand")
    out = _result(t)
    assert types(out) == ["round.ended"] and out.events[0].data["outcome"] == "not_called"


@pytest.mark.parametrize(
    ("game", "paragraph"), [("blackjack", "549.7(i)"), ("spanish21", "551.8(h)")]
)
def test_the_hole_card_is_turned_once_after_the_initial_deal_549_7_i(game, paragraph) -> None:
    t = _round(1, game=game)
    early = t.dealer("dealer_turn")
    assert not early.ok and early.rule == cite(paragraph)
    settle = t.dealer("round_end")
    assert not settle.ok and settle.rule == cite(paragraph)
    t.draws("5S", "8D", "6C", "9S")
    assert t.decide(1, "stand").ok
    assert t.dealer("dealer_turn").ok
    again = t.dealer("dealer_turn")
    assert not again.ok and again.rule == cite(paragraph)
    assert t.dealer("round_end").ok
