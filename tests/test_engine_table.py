"""Table states, inspections and the commands inspect/open/close/resume (§ 531.3)."""

from __future__ import annotations

from datetime import UTC, datetime, time

import pytest
from test_engine_support import PASSING, WHEEL, Clock, make_table, only, types

from floord.contract import EventType, cite
from floord.engine.core.gaming_day import GamingDay

pytestmark = pytest.mark.unit

INSPECTION_RULE = "58 Pa. Code § 531.3(a)"


def test_gaming_day_is_the_local_date_of_now_less_the_start() -> None:
    day = GamingDay(time(6, 0), "America/New_York")
    # 10:59 UTC = 05:59 EST: still the gaming day that began on 4 March.
    assert day.label(datetime(2024, 3, 5, 10, 59, tzinfo=UTC)) == "2024-03-04"
    assert day.label(datetime(2024, 3, 5, 11, 0, tzinfo=UTC)) == "2024-03-05"
    # Summer time: 06:00 EDT is 10:00 UTC.
    assert day.label(datetime(2024, 7, 1, 10, 0, tzinfo=UTC)) == "2024-07-01"
    with pytest.raises(ValueError, match="timezone-aware"):
        day.label(datetime(2024, 3, 5, 11, 0))
    with pytest.raises(ValueError, match="IANA"):
        GamingDay(time(6, 0), "Mars/Olympus")


def test_open_without_inspection_is_refused_citing_531_3_a() -> None:
    t = make_table()
    t.connect()
    outcome = t.command("open")
    assert not outcome.ok
    assert outcome.rule == INSPECTION_RULE
    assert "no inspection" in outcome.error
    assert outcome.output.events == []
    assert t.engine.snapshot()["state"] == "closed"


def test_open_after_a_failed_inspection_is_refused() -> None:
    t = make_table()
    t.connect()
    assert t.inspect(ball_nonmagnetic=False).ok
    outcome = t.command("open")
    assert not outcome.ok and outcome.rule == INSPECTION_RULE and "failed" in outcome.error


def test_open_needs_an_inspection_of_the_same_gaming_day() -> None:
    # Inspected at 05:00 EST (gaming day 4 March), opening at 06:30 EST (5 March).
    t = make_table(clock=Clock(datetime(2024, 3, 5, 10, 0, tzinfo=UTC)))
    t.connect()
    assert t.inspect().ok
    t.clock.now = datetime(2024, 3, 5, 11, 30, tzinfo=UTC)
    outcome = t.command("open")
    assert not outcome.ok and outcome.rule == INSPECTION_RULE
    assert "another gaming day" in outcome.error
    assert t.inspect().ok
    assert t.command("open").ok


def test_inspection_is_logged_as_operator_inspection_pass_or_fail() -> None:
    t = make_table()
    failed = t.inspect(parts_secure=False)
    assert failed.ok
    event = only(failed.output, EventType.OPERATOR_INSPECTION)
    assert event.rule == INSPECTION_RULE
    assert event.data["passed"] is False and event.data["failed_items"] == ["parts_secure"]
    assert event.data["by"] == "fp1" and event.data["role"] == "floorperson"
    assert event.data["gaming_day"] == "2024-03-05" and event.data["note"] == "morning check"
    assert event.data["checklist"] == {**PASSING, "parts_secure": False}
    assert event.data["items"]["parts_secure"] == cite("531.3(a)(3)")
    passed = t.inspect()
    event = only(passed.output, EventType.OPERATOR_INSPECTION)
    assert event.data["passed"] is True and event.data["failed_items"] == []
    assert t.engine.snapshot()["inspection"]["passed"] is True


@pytest.mark.parametrize(
    ("checklist", "says"),
    [
        (
            {k: v for k, v in PASSING.items() if k != "parts_secure"},
            "missing item(s): parts_secure",
        ),
        (
            {**PASSING, "layout_and_signage": True},
            "unknown item(s) for this table: layout_and_signage",
        ),
        ({**PASSING, "ball_nonmagnetic": "yes"}, "not true or false: ball_nonmagnetic"),
        ({**PASSING, "ball_nonmagnetic": 1}, "not true or false: ball_nonmagnetic"),
        (["no_magnet_or_contrivance"], "checklist must be an object"),
    ],
)
def test_bad_checklists_are_refused_with_a_clear_error(checklist: object, says: str) -> None:
    t = make_table()
    outcome = t.command("inspect", {"checklist": checklist, "note": ""})
    assert not outcome.ok and says in outcome.error
    assert outcome.output.events == []
    assert t.engine.snapshot()["inspection"] is None


def test_bad_inspect_arguments_are_refused() -> None:
    t = make_table()
    assert "note must be text" in t.command("inspect", {"checklist": PASSING, "note": 3}).error
    assert "unknown argument" in t.command("inspect", {"checklist": PASSING, "x": 1}).error


def test_layout_and_signage_is_required_on_a_double_zero_wheel_used_as_single() -> None:
    t = make_table("double_zero_as_single")
    outcome = t.command("inspect", {"checklist": PASSING, "note": ""})
    assert not outcome.ok and "missing item(s): layout_and_signage" in outcome.error
    logged = only(t.inspect(layout_and_signage=False).output, EventType.OPERATOR_INSPECTION)
    assert logged.data["failed_items"] == ["layout_and_signage"]
    assert logged.data["items"]["layout_and_signage"] == cite("531.3(a)(5)")


def test_open_then_close() -> None:
    t = make_table()
    t.connect()
    t.inspect()
    opened = t.command("open")
    assert opened.ok and types(opened.output) == ["table.opened"]
    event = opened.output.events[0]
    assert event.rule == INSPECTION_RULE and event.data["inspection"]["by"] == "fp1"
    assert not t.command("open").ok  # already open
    closed = t.command("close")
    assert closed.ok and types(closed.output) == ["table.closed"]
    assert closed.output.events[0].data["from"] == "open"
    assert t.engine.snapshot()["state"] == "closed"
    assert "not open" in t.command("close").error
    assert "takes no arguments" in t.command("open", {"force": True}).error


def test_closing_mid_round_voids_the_round() -> None:
    t = make_table()
    t.open()
    t.launch()
    closed = t.command("close")
    assert types(closed.output) == ["table.closed", "round.voided"]
    voided = closed.output.events[1]
    assert voided.data["reason"] == "table_closed" and voided.rule is None and voided.data["policy"]


def test_open_is_refused_while_the_wheel_is_not_ready() -> None:
    t = make_table()
    t.inspect()
    outcome = t.command("open")
    assert not outcome.ok and f"device {WHEEL} is offline (not seen yet)" in outcome.error
    assert f"device {WHEEL} has not identified itself" in outcome.error
    assert outcome.rule is None


def test_close_from_halted_while_open_keeps_the_halt_latched() -> None:
    t = make_table()
    t.open()
    t.device(EventType.DEVICE_OFFLINE, {})
    closed = t.command("close")
    assert closed.ok and closed.output.events[0].data["from"] == "halted"
    snap = t.engine.snapshot()
    assert snap["state"] == "halted" and snap["underlying"] == "closed"
    assert "not open" in t.command("close").error
    assert "halted" in t.command("open").error
    t.connect()
    resumed = t.command("resume", {"reason": "wheel back"})
    assert resumed.ok and resumed.output.events[0].data["state"] == "closed"


def test_resume_is_refused_saying_which_condition_fails() -> None:
    t = make_table()
    t.open()
    t.device(EventType.DEVICE_FAULT, {"code": 5, "text": "motor", "origin": "fault_line"})
    assert "non-empty reason" in t.command("resume", {"reason": "  "}).error
    assert "non-empty reason" in t.command("resume").error
    assert "has an active fault (motor)" in t.command("resume", {"reason": "fixed"}).error
    t.device(EventType.DEVICE_OFFLINE, {})
    assert f"device {WHEEL} is offline" in t.command("resume", {"reason": "fixed"}).error
    t.device(EventType.DEVICE_ONLINE, {})
    # Online again but not yet identified since the fault: the fault still stands.
    assert "has an active fault" in t.command("resume", {"reason": "fixed"}).error
    t.connect(pockets=38)
    error = t.command("resume", {"reason": "fixed"}).error
    assert "38 pockets" in error and "needs a wheel of 37 pockets" in error
    t.connect()
    resumed = t.command("resume", {"reason": "wheel repaired", "by": "x"})
    assert "unknown argument" in resumed.error
    resumed = t.command("resume", {"reason": "wheel repaired"}, by="sup1", role="supervisor")
    assert resumed.ok and types(resumed.output) == ["table.resumed"]
    data = resumed.output.events[0].data
    assert data["reason"] == "wheel repaired" and data["state"] == "open" and data["by"] == "sup1"
    assert [r["code"] for r in data["cleared"]] == [
        "device_fault",
        "device_offline",
        "wheel_mismatch",
    ]
    assert t.engine.snapshot()["halt_reasons"] == []
    assert "not halted" in t.command("resume", {"reason": "again"}).error


def test_resume_of_an_open_table_needs_todays_inspection() -> None:
    t = make_table(clock=Clock(datetime(2024, 3, 5, 10, 0, tzinfo=UTC)))  # 05:00 EST
    t.open()
    t.device(EventType.DEVICE_OFFLINE, {})
    t.clock.now = datetime(2024, 3, 5, 11, 30, tzinfo=UTC)  # the next gaming day
    t.connect()
    outcome = t.command("resume", {"reason": "wheel back"})
    assert not outcome.ok and outcome.rule == INSPECTION_RULE
    t.inspect()
    assert t.command("resume", {"reason": "wheel back"}).ok


def test_a_failed_inspection_of_an_open_table_halts_it() -> None:
    t = make_table()
    t.open()
    t.launch()
    outcome = t.inspect(no_magnet_or_contrivance=False)
    assert types(outcome.output) == ["operator.inspection", "table.halted", "round.voided"]
    halted = outcome.output.events[1]
    assert halted.data["code"] == "inspection_failed" and halted.rule is None
    t.connect()
    assert t.command("resume", {"reason": "magnet removed"}).rule == INSPECTION_RULE
    t.inspect()
    assert t.command("resume", {"reason": "magnet removed"}).ok


def test_unknown_commands_are_refused() -> None:
    t = make_table()
    outcome = t.command("replay", {"from_seq": 1, "to_seq": 2})
    assert not outcome.ok and "unknown table command 'replay'" in outcome.error
