"""Mississippi Stud rounds: dealing, streets, reveals, settlement and the voids of § 571.13."""

from __future__ import annotations

import pytest
from test_engine_stud_support import make_table, of_type, types

from floord.contract import EventType, cite

pytestmark = pytest.mark.unit


def _result(out) -> dict:
    [result] = of_type(out.output, EventType.STUD_RESULT)
    assert result.rule == cite("571.12(a)")
    return {b["box"]: b for b in result.data["boxes"]}


@pytest.mark.parametrize(
    ("hole", "community", "payout_class", "outcome", "odds"),
    [
        ("AS KS", "QS JS TS", "royal_flush", "win", 500),
        ("9H 8H", "7H 6H 5H", "straight_flush", "win", 100),
        ("7C 7D", "7H 7S 2C", "four_of_a_kind", "win", 40),
        ("KC KD", "KH 4S 4C", "full_house", "win", 10),
        ("2H 9H", "JH 4H KH", "flush", "win", 6),
        ("AC 2D", "3H 4S 5C", "straight", "win", 4),
        ("8C 8D", "8H 2S 5C", "three_of_a_kind", "win", 3),
        ("3C 3D", "4H 4S AC", "two_pair", "win", 2),
        ("JC JD", "4H 7S AC", "pair_jacks_or_better", "win", 1),
        ("6C 6D", "4H 7S AC", "pair_sixes_to_tens", "push", None),
        ("TC 2D", "TH 7S AC", "pair_sixes_to_tens", "push", None),
        ("5C 5D", "4H 7S AC", "pair_below_sixes", "lose", None),
        ("QC 2D", "3H 7S AC", "no_pair", "lose", None),
    ],
)
def test_payout_classes_571_12_a(hole, community, payout_class, outcome, odds) -> None:
    t = make_table()
    t.ready()
    out = t.play_round({1: hole}, community, {1: "play3"})
    assert out.ok, out.error
    box = _result(out)[1]
    assert (box["payout_class"], box["outcome"], box["odds"]) == (payout_class, outcome, odds)
    assert box["units"] == 10  # ante 1 + 3 x 3
    if outcome == "win":
        assert box["won_units"] == odds * 10
    rule = cite("571.11(g)(2)") if outcome == "push" else cite("571.12(a)")
    assert box["rule"] == rule
    [hand] = of_type(out.output, EventType.STUD_HAND)
    assert hand.rule == cite("571.6(b)") and hand.data["payout_class"] == payout_class
    assert types(out.output)[-1] == EventType.ROUND_ENDED


def test_aggregate_payout_limit_is_applied_571_12_b() -> None:
    """§ 571.12(b): "the aggregate payout limit for any hand may not exceed $50,000 or the
    maximum amount that one patron could win per round when betting the minimum wager,
    whichever is greater." A $25 minimum Ante allows up to $125,000; a hand owed more
    is paid the table's limit."""
    t = make_table(aggregate_payout_limit=60000, minimum_ante=25)
    t.ready()
    out = t.play_round(
        {1: "AS KS", 2: "7C 7D"}, "QS JS TS", {1: "play3", 2: "play1"}, antes={"1": 25, "2": 25}
    )
    boxes = _result(out)
    assert boxes[1]["payout_due"] == 500 * 10 * 25
    assert boxes[1]["payout"] == 60000 and boxes[1]["capped"] is True
    assert boxes[1]["cap_rule"] == cite("571.12(b)")
    assert boxes[2]["outcome"] == "push"  # a pair of sevens


def test_a_limit_below_50000_is_accepted_and_applied_571_12_b() -> None:
    """§ 571.12(b): the limit "may not exceed $50,000 or the maximum amount that one patron
    could win per round when betting the minimum wager, whichever is greater": a ceiling,
    not a floor. A $25,000 limit is allowed (this test once asserted the opposite)."""
    t = make_table(aggregate_payout_limit=25000)
    t.ready()
    out = t.play_round({1: "AS KS"}, "QS JS TS", {1: "play3"}, antes={"1": 10})
    box = _result(out)[1]
    assert box["payout_due"] == 500 * 10 * 10
    assert box["payout"] == 25000 and box["capped"] is True
    assert box["cap_rule"] == cite("571.12(b)")


@pytest.mark.parametrize(
    ("minimum_ante", "ceiling"),
    [(None, 50_000), (5, 50_000), (10, 50_000), (25, 125_000), (100, 500_000)],
)
def test_the_limit_may_not_exceed_the_ceiling_571_12_b(minimum_ante, ceiling) -> None:
    """§ 571.12(b): "may not exceed $50,000 or the maximum amount that one patron could win
    per round when betting the minimum wager, whichever is greater." The most won betting
    the minimum: an Ante at the minimum, each Street Wager three times it (§ 571.1), all
    paid 500 to 1 (a royal flush, § 571.12(a)): 5,000 times the minimum Ante. Without a
    minimum Ante floord cannot compute that amount, so the ceiling is $50,000."""
    over = {} if minimum_ante is None else {"minimum_ante": minimum_ante}
    assert make_table(aggregate_payout_limit=ceiling, **over).engine.rules.aggregate_payout_limit
    with pytest.raises(ValueError, match=rf"571\.12\(b\)'s ceiling of \${ceiling:,}") as caught:
        make_table(aggregate_payout_limit=ceiling + 1, **over)
    if minimum_ante is None:
        assert "minimum_ante" in str(caught.value)
    for bad in (0, -5, 1.5, True):
        with pytest.raises(ValueError, match="aggregate_payout_limit must be a whole number"):
            make_table(aggregate_payout_limit=bad, **over)


def test_folds_lose_what_was_wagered_and_need_no_reveal() -> None:
    t = make_table()
    t.ready()
    assert t.start(1, 2).ok
    assert t.dealer("no_more_bets").ok
    t.draws("AS", "KS", "2C", "3D", "QS", "JS", "TS")
    assert t.decide(1, "play2").ok
    assert t.decide(2, "fold").ok
    assert t.dealer("no_more_bets").ok
    assert t.reveal(1).ok
    assert t.decide(1, "fold").ok
    end = t.dealer("round_end")
    assert end.ok, end.error
    boxes = _result(end)
    assert boxes[2] == {**boxes[2], "outcome": "fold", "folded_at": 3, "lost_units": 1}
    assert boxes[2]["rule"] == cite("571.11(a)")
    assert boxes[1]["outcome"] == "fold" and boxes[1]["lost_units"] == 3
    assert boxes[1]["rule"] == cite("571.11(c)")


def test_the_order_of_a_round_is_enforced_571_11() -> None:
    t = make_table()
    t.ready()
    assert t.start(1, 2).ok
    refused = t.decide(1, "play1")
    assert not refused.ok and refused.rule == cite("571.8(b)")
    assert t.dealer("no_more_bets").ok
    t.draws("AS", "KS", "2C", "3D", "QS", "JS", "TS")
    assert t.decide(1, "play1").ok
    assert not t.decide(1, "play2").ok  # already decided
    assert not t.decide(4, "play1").ok  # no ante
    waiting = t.dealer("no_more_bets")
    assert not waiting.ok and waiting.rule == cite("571.11(a)") and "[2]" in waiting.error
    assert t.decide(2, "play1").ok
    assert t.dealer("no_more_bets").ok
    late = t.decide(2, "play1")
    assert not late.ok
    out_of_order = t.reveal(2)
    assert not out_of_order.ok and out_of_order.rule == cite("571.11(d)")
    assert not t.dealer("round_end").ok
    turned = t.reveal(1)
    assert turned.ok
    [shown] = of_type(turned.output, EventType.STUD_HAND)
    assert shown.data == {"hand": "community", "card": 1, "face": "QS", "community": ["QS"]}
    assert shown.rule == cite("571.11(b)")


def test_a_community_card_exposed_before_no_more_bets_voids_571_13_a() -> None:
    t = make_table()
    t.ready()
    assert t.start(1).ok
    assert t.dealer("no_more_bets").ok
    t.draws("AS", "KS", "QS", "JS", "TS")
    assert t.decide(1, "play1").ok
    out = t.reveal(1)
    assert out.ok
    [void] = of_type(out.output, EventType.ROUND_VOIDED)
    assert void.rule == cite("571.13(a)") and void.data["wagers"] == "returned"
    [shuffle] = of_type(out.output, EventType.CARDS_SHUFFLE_REQUIRED)
    assert shuffle.rule == cite("571.13(a)")
    assert t.engine.current_round is None


def test_two_cards_face_up_void_one_is_only_discarded_571_13_b() -> None:
    t = make_table()
    t.ready()
    assert t.start(1).ok
    assert t.dealer("no_more_bets").ok
    first = t.device(EventType.SHOE_CARD_FACE_UP, {"card": "9D", "side": None})
    [v] = of_type(first, EventType.PROCEDURE_VIOLATION)
    assert v.rule == cite("571.13(b)") and v.data["what"] == "card_face_up_in_shoe"
    t.draws("9D")  # the face-up card taken out: not dealt
    t.draws("AS", "KS", "QS", "JS", "TS")
    assert t.engine.rounds.current["hands"][0]["cards"] == ["AS", "KS"]
    second = t.device(EventType.SHOE_CARD_FACE_UP, {"card": "4D", "side": None})
    assert not of_type(second, EventType.ROUND_VOIDED)  # dealing is over
    t2 = make_table()
    t2.ready()
    assert t2.start(1).ok
    assert t2.dealer("no_more_bets").ok
    t2.device(EventType.SHOE_CARD_FACE_UP, {"card": "9D", "side": None})
    out = t2.device(EventType.SHOE_CARD_FACE_UP, {"card": "8D", "side": None})
    [void] = of_type(out, EventType.ROUND_VOIDED)
    assert void.rule == cite("571.13(b)")


def test_too_few_or_too_many_cards_void_571_13_d() -> None:
    t = make_table()
    t.ready()
    assert t.start(1, 2).ok
    assert t.dealer("no_more_bets").ok
    t.draws("AS", "KS", "2C", "3D", "QS", "JS")  # one community card short
    out = t.decide(1, "play1")
    [void] = of_type(out.output, EventType.ROUND_VOIDED)
    assert void.rule == cite("571.13(d)") and void.data["reason"] == "wrong_number_of_cards"
    t.prepare()
    assert t.start(1).ok
    assert t.dealer("no_more_bets").ok
    t.draws("AS", "KS", "QS", "JS", "TS")
    extra = t.draw("9C")
    [void] = of_type(extra, EventType.ROUND_VOIDED)
    assert void.rule == cite("571.13(d)")


def test_a_card_before_no_more_bets_is_a_violation_571_8_b() -> None:
    t = make_table()
    t.ready()
    assert t.start(1).ok
    out = t.draw("AS")
    [v] = of_type(out, EventType.PROCEDURE_VIOLATION)
    assert v.rule == cite("571.8(b)") and v.data["what"] == "card_before_no_more_bets"


def test_a_card_drawn_in_error_unexposed_is_used_as_the_next_card_571_13_c() -> None:
    """§ 571.13(c): "A card drawn in error without its face being exposed shall be used as
    though it were the next card from the shoe or the deck". A card drawn before "no more
    bets" (§ 571.8(b)) and not found face up is box 1's first card; the round goes on."""
    t = make_table()
    t.ready()
    assert t.start(1, 4).ok
    [v] = of_type(t.draw("AS"), EventType.PROCEDURE_VIOLATION)
    assert v.data["used_as"] == "next_card" and v.data["used_as_rule"] == cite("571.13(c)")
    assert v.data["card"] == "AS"
    assert t.dealer("no_more_bets").ok
    t.draws("KS", "7C", "7D", "QS", "JS", "TS")
    hands = {h["box"]: h["cards"] for h in t.engine.snapshot()["round"]["hands"]}
    assert hands == {1: ["AS", "KS"], 4: ["7C", "7D"]}
    assert t.decide(1, "play1").ok and t.decide(4, "play1").ok  # 3rd Street goes on


def test_automated_shoe_deals_stacks_and_community_from_the_hand_571_10() -> None:
    t = make_table(dealing="automated_shoe")
    t.ready()
    assert t.start(2, 5).ok
    assert t.dealer("no_more_bets").ok
    t.draws("AS", "KS", "7C", "7D")
    for card, face in ((1, "QS"), (2, "JS"), (3, "TS")):
        assert t.street({2: "play1", 5: "play1"}, card, face).ok
    boxes = _result(t.dealer("round_end"))
    assert boxes[2]["payout_class"] == "royal_flush"
    assert boxes[5]["payout_class"] == "pair_sixes_to_tens"


def test_automated_shoe_that_stops_dealing_voids_571_13_f() -> None:
    t = make_table(dealing="automated_shoe")
    t.ready()
    assert t.start(1, 2).ok
    assert t.dealer("no_more_bets").ok
    t.draws("AS", "KS")
    out = t.device(EventType.SHOE_EMPTY, {"side": None})
    [void] = of_type(out, EventType.ROUND_VOIDED)
    assert void.rule == cite("571.13(f)")
    [shuffle] = of_type(out, EventType.CARDS_SHUFFLE_REQUIRED)
    assert "already dealt" in shuffle.data["detail"]


def test_automated_shoe_fault_mid_round_voids_571_13_f() -> None:
    t = make_table(dealing="automated_shoe")
    t.ready()
    assert t.start(1).ok
    out = t.device(EventType.DEVICE_FAULT, {"code": 3, "text": "jam", "origin": "fault_line"})
    assert EventType.TABLE_HALTED in types(out)
    [void] = of_type(out, EventType.ROUND_VOIDED)
    assert void.rule == cite("571.13(f)")


def test_hand_dealing_is_not_observed_and_not_called() -> None:
    t = make_table(dealing="hand", recognition=False)
    t.ready()
    assert t.start(1).ok
    assert t.dealer("no_more_bets").ok
    for card in (1, 2, 3):
        assert t.street({1: "play1"}, card).ok
    end = t.dealer("round_end")
    assert end.ok
    [ended] = of_type(end.output, EventType.ROUND_ENDED)
    assert ended.data["outcome"] == "not_called"
    assert _result(end)[1]["outcome"] == "not_called"


def test_one_player_one_position_571_7_e() -> None:
    """§ 571.7(e): "A player may not simultaneously play and wager on more than one player
    position at a Mississippi Stud table." Checked where `round_start` names the players."""
    t = make_table()
    t.ready()
    two = t.dealer("round_start", {"boxes": [1, 2, 4], "players": {"P1": [1, 2], "P2": [4]}})
    assert not two.ok and two.rule == cite("571.7(e)")
    assert "player P1 plays boxes [1, 2]" in (two.error or "")
    unnamed = t.dealer("round_start", {"boxes": [1, 2], "players": {"P1": [1]}})
    assert not unnamed.ok and "every box in play exactly once" in (unnamed.error or "")
    bad = t.dealer("round_start", {"boxes": [1], "players": {"P1": 1}})
    assert not bad.ok and "non-empty list of box numbers" in (bad.error or "")
    started = t.dealer("round_start", {"boxes": [1, 2], "players": {"P1": [2], "P2": [1]}})
    assert started.ok, started.error
    [event] = of_type(started.output, EventType.ROUND_STARTED)
    assert event.data["players"] == {"P1": [2], "P2": [1]}
