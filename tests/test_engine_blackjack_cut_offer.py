"""Who is offered the cut, where the cutting card goes, and the recut (Blackjack, Spanish 21).

58 Pa. Code § 549.6(b)-(d), (f); § 551.5(b)-(d), (f). No device sees the cut: the
dealer's `cut` records it and floord checks it against what it knows.
"""

from __future__ import annotations

import pytest
from test_engine_blackjack_support import make_table, of_type, violations

from floord.contract import EventType, cite
from floord.engine import BlackjackEngine

pytestmark = pytest.mark.unit

SIX_DECKS = 6 * 52


def _round_with_cutting_card(t, at):
    """A round of box 1 in which the shoe's cutting card comes out; `at` where it appeared."""
    assert t.start(1).ok
    t.device(EventType.SHOE_CUTTING_CARD, {"count": 250, "side": None})
    t.draws("TS", "7D", "9C", "8S")
    assert t.decide(1, "stand").ok
    assert t.dealer("dealer_turn").ok
    return t.dealer("round_end", {"cutting_card_at": at})


def test_the_cut_is_offered_to_the_player_on_whose_box_the_cutting_card_appeared_549_6_b_c():
    """§ 549.6(b): "The player to cut the cards shall be: ... (2) The player on whose box the
    cutting card appeared during the last round of play." (c): "If the player designated in
    subsection (b) refuses the cut, the cards shall be offered to each other player moving
    clockwise around the table until a player accepts the cut. If no player accepts the cut,
    the dealer shall cut the cards."
    """
    t = make_table()
    t.ready()
    end = _round_with_cutting_card(t, 1)
    assert end.ok, end.error
    [ended] = of_type(end.output, EventType.ROUND_ENDED)
    assert ended.data["next_cut"]["box"] == 1
    assert ended.data["next_cut"]["rule"] == cite("549.6(b)(2)")
    skipped = t.cut(by="player", box=3)
    assert not skipped.ok and skipped.rule == cite("549.6(b)")
    assert "box 1" in skipped.error
    backwards = t.cut(by="player", box=3, declined=[1, 5])
    assert not backwards.ok and "clockwise" in backwards.error
    dealer_alone = t.cut(by="dealer")
    assert not dealer_alone.ok and dealer_alone.rule == cite("549.6(b)")
    cut = t.cut(cards=100, by="player", box=5, declined=[1, 3])
    assert cut.ok, cut.error
    [event] = of_type(cut.output, EventType.CARDS_CUT)
    assert event.rule == cite("549.6(d)")
    assert event.data["declined"] == [1, 3] and event.data["box"] == 5
    assert event.data["designated"] is False
    assert event.data["offered_to"]["why"] == "cutting_card_box"


def test_no_player_accepts_and_the_dealer_cuts_549_6_c():
    """§ 549.6(c): "If no player accepts the cut, the dealer shall cut the cards." """
    t = make_table()
    t.ready()
    assert _round_with_cutting_card(t, 1).ok
    cut = t.cut(by="dealer", declined=[1, 2, 6])
    assert cut.ok, cut.error
    [event] = of_type(cut.output, EventType.CARDS_CUT)
    assert event.data["by"] == "dealer" and event.data["also"] == cite("549.6(c)")


def test_the_cutting_card_on_the_dealers_hand_offers_the_farthest_right_player_549_6_b_3():
    """§ 549.6(b)(3): "The player at the farthest point to the right of the dealer if the
    cutting card appeared on the dealer's hand during the last round of play." """
    t = make_table()
    t.ready()
    end = _round_with_cutting_card(t, "dealer")
    assert end.ok, end.error
    assert t.engine.shoe.cuts.offer["rule"] == cite("549.6(b)(3)")
    wrong = _round_with_cutting_card(make_ready(), 4)
    assert not wrong.ok and "cutting_card_at" in wrong.error


def make_ready():
    t = make_table()
    t.ready()
    return t


def test_cutting_card_at_is_refused_when_no_cutting_card_came_out():
    t = make_ready()
    assert t.start(1).ok
    t.draws("TS", "7D", "9C", "8S")
    assert t.decide(1, "stand").ok
    assert t.dealer("dealer_turn").ok
    end = t.dealer("round_end", {"cutting_card_at": 1})
    assert not end.ok and "no cutting card" in end.error


def test_a_floorpersons_reshuffle_offers_the_cut_to_the_farthest_right_player_549_6_b_4():
    """§ 549.6(b)(4): "The player at the farthest point to the right of the dealer if the
    reshuffle was initiated at the discretion of a floorperson or above." """
    t = make_ready()
    assert t.command("reshuffle", {"reason": "pattern of play"}).ok
    cut = t.cut(by="player", box=7)
    assert cut.ok, cut.error
    [event] = of_type(cut.output, EventType.CARDS_CUT)
    assert event.data["offered_to"]["rule"] == cite("549.6(b)(4)")


def test_the_cutting_card_at_least_10_cards_from_the_top_or_bottom_549_6_d():
    """§ 549.6(d): "The player shall cut the cards by placing the cutting card in the stack at
    least 10 cards in from the top or bottom of the stack." """
    t = make_table()
    t.ready(load=False)
    for cards in (9, SIX_DECKS - 9, "12", True):
        refused = t.cut(cards=cards, by="player", box=2)
        assert not refused.ok and refused.rule == cite("549.6(d)"), cards
    assert t.cut(cards=SIX_DECKS - 10, by="player", box=2).ok
    # The shoe counts 300 cards: 302 above the cutting card leaves fewer than 10 below it.
    loaded = t.device(EventType.SHOE_LOADED, {"side": None, "cards": 300})
    [near] = [v for v in violations(loaded) if v.data["what"] == "cut_too_near_the_end"]
    assert near.rule == cite("549.6(d)") and near.data["count"] == 300


def test_a_stack_loaded_without_a_cut_does_not_count_549_6_b():
    """§ 549.6(b): "After the cards have been shuffled, the dealer shall offer the stack of
    cards, with backs facing upward to the players to be cut." """
    t = make_table()
    t.ready(load=False)
    [v] = violations(t.device(EventType.SHOE_LOADED, {"side": None, "cards": None}))
    assert v.data["what"] == "stack_not_cut" and v.rule == cite("549.6(b)")
    refused = t.start(1)
    assert not refused.ok and "loaded again" in refused.error


def test_a_floorperson_may_require_a_recut_before_any_card_is_dealt_549_6_f():
    """§ 549.6(f): "After the cards have been cut and before any cards have been dealt, a
    floorperson or above may require the cards to be recut ... If a recut is required, the
    cards shall be recut, at the certificate holder's option, by the player who last cut the
    cards, or by the next person entitled to cut the cards, as determined by subsection
    (b)(4)." """
    t = make_table()
    t.ready(load=False)
    assert t.cut(by="player", box=4).ok
    by_dealer = t.dealer("recut", {"reason": "cut too shallow"})
    assert not by_dealer.ok and by_dealer.rule == cite("549.6(f)")
    assert t.command("recut", {"reason": "cut too shallow"}).ok
    again = t.cut(by="player", box=4)  # the player who last cut
    assert again.ok, again.error
    [event] = of_type(again.output, EventType.CARDS_CUT)
    assert event.rule == cite("549.6(f)") and event.data["recut"] is True
    # In the shoe, no card dealt: the recut takes the stack out again.
    t.device(EventType.SHOE_LOADED, {"side": None, "cards": None})
    assert t.command("recut", {"reason": "cut seen by camera"}).ok
    assert not t.engine.shoe.sides["shoe"]["loaded"]
    t.load()  # cut again, loaded, the burn card drawn
    late = t.command("recut", {"reason": "too late"})
    assert not late.ok and late.rule == cite("549.6(f)")


def test_spanish21_recut_by_the_next_player_entitled_551_5_f():
    """§ 551.5(f): "If a recut is required, the cards shall be cut by the next player entitled
    to cut the cards, as determined by subsection (c)." """
    t = make_table("spanish21")
    t.ready(load=False)
    assert t.cut(cards=50, by="player", box=2).ok
    assert t.command("recut", {"reason": "improper"}).ok
    same = t.cut(cards=50, by="player", box=2)
    assert not same.ok and same.rule == cite("551.5(b)")
    nxt = t.cut(cards=50, by="player", box=3)
    assert nxt.ok, nxt.error
    [event] = of_type(nxt.output, EventType.CARDS_CUT)
    assert event.rule == cite("551.5(f)") and event.data["offered_to"]["after"] == 2


def test_spanish21_cut_cites_551_5_b_d():
    """§ 551.5(d): "The player shall cut the cards by placing the cutting card in the stack at
    least ten cards in from the top or bottom of the stack." """
    t = make_table("spanish21")
    t.ready(load=False)
    short = t.cut(cards=5, by="player", box=1)
    assert not short.ok and short.rule == cite("551.5(d)")
    done = t.cut(cards=40, by="player", box=1)
    [event] = of_type(done.output, EventType.CARDS_CUT)
    assert event.rule == cite("551.5(d)")
    assert event.data["offered_to"]["rule"] == cite("551.5(b)(1)")
    assert event.data["stack"] == 6 * 48


def test_each_side_of_a_double_shoe_is_cut_and_a_continuous_shuffler_has_none():
    t = make_table(shoe="double")
    t.ready(load=False)
    no_side = t.cut()
    assert not no_side.ok and "side" in no_side.error
    done = t.cut("left", cards=100)
    assert done.ok, done.error
    [event] = of_type(done.output, EventType.CARDS_CUT)
    assert event.data["side"] == "left" and event.data["stack"] == 3 * 52
    [v] = violations(t.device(EventType.SHOE_LOADED, {"side": "right", "cards": None}))
    assert v.data["what"] == "stack_not_cut" and v.data["side"] == "right"
    c = make_table(shuffler="continuous", shuffler_device="shuffler-1")
    refused = c.cut()
    assert not refused.ok and refused.rule == cite("549.15")


def test_a_cut_on_record_survives_a_restart():
    t = make_table()
    t.ready(load=False)
    assert t.cut(cards=77, by="player", box=6).ok
    snap = t.engine.snapshot()
    t2 = make_table(snapshot=snap)
    assert t2.engine.shoe.cuts.pending["shoe"]["cards"] == 77
    assert isinstance(t2.engine, BlackjackEngine)
    assert violations(t2.device(EventType.SHOE_LOADED, {"side": None, "cards": None})) == []
