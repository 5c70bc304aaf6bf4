"""Which connection clears which fault: a device's own fault, a fault of its line.

A fault the device reported clears once the device is seen to go offline, comes back
and identifies again (a daemon restart does not count). A protocol-error fault (origin
`protocol_errors`, the adapter's count of unreadable frames) is the line's: it clears
once the device identifies on a new session of its adapter, after a `device.offline`
or in a new run of the daemon. Nothing less clears either, and each clearing is a
`table.fault_cleared` on the record; only `resume` lifts the halt.
"""

from __future__ import annotations

import json

import pytest
from test_engine_support import WHEEL, Table, make_table, only, types

from floord.contract import EventType

pytestmark = pytest.mark.unit

LINE = {
    "code": None,
    "text": "30 protocol errors within 60 s: the line is noisy",
    "origin": "protocol_errors",
}
MOTOR = {"code": 5, "text": "motor", "origin": "fault_line"}


def _restarted(t: Table) -> Table:
    snap = json.loads(json.dumps(t.engine.snapshot()))  # as stored: JSON
    b = make_table(snapshot=snap, clock=t.clock)
    b.engine.after_restart(b.clock.step())
    return b


def _faults(t: Table) -> list[tuple[object, bool]]:
    return [
        (f["origin"], f["reconnecting"]) for f in t.engine.snapshot()["devices"][WHEEL]["faults"]
    ]


def _identify(t: Table) -> list[str]:
    """The device identifies as it did before."""
    identity = t.engine.snapshot()["devices"][WHEEL]["identity"]
    return types(t.device(EventType.DEVICE_IDENTIFIED, identity))


def _line_faulted() -> Table:
    t = make_table()
    t.open()
    out = t.device(EventType.DEVICE_FAULT, LINE)
    assert types(out) == ["table.halted"]
    return t


def test_a_line_fault_clears_when_the_device_identifies_after_a_restart() -> None:
    t = _restarted(_line_faulted())
    assert "active fault (30 protocol errors" in t.command("resume", {"reason": "x"}).error
    out = t.connect()  # a new session of the new run: online, then identified
    cleared = only(out, EventType.TABLE_FAULT_CLEARED)
    assert cleared.rule is None
    assert cleared.data["device"] == WHEEL and cleared.data["cleared_by"] == "new_session"
    assert cleared.data["fault"]["origin"] == "protocol_errors"
    assert cleared.data["fault"]["text"] == LINE["text"]
    assert "new connection of its line" in cleared.data["detail"]
    device = t.engine.snapshot()["devices"][WHEEL]
    assert device["fault"] is None and device["faults"] == []
    assert t.engine.snapshot()["state"] == "halted"  # only resume lifts the halt
    resumed = t.command("resume", {"reason": "line replaced"})
    assert resumed.ok and types(resumed.output) == ["table.resumed"]
    assert t.engine.snapshot()["state"] == "open"


def test_a_line_fault_clears_when_the_device_reconnects_without_a_restart() -> None:
    t = _line_faulted()
    t.device(EventType.DEVICE_OFFLINE, {"reason": "silent for 2 s"})
    out = t.connect()
    assert only(out, EventType.TABLE_FAULT_CLEARED).data["cleared_by"] == "new_session"
    assert t.command("resume", {"reason": "cable reseated"}).ok


def test_a_line_fault_does_not_clear_on_anything_less_than_a_new_identified_session() -> None:
    t = _line_faulted()
    # The same connection: the device identifies again, speaks, answers a command.
    assert EventType.TABLE_FAULT_CLEARED not in types(t.connect())
    t.device(EventType.WHEEL_IDLE, {"spin": 1})
    t.device(EventType.DEVICE_PROTOCOL_ERRORS, {"count": 3, "sample": {"reason": "x"}})
    t.device(EventType.DEVICE_COMMAND_RESULT, {"name": "respin", "ok": True})
    assert _faults(t) == [("protocol_errors", False)]
    b = _restarted(t)
    # A new run: online alone is not enough, nor an identity before the device is online.
    assert _identify(b) == []
    assert _faults(b) == [("protocol_errors", False)]
    b.device(EventType.DEVICE_ONLINE, {"port": "/dev/ttyS0"})
    assert _faults(b) == [("protocol_errors", True)]
    assert "active fault" in b.command("resume", {"reason": "x"}).error


def test_an_adapter_process_saying_again_it_is_online_is_no_new_session() -> None:
    # An adapter in its own process keeps its connection across the daemon's restart and
    # says `device.online` again (`announced`): the noisy session goes on.
    b = _restarted(_line_faulted())
    b.device(EventType.DEVICE_ONLINE, {"port": "remote", "announced": True})
    assert _identify(b) == []
    assert _faults(b) == [("protocol_errors", False)]
    assert "active fault" in b.command("resume", {"reason": "x"}).error
    # Its session then ends and a new one identifies: that clears it.
    b.device(EventType.DEVICE_OFFLINE, {"reason": "link broke"})
    assert types(b.connect()) == ["table.fault_cleared"]


def test_a_line_fault_raised_again_on_the_new_session_stands() -> None:
    b = _restarted(_line_faulted())
    b.device(EventType.DEVICE_ONLINE, {})
    b.device(EventType.DEVICE_FAULT, LINE)  # the new session is noisy too
    assert _identify(b) == []
    assert _faults(b) == [("protocol_errors", False)]


def test_a_device_fault_keeps_its_rule_beside_a_line_fault() -> None:
    t = make_table()
    t.open()
    t.device(EventType.DEVICE_FAULT, MOTOR)
    t.device(EventType.DEVICE_FAULT, LINE)
    assert _faults(t) == [("fault_line", False), ("protocol_errors", False)]
    b = _restarted(t)
    out = b.connect()  # the new run's session clears the line's fault only
    cleared = only(out, EventType.TABLE_FAULT_CLEARED)
    assert cleared.data["fault"]["origin"] == "protocol_errors"
    device = b.engine.snapshot()["devices"][WHEEL]
    assert device["fault"]["code"] == 5 and _faults(b) == [("fault_line", False)]
    refused = b.command("resume", {"reason": "line replaced"}).error
    assert "active fault (motor); it clears when the device reconnects" in refused
    # The wheel itself goes away and comes back: the motor fault clears.
    b.device(EventType.DEVICE_OFFLINE, {})
    cleared = only(b.connect(), EventType.TABLE_FAULT_CLEARED)
    assert cleared.data["cleared_by"] == "reconnect" and cleared.data["fault"]["code"] == 5
    assert "went offline, came back online" in cleared.data["detail"]
    assert b.command("resume", {"reason": "motor replaced"}).ok


def test_a_device_fault_still_does_not_clear_on_a_restart() -> None:
    t = make_table()
    t.open()
    t.device(EventType.DEVICE_FAULT, MOTOR)
    b = _restarted(t)
    assert EventType.TABLE_FAULT_CLEARED not in types(b.connect())
    assert _faults(b) == [("fault_line", False)]


def test_a_newer_fault_of_the_same_kind_replaces_the_older() -> None:
    t = make_table()
    t.connect()
    t.device(EventType.DEVICE_FAULT, MOTOR)
    t.device(EventType.DEVICE_OFFLINE, {})
    t.device(EventType.DEVICE_ONLINE, {})
    t.device(EventType.DEVICE_FAULT, {"code": 7, "text": "ball sensor", "origin": "fault_line"})
    assert _identify(t) == []  # the new fault is this session's
    assert t.engine.snapshot()["devices"][WHEEL]["fault"]["code"] == 7


def test_a_snapshot_from_before_faults_were_kept_apart_restores_its_fault() -> None:
    # A table halted by a line fault under an older floord (one `fault`, no `faults`)
    # reopens once its device identifies in the upgraded daemon's new run.
    t = _line_faulted()
    snap = json.loads(json.dumps(t.engine.snapshot()))
    device = snap["devices"][WHEEL]
    del device["faults"]
    device["fault"] = {**LINE, "at": "2024-03-05T15:00:03.000000Z"}
    device["reconnecting"] = False
    b = make_table(snapshot=snap, clock=t.clock)
    b.engine.after_restart(b.clock.step())
    assert _faults(b) == [("protocol_errors", False)]
    assert only(b.connect(), EventType.TABLE_FAULT_CLEARED).data["cleared_by"] == "new_session"
    assert b.command("resume", {"reason": "line replaced"}).ok
