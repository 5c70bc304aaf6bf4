"""Every opening of a Roulette table after its wheel was covered is preceded by an
inspection, and the wheel's adjustments and replacements are on the log (§ 531.3)."""

from __future__ import annotations

import pytest
from test_engine_support import WHEEL, make_table, only, types

from floord.contract import EventType, cite

pytestmark = pytest.mark.unit

ADJUST = {
    "part": "ball track deflector",
    "description": "deflector 3 tightened",
    "licence": "PGCB-12345",
    "security_witness": "SEC-7",
    "security_licence": "PGCB-555",
}
REPLACE = {"part": "turret", "description": "new turret fitted", "licence": "PGCB-777"}


def test_a_table_closed_and_reopened_the_same_day_is_inspected_again_531_3_a_f() -> None:
    """58 Pa. Code § 531.3(a): "Prior to opening a Roulette table for gaming activity, a
    floorperson or member of the Certificate Holder's security department shall:" inspect
    the table, wheel and ball; § 531.3(f): "When a Roulette table is not open for play,
    the Roulette wheel shall be secured by placing a cover over the entire wheel and
    securely locking the cover." Every opening follows a covering, so every opening is
    preceded by its own inspection, not the morning's."""
    t = make_table()
    t.open()
    closed = t.command("close")
    event = only(closed.output, EventType.TABLE_CLOSED)
    assert event.rule == cite("531.3(f)") and event.data["inspection_required"] is True
    refused = t.command("open")
    assert not refused.ok and refused.rule == cite("531.3(a)")
    assert "no longer counts" in refused.error and "closed" in refused.error
    inspected = only(t.inspect().output, EventType.OPERATOR_INSPECTION)
    assert inspected.data["answers"]["rule"] == cite("531.3(a)")
    assert t.command("open").ok
    # A failed inspection does not answer the requirement.
    t.command("close")
    assert t.inspect(parts_secure=False).ok
    assert not t.command("open").ok
    assert t.inspect().ok and t.command("open").ok


def test_a_wheel_adjustment_is_logged_and_needs_a_new_inspection_531_3_b_c_e() -> None:
    """§ 531.3(b): "any adjustments to the movable parts shall be made by a floorperson or
    a member of the Certificate Holder's table game maintenance department, in the
    presence of a security department member." (c): "All adjustments shall be completed
    prior to the required inspections in subsection (a)." (e): the log includes "the
    date, the time, the Roulette table number, whether an adjustment or replacement was
    completed, a description of the adjustment or replacement, a certification that an
    inspection was completed, if required, and the signature and Board license or permit
    number of the person making the adjustment or replacement." """
    t = make_table()
    t.connect()
    assert t.inspect().ok
    done = t.command("wheel_adjusted", ADJUST, by="mt1", role="maintenance")
    assert done.ok, done.error
    log = only(done.output, EventType.ROULETTE_WHEEL_SERVICE)
    assert log.rule == cite("531.3(b)") and log.data["log_rule"] == cite("531.3(e)")
    assert log.data["kind"] == "adjustment" and log.data["table"] == "R01"
    assert log.data["at"].startswith("2024-03-05T15:00")
    assert log.data["by"] == "mt1" and log.data["licence"] == "PGCB-12345"
    assert log.data["description"] == "deflector 3 tightened"
    assert log.data["security_witness"] == "SEC-7" and log.data["security_licence"] == "PGCB-555"
    assert log.data["inspection_required"] is True
    # The inspection before the adjustment no longer counts (c).
    refused = t.command("open")
    assert not refused.ok and refused.rule == cite("531.3(c)")
    certified = only(t.inspect().output, EventType.OPERATOR_INSPECTION)
    assert certified.data["passed"] and "adjustment" in certified.data["answers"]["why"]
    assert t.command("open").ok


def test_who_may_adjust_and_what_the_log_needs_531_3_b() -> None:
    """§ 531.3(b): adjustments "shall be made by a floorperson or a member of the
    Certificate Holder's table game maintenance department, in the presence of a
    security department member." """
    t = make_table()
    t.connect()
    by_dealer = t.command("wheel_adjusted", ADJUST, by="d1", role="dealer")
    assert not by_dealer.ok and by_dealer.rule == cite("531.3(b)")
    no_witness = {k: v for k, v in ADJUST.items() if k != "security_witness"}
    refused = t.command("wheel_adjusted", no_witness)
    assert not refused.ok and "security_witness" in refused.error
    no_licence = {**ADJUST, "licence": " "}
    assert "licence" in t.command("wheel_adjusted", no_licence).error
    assert "unknown argument" in t.command("wheel_adjusted", {**ADJUST, "x": 1}).error
    assert "at most 500" in t.command("wheel_adjusted", {**ADJUST, "description": "x" * 501}).error
    assert t.engine.snapshot()["inspection_required"] is None


def test_a_replaced_part_needs_an_inspection_before_reopening_531_3_d() -> None:
    """§ 531.3(d): "The Certificate Holder may replace any of the movable parts at any
    time, provided that an inspection as required by subsection (a) must be completed
    prior to reopening the Roulette wheel and table for play." A replacement on an open
    table halts it until the wheel is inspected; the round in play is void."""
    t = make_table()
    t.open()
    t.launch()
    done = t.command("wheel_part_replaced", REPLACE)
    assert done.ok, done.error
    assert types(done.output) == ["roulette.wheel_service", "table.halted", "round.voided"]
    halted = only(done.output, EventType.TABLE_HALTED)
    assert halted.rule == cite("531.3(d)") and halted.data["code"] == "inspection_required"
    refused = t.command("resume", {"reason": "turret fitted"})
    assert not refused.ok and refused.rule == cite("531.3(d)")
    assert t.inspect().ok
    assert t.command("resume", {"reason": "turret fitted and inspected"}).ok
    assert t.engine.snapshot()["state"] == "open"


def test_a_wheel_that_identifies_as_another_wheel_needs_an_inspection_531_3_d() -> None:
    """§ 531.3(d): a replacement "provided that an inspection as required by subsection
    (a) must be completed prior to reopening the Roulette wheel and table for play." A
    wheel whose `device.identified` names another model or serial than the wheel before
    it was replaced."""
    t = make_table()
    t.open()
    t.command("close")
    assert t.inspect().ok
    same = t.connect()  # the same wheel reconnects: nothing to say
    assert EventType.ROULETTE_WHEEL_SERVICE not in types(same)
    other = {"maker": "Cammegh", "model": "SS2", "pockets": 37, "serial": "W-2"}
    out = t.device(EventType.DEVICE_IDENTIFIED, other)
    log = only(out, EventType.ROULETTE_WHEEL_SERVICE)
    assert log.rule == cite("531.3(d)") and log.data["kind"] == "replacement"
    assert log.data["identity_changed"] == {"serial": {"before": None, "after": "W-2"}}
    assert EventType.TABLE_HALTED not in types(out)  # the table was closed
    refused = t.command("open")
    assert not refused.ok and refused.rule == cite("531.3(d)")
    assert t.inspect().ok and t.command("open").ok
    # On an open table the new wheel halts play until it is inspected.
    out = t.device(EventType.DEVICE_IDENTIFIED, {**other, "serial": "W-3"})
    assert types(out) == ["roulette.wheel_service", "table.halted"]
    assert only(out, EventType.TABLE_HALTED).data["device"] == WHEEL


def test_the_requirement_survives_a_restart() -> None:
    """§ 531.3(a), (f): the requirement of a new inspection is in the snapshot."""
    t = make_table()
    t.open()
    t.command("close")
    snap = t.engine.snapshot()
    assert snap["inspection_required"]["rule"] == cite("531.3(a)")
    again = make_table(snapshot=snap, clock=t.clock)
    again.connect()
    assert not again.command("open").ok
    assert again.inspect().ok and again.command("open").ok
