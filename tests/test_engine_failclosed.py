"""Fail closed: device faults, lost devices and the wrong wheel halt the table."""

from __future__ import annotations

import pytest
from test_engine_support import WHEEL, make_table, types

from floord.contract import EventType

pytestmark = pytest.mark.unit


def test_a_wheel_fault_halts_the_table_and_voids_the_round() -> None:
    t = make_table()
    t.open()
    round_id = t.launch().events[0].round
    out = t.device(EventType.DEVICE_FAULT, {"code": 5, "text": "motor", "origin": "fault_line"})
    assert types(out) == ["table.halted", "round.voided"]
    halted, voided = out.events
    assert halted.rule is None and "not a regulation" in halted.data["policy"]
    assert halted.data["code"] == "device_fault" and halted.data["device"] == WHEEL
    assert halted.data["detail"] == "motor"
    assert [(r["code"], r["device"]) for r in halted.data["reasons"]] == [("device_fault", WHEEL)]
    assert voided.round == round_id and voided.rule is None
    assert voided.data["reason"] == "table_halted" and "device_fault" in voided.data["detail"]
    snap = t.engine.snapshot()
    assert snap["state"] == "halted" and snap["devices"][WHEEL]["fault"]["code"] == 5
    assert t.engine.current_round is None


def test_a_required_device_going_offline_halts_the_table() -> None:
    t = make_table(required=(WHEEL, "display-1"))
    t.connect("display-1")
    t.open()
    out = t.device(EventType.DEVICE_OFFLINE, {"reason": "silent for 2.0 s"}, device="display-1")
    assert types(out) == ["table.halted"]
    assert out.events[0].data["code"] == "device_offline"
    assert out.events[0].data["device"] == "display-1"
    assert out.events[0].data["detail"] == "silent for 2.0 s"


def test_a_device_that_is_not_required_does_not_halt_the_table() -> None:
    t = make_table()
    t.open()
    assert types(t.device(EventType.DEVICE_OFFLINE, {}, device="camera-1")) == []
    assert (
        types(t.device(EventType.DEVICE_FAULT, {"code": 1, "text": "x"}, device="camera-1")) == []
    )
    assert t.engine.snapshot()["state"] == "open"


def test_halt_reasons_accumulate_and_repeat_nothing() -> None:
    t = make_table()
    t.open()
    assert types(t.device(EventType.DEVICE_OFFLINE, {})) == ["table.halted"]
    assert types(t.device(EventType.DEVICE_OFFLINE, {})) == []
    out = t.device(EventType.DEVICE_FAULT, {"code": None, "text": "sensor stuck"})
    assert types(out) == ["table.halted"]
    assert [r["code"] for r in out.events[0].data["reasons"]] == ["device_offline", "device_fault"]
    assert out.events[0].data["table_was"] == "open"


@pytest.mark.parametrize(
    ("wheel", "pockets", "rule"),
    [
        ("single_zero", 38, "58 Pa. Code § 531.1(b)"),
        ("double_zero", 37, "58 Pa. Code § 531.1(c)"),
        ("double_zero_as_single", 37, "58 Pa. Code § 531.1(d)"),
    ],
)
def test_a_wheel_of_the_wrong_kind_halts_with_wheel_mismatch(
    wheel: str, pockets: int, rule: str
) -> None:
    t = make_table(wheel)
    t.open()
    out = t.connect(pockets=pockets)
    assert types(out) == ["table.halted"]
    assert out.events[0].data["code"] == "wheel_mismatch" and out.events[0].rule == rule
    assert f"{pockets} pockets" in out.events[0].data["detail"]


def test_a_fault_clears_only_after_reconnecting_and_identifying_again() -> None:
    t = make_table()
    t.open()
    t.device(EventType.DEVICE_FAULT, {"code": 4, "text": "wrong ball direction"})
    t.connect()  # identifies again without having gone offline
    assert t.engine.snapshot()["devices"][WHEEL]["fault"] is not None
    t.device(EventType.DEVICE_OFFLINE, {})
    t.connect()
    device = t.engine.snapshot()["devices"][WHEEL]
    assert device["fault"] is None and device["online"] is True
    assert (
        device["identity"]["pockets"] == 37 and device["last_seen"] == "2024-03-05T15:00:05.000000Z"
    )


def test_a_halt_decided_outside_the_engine_is_latched() -> None:
    t = make_table()
    t.open()
    t.launch()
    out = t.engine.halt("journal_failure", "disk full", t.clock.step())
    assert types(out) == ["table.halted", "round.voided"]
    assert out.events[0].data["device"] is None
    assert t.engine.snapshot()["halt_reasons"][0]["code"] == "journal_failure"
    assert t.command("resume", {"reason": "disk replaced"}).ok


def test_a_closed_table_halts_too_and_resume_returns_it_to_closed() -> None:
    t = make_table()
    t.connect()
    out = t.device(EventType.DEVICE_OFFLINE, {})
    assert types(out) == ["table.halted"] and out.events[0].data["table_was"] == "closed"
    t.inspect()
    assert "halted" in t.command("open").error
    t.connect()
    resumed = t.command("resume", {"reason": "wheel powered on"})
    assert resumed.ok and resumed.output.events[0].data["state"] == "closed"
    assert t.command("open").ok
