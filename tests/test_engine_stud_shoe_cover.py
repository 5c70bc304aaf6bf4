"""An automated dealing shoe out of order at Mississippi Stud: covered before the table
deals another way (58 Pa. Code § 571.13(g)), and uncovered to deal from it again.

§ 571.13(g): "If an automated card shuffling device or automated dealing shoe malfunctions
and cannot be used, the automated card shuffling device or automated dealing shoe shall be
covered or have a sign indicating that the automated card shuffling device or automated
dealing shoe is out of order placed on the device before any other method of shuffling or
dealing may be utilized at that table."
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from test_engine_stud_support import SHOE, SHUFFLER, make_table, of_type, types

from floord.contract import EventType, cite, parse_ts

pytestmark = pytest.mark.unit

G = cite("571.13(g)")
OOO = {"code": 30, "text": "card jam at the exit"}
COVER = {"deal_by": "hand", "reason": "dispenser jammed, maintenance called"}


def _table():
    t = make_table(dealing="automated_shoe")
    t.ready()
    return t


def test_dealing_another_way_before_the_cover_is_refused_571_13_g() -> None:
    """The shoe says it cannot be used (`OOO`): a warning under (g), and no round starts,
    by any method, until the cover is on the record."""
    t = _table()
    out = t.device(EventType.SHOE_OUT_OF_ORDER, OOO)
    [warning] = of_type(out, EventType.TABLE_WARNING)
    assert warning.rule == G and warning.data["what"] == "shoe_out_of_order"
    assert warning.data["covered"] is False and "cover_shoe" in warning.data["detail"]
    refused = t.start(1)
    assert not refused.ok and refused.rule == G
    assert "cover_shoe" in (refused.error or "")
    covered = t.command("cover_shoe", COVER)
    assert covered.ok, covered.error
    [event] = of_type(covered.output, EventType.TABLE_DEVICE_COVERED)
    assert event.rule == G
    assert (event.data["device"], event.data["deal_by"], event.data["marked"]) == (
        SHOE,
        "hand",
        "covered",
    )
    assert event.data["report"]["out_of_order"]["code"] == 30
    started = t.start(1)
    assert started.ok, started.error
    [rs] = of_type(started.output, EventType.ROUND_STARTED)
    assert rs.data["dealing"] == "hand"


def test_after_the_cover_the_hand_deal_follows_571_9() -> None:
    """Dealt from the hand, the round follows § 571.9: no card is expected from a device,
    the stub paragraphs are § 571.9's, and the decks change every 4 hours (§ 571.3(c)(1))."""
    t = _table()
    t.device(EventType.SHOE_OUT_OF_ORDER, OOO)
    assert t.command("cover_shoe", {**COVER, "marked": "sign"}).ok
    assert t.start(1).ok
    assert t.dealer("no_more_bets").ok
    stray = t.draw("2C")  # the covered shoe is not used
    [v] = of_type(stray, EventType.PROCEDURE_VIOLATION)
    assert v.data["what"] == "covered_shoe_in_use" and v.rule is None and v.data["policy"]
    for card in (1, 2, 3):
        assert t.street({1: "play1"}, card).ok
    end = t.dealer("round_end")
    assert end.ok, end.error
    assert t.engine.rules.cite("stub_count") == cite("571.9(d)")
    decks = t.engine.decks
    assert decks.deck_due_at() == parse_ts(decks.decks_opened_at) + timedelta(hours=4)


def test_hand_dealing_needs_the_automated_shuffler_571_9_a_1() -> None:
    t = make_table(dealing="automated_shoe", shuffler="none")
    t.ready()
    t.device(EventType.SHOE_OUT_OF_ORDER, OOO)
    refused = t.command("cover_shoe", COVER)
    assert not refused.ok and refused.rule == cite("571.9(a)(1)")
    assert t.command("cover_shoe", {**COVER, "deal_by": "manual_shoe"}).ok
    t.dealer("cut", {"cards": 20})
    started = t.start(1)
    assert started.ok, started.error
    [rs] = of_type(started.output, EventType.ROUND_STARTED)
    assert rs.data["dealing"] == "manual_shoe"


def test_a_faulted_shoe_no_longer_halts_the_table_once_covered_571_13_g() -> None:
    """A shoe that jams and halts the table keeps it halted until it is repaired, or until
    a floorperson covers it and names the other method: then `resume` lifts the halt."""
    t = _table()
    out = t.device(EventType.DEVICE_FAULT, {"code": 30, "text": "jam", "origin": "device"})
    assert EventType.TABLE_HALTED in types(out)
    refused = t.command("resume", {"reason": "deal by hand"})
    assert not refused.ok and "active fault" in (refused.error or "")
    covered = t.command("cover_shoe", COVER)
    assert covered.ok, covered.error
    [event] = of_type(covered.output, EventType.TABLE_DEVICE_COVERED)
    assert event.data["report"]["faults"][0]["code"] == 30
    assert t.command("resume", {"reason": "shoe covered, dealing by hand"}).ok
    # The covered shoe's further trouble does not halt the table again.
    assert EventType.TABLE_HALTED not in types(t.device(EventType.DEVICE_OFFLINE, {}))
    assert t.start(1).ok


def test_a_working_shoe_is_not_covered_and_a_round_is_never_covered() -> None:
    t = _table()
    refused = t.command("cover_shoe", COVER)
    assert not refused.ok and refused.rule == G and "no malfunction" in (refused.error or "")
    assert not t.command("cover_shoe", {"deal_by": "hand"}).ok  # a reason is required
    assert not t.command("cover_shoe", {**COVER, "deal_by": "cards"}).ok
    assert t.start(1).ok
    t.device(EventType.SHOE_OUT_OF_ORDER, OOO)  # mid-round, before the stacks: void (f)
    assert t.engine.current_round is None
    manual = make_table(dealing="manual_shoe")
    manual.ready()
    out = manual.device(EventType.SHOE_OUT_OF_ORDER, OOO)
    [warning] = of_type(out, EventType.TABLE_WARNING)
    assert warning.rule is None and warning.data["policy"]
    assert manual.start(1).ok  # (g) speaks of an automated shoe
    assert not manual.command("cover_shoe", COVER).ok


def test_out_of_order_mid_round_voids_it_571_13_f() -> None:
    t = _table()
    assert t.start(1, 2).ok
    assert t.dealer("no_more_bets").ok
    t.draws("AS", "KS")
    out = t.device(EventType.SHOE_OUT_OF_ORDER, OOO)
    [void] = of_type(out, EventType.ROUND_VOIDED)
    assert void.rule == cite("571.13(f)")


def test_back_to_the_automated_shoe_after_uncover() -> None:
    """The shoe back in service does not take the cover off; the floorperson does, and
    the deck is placed in the automated shoe before the next round (§ 571.10(a)(1))."""
    t = _table()
    t.device(EventType.SHOE_OUT_OF_ORDER, OOO)
    assert t.command("cover_shoe", COVER).ok
    assert not t.command("uncover_shoe", {"reason": "fixed"}).ok  # still out of order
    out = t.device(EventType.SHOE_OUT_OF_ORDER, {"code": 0})
    [warning] = of_type(out, EventType.TABLE_WARNING)
    assert warning.data["what"] == "shoe_in_order" and warning.data["covered"] is True
    assert t.start(1).ok  # still dealt from the hand
    assert t.dealer("no_more_bets").ok
    for card in (1, 2, 3):
        assert t.street({1: "play1"}, card).ok
    assert t.dealer("round_end").ok
    t.prepare()
    uncovered = t.command("uncover_shoe", {"reason": "repaired by maintenance"})
    assert uncovered.ok, uncovered.error
    [event] = of_type(uncovered.output, EventType.TABLE_DEVICE_UNCOVERED)
    assert event.rule is None and event.data["policy"] and event.data["dealing"] == "automated_shoe"
    refused = t.start(1)
    assert not refused.ok and refused.rule == cite("571.10(a)(1)")
    t.prepare()
    started = t.start(1)
    assert started.ok, started.error
    [rs] = of_type(started.output, EventType.ROUND_STARTED)
    assert rs.data["dealing"] == "automated_shoe"


def test_the_cover_survives_a_restart() -> None:
    t = _table()
    t.device(EventType.DEVICE_FAULT, {"code": 30, "text": "jam", "origin": "device"})
    assert t.command("cover_shoe", COVER).ok
    snap = t.engine.snapshot()
    assert snap["shoe_cover"]["cover"]["deal_by"] == "hand"
    again = make_table(dealing="automated_shoe", snapshot=snap, clock=t.clock)
    assert again.engine.rules.dealing == "hand"
    assert again.engine.table.devices.get(SHOE).required is False
    again.engine.after_restart(again.clock.step())
    again.connect(SHUFFLER, [])  # the shoe, covered, need not come back
    assert again.command("resume", {"reason": "covered shoe; by hand"}).ok
    # A table since configured with a manual shoe has no automated shoe to keep covered.
    manual = make_table(dealing="manual_shoe", snapshot=snap, clock=t.clock)
    assert manual.engine.rules.dealing == "manual_shoe" and not manual.engine.shoe.covered
    assert manual.engine.table.devices.get(SHOE).required is True
