"""Decks received at a Blackjack or Spanish 21 table are inspected before use (§ 549.5).

The receipt and each inspection step are signed commands on the record; until the decks
are inspected by the dealer and verified by a floorperson (or received preinspected and
preshuffled, as the receipt must say), a shoe loaded with them does not count and no
round starts. The 24-hour clock of § 549.3(e) runs from the receipt.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from test_engine_blackjack_support import SHUFFLER, make_table, violations
from test_engine_support import only, types

from floord.contract import EventType, cite

pytestmark = pytest.mark.unit

RECEIVED = {"preinspected_preshuffled": False, "decks": 6}


def _open_table(game: str = "blackjack"):
    """Open, the reader inspected and tested, and no decks on the record yet."""
    t = make_table(game)
    t.connect_all()
    assert t.inspect().ok and t.command("open").ok
    t.reader(EventType.READER_SELF_TEST, {"passed": True, "code": 0, "text": "ok"})
    return t


def test_decks_received_are_inspected_by_the_dealer_and_verified_before_use_549_5_a() -> None:
    """58 Pa. Code § 549.5(a): "After receiving one or more decks of cards at the table,
    the dealer shall inspect the cards for any defects." The floorperson's verification
    is floord's policy for Blackjack (§ 549.5 names only the dealer)."""
    t = _open_table()
    received = t.command("decks_received", RECEIVED)
    assert received.ok, received.error
    event = only(received.output, EventType.CARDS_DECKS_RECEIVED)
    assert event.rule == cite("549.5(a)") and event.data["inspection"] == "required"
    assert event.data["deck_rule"] == cite("549.3(e)")
    # Loaded before the inspection: a violation, and the stack does not count.
    t.cut_if_due()
    loaded = t.device(EventType.SHOE_LOADED, {"side": None, "cards": None})
    violation = only(loaded, EventType.PROCEDURE_VIOLATION)
    assert violation.data["what"] == "decks_not_inspected" and violation.rule == cite("549.5(a)")
    refused = t.start(1)
    assert not refused.ok and refused.rule == cite("549.5(a)")
    assert "not been inspected by the dealer" in refused.error
    # The floorperson cannot verify before the dealer inspects.
    assert "none yet" in t.command("decks_inspected", {"defects_found": False}).error
    inspected = t.dealer("decks_inspected", {"defects_found": False})
    assert inspected.ok, inspected.error
    step = only(inspected.output, EventType.CARDS_DECKS_INSPECTED)
    assert step.rule == cite("549.5(a)") and step.data["step"] == "inspected"
    assert step.data["cleared"] is False
    assert "not been verified" in t.start(1).error
    verified = t.command("decks_inspected", {"defects_found": False})
    step = only(verified.output, EventType.CARDS_DECKS_INSPECTED)
    assert step.rule is None and step.data["policy"] and step.data["cleared"] is False
    assert step.data["to_spread"] == [{}]  # one spread of all (§ 549.5(b), (c))
    spread = t.dealer("decks_spread", {"defects_found": False, "washed": True})
    assert only(spread.output, EventType.CARDS_DECKS_SPREAD).data["cleared"] is True
    t.load()
    assert t.start(1).ok


def test_spanish21_verification_is_the_floorpersons_under_551_4_b() -> None:
    """§ 551.4(a): "After receiving the decks of cards at the table, the dealer shall
    inspect the cards for any defects." (b): "Following the inspection of the cards by
    the dealer and the verification by the floorperson assigned to the table, ..." """
    t = _open_table("spanish21")
    assert only(
        t.command("decks_received", RECEIVED).output, EventType.CARDS_DECKS_RECEIVED
    ).rule == cite("551.4(a)")
    assert t.dealer("decks_inspected", {"defects_found": False}).ok
    verified = t.command("decks_inspected", {"defects_found": False})
    assert only(verified.output, EventType.CARDS_DECKS_INSPECTED).rule == cite("551.4(b)")


def test_preinspected_and_preshuffled_decks_are_recorded_not_assumed_549_5_f() -> None:
    """§ 549.5(f): "If the decks of cards received at the table are preinspected and
    preshuffled in accordance with § 523.16(u) or (v) ..., the requirements in
    subsections (a)—(e) do not apply." The receipt must say which it is."""
    t = _open_table()
    refused = t.command("decks_received", {"decks": 6})
    assert not refused.ok and "never assumed" in refused.error
    received = t.command("decks_received", {"preinspected_preshuffled": True})
    event = only(received.output, EventType.CARDS_DECKS_RECEIVED)
    assert event.rule == cite("549.5(f)") and event.data["inspection"] == "not_required"
    assert "preinspected" in t.dealer("decks_inspected", {"defects_found": False}).error
    t.load()
    assert t.start(1).ok


def test_change_decks_is_a_receipt_whose_exemption_is_never_assumed_549_5_a_f() -> None:
    """§ 549.3(e): the decks "shall be changed at least once every 24 hours"; the new decks
    are decks received at the table, which § 549.5(a) has the dealer inspect. The
    floorperson's `change_decks` is a receipt: without a declaration the exemption of
    § 549.5(f) is not assumed (recorded null) and the decks are inspected; with one it
    is as `decks_received` says."""
    for game, rule in (("blackjack", "549.3(e)"), ("spanish21", "551.3(c)")):
        t = _open_table(game)
        changed = t.command("change_decks")
        event = only(changed.output, EventType.CARDS_DECKS_CHANGED)
        assert event.rule == cite(rule) and event.data["inspection"] == "required"
        assert event.data["preinspected_preshuffled"] is None
        t.cut_if_due()
        loaded = t.device(EventType.SHOE_LOADED, {"side": None, "cards": None})
        assert only(loaded, EventType.PROCEDURE_VIOLATION).data["what"] == "decks_not_inspected"
        assert "not been inspected by the dealer" in t.start(1).error
        t.inspect_decks()
        t.load()
        assert t.start(1).ok
    t = _open_table()
    changed = t.command("change_decks", {"preinspected_preshuffled": True, "note": "sealed"})
    event = only(changed.output, EventType.CARDS_DECKS_CHANGED)
    assert event.data["inspection"] == "not_required"
    assert event.data["preinspected_preshuffled"] is True
    t.load()
    assert t.start(1).ok
    assert "unknown argument" in t.command("change_decks", {"new": 1}).error
    assert "between rounds" in t.command("change_decks").error


def test_decks_with_defects_are_not_used_and_the_steps_are_checked_549_5_a() -> None:
    """§ 549.5(a): the dealer "shall inspect the cards for any defects": a set found
    defective is not used until another set is received."""
    t = _open_table()
    assert "no decks received" in t.dealer("decks_inspected", {"defects_found": False}).error
    t.command("decks_received", RECEIVED)
    assert "defects_found" in t.dealer("decks_inspected", {}).error
    assert t.dealer("decks_inspected", {"defects_found": True}).ok
    assert "rejected" in t.command("decks_inspected", {"defects_found": False}).error
    assert "rejected for defects" in t.start(1).error
    t.command("decks_received", RECEIVED)
    assert t.command("decks_inspected", {"defects_found": False}, by="d1", role="dealer").ok
    same = t.command("decks_inspected", {"defects_found": False}, by="d1", role="floorperson")
    assert not same.ok and "another person" in same.error
    assert t.command("decks_inspected", {"defects_found": False}).ok
    assert t.dealer("decks_spread", {"defects_found": False, "washed": True}).ok
    t.load()
    assert t.start(1).ok


def test_the_24_hour_limit_runs_from_the_receipt_and_stops_the_next_round_549_3_e() -> None:
    """§ 549.3(e): "The decks of cards opened for use at a Blackjack table shall be
    changed at least once every 24 hours." The receipt on the record starts the clock;
    a deck in use past it stops the next round until new decks are received."""
    t = _open_table()
    opened = t.clock.now
    t.command("decks_received", {"preinspected_preshuffled": True})
    t.load()
    assert t.start(1).ok
    t.draws("5H", "9C", "KD", "7S")
    assert t.decide(1, "stand").ok
    assert t.dealer("dealer_turn").ok
    assert t.dealer("round_end").ok
    t.clock.now = opened + timedelta(hours=24, seconds=1)
    assert t.inspect().ok  # the new gaming day's inspection of the reader (§ 549.2(e))
    t.reader(EventType.READER_SELF_TEST, {"passed": True, "code": 0, "text": "ok"})
    refused = t.start(1)
    assert not refused.ok and refused.rule == cite("549.3(e)")
    snap = t.engine.snapshot()["shoe"]["receipt"]
    assert snap["preinspected_preshuffled"] is True
    assert types(t.command("decks_received", RECEIVED).output) == ["cards.decks_received"]


def test_a_batch_shuffled_before_the_inspection_does_not_count_549_5_a_e() -> None:
    """§ 549.5(a): the dealer inspects the decks received; (e): "If an automated shuffling
    device is utilized, all the decks in one batch of cards shall be spread for inspection
    ... each batch of cards shall separately be turned face downward on the table and
    stacked." Only then are they shuffled (§ 549.6(a)): a batch the shuffler shuffles
    before the inspection and verification is a violation and may not be dealt until it is
    shuffled again."""
    t = make_table(shuffler_device=SHUFFLER, shuffler="batch", batch_backs=["red", "blue"])
    t.ready(load=False)
    assert t.command("change_decks").ok

    def shuffler(type, **data):
        return t.device(type, data, SHUFFLER)

    early = shuffler(EventType.SHUFFLER_SHUFFLE_STARTED, batch="red")
    [v] = violations(early)
    assert v.rule == cite("549.5(a)") and v.data["what"] == "decks_not_inspected"
    assert (v.data["step"], v.data["batch"]) == ("shuffle", "red")
    assert not shuffler(EventType.SHUFFLER_SHUFFLE_COMPLETED, batch="red", cards=156).events
    t.inspect_decks()
    shuffler(EventType.SHUFFLER_BATCH_REMOVED, batch="red")
    t.cut_if_due()
    assert violations(t.device(EventType.SHOE_LOADED, {"side": None, "cards": None})) == []
    [dealt] = violations(t.draw("2C"))
    assert dealt.data["what"] == "card_from_refused_batch" and dealt.rule == cite("549.5(a)")
    refused = t.start(1)
    assert not refused.ok and refused.rule == cite("549.5(a)") and "uninspected" in refused.error
    # The other batch, shuffled once the decks were inspected and verified, deals.
    assert not shuffler(EventType.SHUFFLER_SHUFFLE_STARTED, batch="blue").events
    assert not shuffler(EventType.SHUFFLER_SHUFFLE_COMPLETED, batch="blue", cards=156).events
    shuffler(EventType.SHUFFLER_BATCH_REMOVED, batch="blue")
    t.cut_if_due()
    assert violations(t.device(EventType.SHOE_LOADED, {"side": None, "cards": None})) == []
    shuffler(EventType.SHUFFLER_SHUFFLE_STARTED, batch="red")  # red's cards go back in
    assert violations(t.draw("2C")) == []
    assert t.start(1).ok
