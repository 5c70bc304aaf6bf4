"""The driver adapter's own events, journaled on the device's stream and handed on.

Besides what it checks, this gives `test_contract_payloads` the adapter's payloads that
no engine or driver scenario builds: `device.offline` (a port that will not open),
`device.command_result` (a command the driver cannot encode) and an adapter's
`device.online` said again (`announced: true`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from floord.adapters.local import DeviceAdapter, Received
from floord.contract import EventType
from floord.events import DeviceCommand, DeviceEvent
from floord.journal.store import Journal
from floord.profiles import load_profile

pytestmark = pytest.mark.unit

NOW = datetime(2024, 3, 5, 15, 0, tzinfo=UTC)


def make_adapter(tmp_path: Path, port: str) -> tuple[DeviceAdapter, Journal, list[Received]]:
    journal = Journal(tmp_path / "journal.db")
    received: list[Received] = []
    adapter = DeviceAdapter(
        site="s1",
        table="BJ-01",
        device="reader",
        port=port,
        profile=load_profile("ref-card-reader"),
        driver_options={},
        journal=journal,
        sink=received.append,
        clock=lambda: NOW,
    )
    return adapter, journal, received


def stream(journal: Journal) -> list[dict]:
    rows = journal.read_range("BJ-01/devices/reader", 1, 100)
    return [json.loads(r) for r in rows]


def test_a_port_that_will_not_open_is_offline_once_and_commands_fail_on_record(
    tmp_path: Path,
) -> None:
    port = str(tmp_path / "no-such-tty")
    adapter, journal, received = make_adapter(tmp_path, port)

    async def scenario() -> None:
        task = asyncio.create_task(adapter.run())
        await asyncio.wait_for(adapter.tried.wait(), 10)
        adapter.stop()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await adapter.send(DeviceCommand(device="reader", name="respin"))

    try:
        asyncio.run(scenario())
        events = stream(journal)
    finally:
        journal.close()
    kinds = [e["type"] for e in events]
    assert kinds == ["device.offline", "device.command_result"]
    offline, result = events[0]["data"], events[1]["data"]
    assert offline["port"] == port and offline["reason"].startswith("cannot open port")
    assert result["name"] == "respin" and result["ok"] is False and result["reply"] is None
    assert "unknown card_reader command 'respin'" in result["error"]
    assert [r.event.type for r in received] == kinds
    assert [r.device_seq for r in received] == [1, 2]


def test_announce_says_online_again_only_while_online(tmp_path: Path) -> None:
    adapter, journal, received = make_adapter(tmp_path, "/dev/pts/97")
    try:
        assert adapter.announce() is False
        adapter._went_online()  # what the adapter does when the device first speaks
        assert adapter.announce() is True
        events = stream(journal)
    finally:
        journal.close()
    assert [e["data"] for e in events] == [
        {"port": "/dev/pts/97"},
        {"port": "/dev/pts/97", "announced": True},
    ]
    assert len(received) == 2


def test_a_new_session_arms_the_line_fault_again_and_an_announcement_does_not(
    tmp_path: Path,
) -> None:
    # The engine clears a protocol-error fault once the device identifies on a new
    # session: that session's own burst must fault again, the same session's must not.
    adapter, journal, received = make_adapter(tmp_path, "/dev/pts/96")
    noise = DeviceEvent(
        EventType.DEVICE_PROTOCOL_ERROR, {"reason": "bytes outside a frame", "raw": "x"}
    )

    def burst() -> int:
        for _ in range(adapter.profile.protocol_errors.fault_after):
            adapter._events.emit(noise)
        return sum(r.event.type == EventType.DEVICE_FAULT for r in received)

    try:
        adapter._went_online()
        assert burst() == 1
        adapter.announce()  # said again for a restarted daemon: the same session
        assert burst() == 1
        adapter._went_offline("silent for 3 s")
        adapter._went_online()
        assert burst() == 2
    finally:
        journal.close()
