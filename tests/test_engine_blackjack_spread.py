"""Decks received at a Blackjack or Spanish 21 table are spread, washed and stacked (§ 549.5).

The spread for the first player is the receipt's third step, the dealer's signed
`decks_spread`: one for all the decks, or one per side of a double shoe (§ 549.5(d)) and
per batch of an automated shuffler (§ 549.5(e)). Until every part is spread the decks are
not cleared: a shoe loaded with them does not count and no round starts.
"""

from __future__ import annotations

import pytest
from test_engine_blackjack_support import SHUFFLER, make_table, violations
from test_engine_support import only

from floord.contract import EventType, cite

pytestmark = pytest.mark.unit

RECEIVED = {"preinspected_preshuffled": False, "decks": 6}
SPREAD = {"defects_found": False, "washed": True}


def _received(game: str = "blackjack", **over):
    """An open table, the reader inspected and tested, new decks received."""
    t = make_table(game, **over)
    t.connect_all()
    assert t.inspect().ok and t.command("open").ok
    t.reader(EventType.READER_SELF_TEST, {"passed": True, "code": 0, "text": "ok"})
    assert t.command("decks_received", RECEIVED).ok
    return t


def test_decks_are_spread_for_the_first_player_then_washed_and_stacked_549_5_b_c() -> None:
    """§ 549.5(b): "After the cards are inspected, the cards shall be spread out face
    upwards on the table for visual inspection by the first player or players to arrive at
    the table." (c): "After the first player or players are afforded an opportunity to
    visually inspect the cards, the cards shall be turned face downward on the table, mixed
    thoroughly by a washing of the cards and stacked." """
    t = _received()
    early = t.dealer("decks_spread", SPREAD)
    assert not early.ok and "after the dealer's inspection" in early.error
    assert early.rule == cite("549.5(b)")
    assert t.dealer("decks_inspected", {"defects_found": False}).ok
    verified = t.command("decks_inspected", {"defects_found": False})
    assert only(verified.output, EventType.CARDS_DECKS_INSPECTED).data["to_spread"] == [{}]
    # Inspected and verified, not spread: the stack does not count, no round starts.
    t.cut_if_due()
    [v] = violations(t.device(EventType.SHOE_LOADED, {"side": None, "cards": None}))
    assert v.data["what"] == "decks_not_inspected" and v.rule == cite("549.5(b)")
    refused = t.start(1)
    assert not refused.ok and refused.rule == cite("549.5(b)")
    assert "spread for the first player, washed and stacked" in refused.error
    # Only the dealer spreads; the washing is said, and required.
    assert "the dealer spreads" in t.command("decks_spread", SPREAD).error
    unsaid = t.dealer("decks_spread", {"defects_found": False})
    assert "washed must be true or false" in unsaid.error
    unwashed = t.dealer("decks_spread", {**SPREAD, "washed": False})
    assert not unwashed.ok and unwashed.rule == cite("549.5(c)")
    assert "unknown argument" in t.dealer("decks_spread", {**SPREAD, "side": "left"}).error
    spread = t.dealer("decks_spread", {**SPREAD, "note": "first player at box 3 looked"})
    event = only(spread.output, EventType.CARDS_DECKS_SPREAD)
    assert event.rule == cite("549.5(b)") and event.data["wash_rule"] == cite("549.5(c)")
    assert event.data["cleared"] is True and event.data["to_spread"] == []
    assert (event.data["washed"], event.data["stacked"], event.data["by"]) == (True, True, "d1")
    assert "already spread" in t.dealer("decks_spread", SPREAD).error
    t.load()
    assert t.start(1).ok


def test_blackjack_spreads_after_the_inspection_before_or_after_the_verification_549_5_b() -> None:
    """§ 549.5(b) puts the spread "After the cards are inspected": the dealer's inspection.
    The floorperson's verification at Blackjack is floord's policy, so the spread may come
    before it; the decks are cleared when both are on record."""
    t = _received()
    assert t.dealer("decks_inspected", {"defects_found": False}).ok
    spread = only(t.dealer("decks_spread", SPREAD).output, EventType.CARDS_DECKS_SPREAD)
    assert spread.data["cleared"] is False
    assert "not been verified" in t.start(1).error
    verified = t.command("decks_inspected", {"defects_found": False})
    assert only(verified.output, EventType.CARDS_DECKS_INSPECTED).data["cleared"] is True


def test_a_double_shoes_sides_are_spread_separately_549_5_d() -> None:
    """§ 549.5(d): "If a double shoe is utilized, all the decks that comprise one side of
    the dealing shoe shall be spread for inspection on the table separate from the decks
    that comprise the other side of the dealing shoe. ... the cards that comprise one side
    of the dealing shoe and the cards that comprise the other side of the dealing shoe shall
    separately be turned face downward on the table, mixed thoroughly by a washing of the
    cards and stacked." """
    t = _received(shoe="double", decks=4)
    t.dealer("decks_inspected", {"defects_found": False})
    verified = t.command("decks_inspected", {"defects_found": False})
    owed = [{"side": "left"}, {"side": "right"}]
    assert only(verified.output, EventType.CARDS_DECKS_INSPECTED).data["to_spread"] == owed
    together = t.dealer("decks_spread", SPREAD)
    assert not together.ok and together.rule == cite("549.5(d)") and "by part" in together.error
    assert "by part" in t.dealer("decks_spread", {**SPREAD, "side": "middle"}).error
    assert not t.dealer("decks_spread", {**SPREAD, "side": "left", "washed": False}).ok
    left = only(
        t.dealer("decks_spread", {**SPREAD, "side": "left"}).output, EventType.CARDS_DECKS_SPREAD
    )
    assert left.rule == cite("549.5(d)") and left.data["side"] == "left"
    assert left.data["cleared"] is False and left.data["to_spread"] == [{"side": "right"}]
    assert "side right" in t.start(1).error
    right = t.dealer("decks_spread", {**SPREAD, "side": "right"})
    assert only(right.output, EventType.CARDS_DECKS_SPREAD).data["cleared"] is True


def test_a_shufflers_batches_are_spread_separately_and_stacked_549_5_e() -> None:
    """§ 549.5(e): "If an automated shuffling device is utilized, all the decks in one
    batch of cards shall be spread for inspection on the table separate from the decks in
    the other batch of cards. After the player or players is afforded an opportunity to
    visually inspect the cards, each batch of cards shall separately be turned face
    downward on the table and stacked." Stacked, not washed: the paragraph says no
    washing, so `washed: false` is accepted and recorded."""
    t = _received(shuffler_device=SHUFFLER, shuffler="batch", batch_backs=["red", "blue"])
    t.dealer("decks_inspected", {"defects_found": False})
    t.command("decks_inspected", {"defects_found": False})
    red = t.dealer("decks_spread", {"defects_found": False, "washed": False, "batch": "red"})
    event = only(red.output, EventType.CARDS_DECKS_SPREAD)
    assert event.rule == cite("549.5(e)") and event.data["wash_rule"] is None
    assert (event.data["batch"], event.data["washed"]) == ("red", False)
    assert event.data["to_spread"] == [{"batch": "blue"}]
    # The blue batch shuffled before its spread: a violation under (e), it does not count.
    started = t.device(EventType.SHUFFLER_SHUFFLE_STARTED, {"batch": "blue"}, SHUFFLER)
    [v] = violations(started)
    assert v.rule == cite("549.5(e)") and v.data["batch"] == "blue"
    blue = t.dealer("decks_spread", {**SPREAD, "batch": "blue"})
    assert only(blue.output, EventType.CARDS_DECKS_SPREAD).data["cleared"] is True


def test_spanish21_spreads_after_the_verification_all_together_551_4_b_c() -> None:
    """§ 551.4(b): "Following the inspection of the cards by the dealer and the
    verification by the floorperson assigned to the table, the cards shall be spread out
    face up on the table for visual inspection by the first player to arrive at the table."
    (c): "... the cards shall be turned face down on the table, mixed thoroughly by a
    washing of the cards, and stacked." § 551.4 has no paragraph for a shuffler's batches:
    they are spread together, and washed."""
    t = _received("spanish21", shuffler_device=SHUFFLER, shuffler="batch", batch_backs=["r", "b"])
    t.dealer("decks_inspected", {"defects_found": False})
    early = t.dealer("decks_spread", SPREAD)
    assert not early.ok and early.rule == cite("551.4(b)") and "verification" in early.error
    assert "not been verified" in t.start(1).error
    t.command("decks_inspected", {"defects_found": False})
    assert "unknown argument" in t.dealer("decks_spread", {**SPREAD, "batch": "r"}).error
    unwashed = t.dealer("decks_spread", {**SPREAD, "washed": False})
    assert not unwashed.ok and unwashed.rule == cite("551.4(c)")
    spread = only(t.dealer("decks_spread", SPREAD).output, EventType.CARDS_DECKS_SPREAD)
    assert spread.rule == cite("551.4(b)") and spread.data["wash_rule"] == cite("551.4(c)")
    assert spread.data["cleared"] is True


def test_defects_seen_in_the_spread_reject_the_decks_and_it_survives_a_snapshot_549_5_b() -> None:
    """§ 549.5(b): the spread is "for visual inspection": a defect seen there rejects the
    set, as the dealer's inspection would (§ 549.5(a)). A spread on the record survives a
    restart; decks received preinspected and preshuffled are not spread (§ 549.5(f))."""
    t = _received(shoe="double", decks=4)
    t.dealer("decks_inspected", {"defects_found": False})
    t.command("decks_inspected", {"defects_found": False})
    assert t.dealer("decks_spread", {**SPREAD, "side": "left"}).ok
    again = make_table(shoe="double", decks=4, snapshot=t.engine.snapshot(), clock=t.clock)
    assert "already spread" in again.dealer("decks_spread", {**SPREAD, "side": "left"}).error
    bad = again.dealer("decks_spread", {**SPREAD, "side": "right", "defects_found": True})
    assert only(bad.output, EventType.CARDS_DECKS_SPREAD).data["cleared"] is False
    assert "rejected for defects" in again.start(1).error
    assert "rejected" in again.dealer("decks_spread", {**SPREAD, "side": "right"}).error
    assert again.command("decks_received", {"preinspected_preshuffled": True}).ok
    pre = again.dealer("decks_spread", SPREAD)
    assert not pre.ok and "preinspected and preshuffled" in pre.error


def test_a_double_shoe_fed_by_a_shuffler_spreads_each_side_of_each_batch_549_5_d_e() -> None:
    """§ 549.5(d) spreads one side's decks "separate from the decks that comprise the other
    side"; (e) one batch's decks "separate from the decks in the other batch". With both,
    each side of each batch is a spread of its own, washed as (d) says."""
    t = _received(
        shoe="double", decks=4, shuffler_device=SHUFFLER, shuffler="batch", batch_backs=["r", "b"]
    )
    t.dealer("decks_inspected", {"defects_found": False})
    verified = t.command("decks_inspected", {"defects_found": False})
    owed = only(verified.output, EventType.CARDS_DECKS_INSPECTED).data["to_spread"]
    assert owed == [
        {"side": "left", "batch": "r"},
        {"side": "left", "batch": "b"},
        {"side": "right", "batch": "r"},
        {"side": "right", "batch": "b"},
    ]
    assert "by part" in t.dealer("decks_spread", {**SPREAD, "side": "left"}).error
    assert not t.dealer("decks_spread", {**SPREAD, **owed[0], "washed": False}).ok
    for part in owed:
        out = t.dealer("decks_spread", {**SPREAD, **part})
        assert out.ok, out.error
    assert only(out.output, EventType.CARDS_DECKS_SPREAD).data["cleared"] is True
