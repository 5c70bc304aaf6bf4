"""No device task dies silently: whatever ends an adapter's
attempt, a malformed port, an exception no one foresaw, ends as `device.offline` with
the reason and a log line, the adapter tries again, and a required device halts its
table. `socket://127.0.0.1:70000` once raised OverflowError out of `open_transport`,
the adapter task died and the table stayed open with nothing behind it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
import structlog
from test_config_addresses import MALFORMED_PORTS

from floord.adapters.local import DeviceAdapter, Received
from floord.contract import EventType
from floord.journal.store import Journal
from floord.profiles import DeviceProfile, load_profile
from floord.transport.ports import PortError, parse_port

pytestmark = pytest.mark.unit

WAIT_S = 10.0


def utc_now() -> datetime:
    return datetime.now(UTC)


async def until(what: str, done: Callable[[], bool]) -> None:
    """Poll `done` (the event loop keeps turning) until it holds; fail after WAIT_S."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT_S
    while not done():
        assert loop.time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.02)


def quick_retrying(profile: DeviceProfile) -> DeviceProfile:
    """The profile with a 50 ms first back-off: the test waits for a second attempt."""
    timeouts = profile.timeouts.model_copy(update={"reconnect_min_s": 0.05})
    return profile.model_copy(update={"timeouts": timeouts})


def adapter(journal: Journal, port: str, got: list[Received]) -> DeviceAdapter:
    return DeviceAdapter(
        site="s",
        table="RL-01",
        device="wheel",
        port=port,
        profile=quick_retrying(load_profile("cammegh-ss2")),
        driver_options={"pockets": 37},
        journal=journal,
        sink=got.append,
        clock=utc_now,
    )


async def stop(device: DeviceAdapter, task: asyncio.Task[None]) -> None:
    device.stop()
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


def offline_reasons(got: list[Received]) -> list[str]:
    return [r.event.data["reason"] for r in got if r.event.type == EventType.DEVICE_OFFLINE]


@pytest.mark.parametrize("port", sorted(MALFORMED_PORTS))
def test_a_malformed_port_at_run_time_is_offline_not_a_dead_task(tmp_path: Path, port: str) -> None:
    with pytest.raises(PortError) as refused:
        parse_port(port)
    got: list[Received] = []

    async def scenario() -> None:
        journal = Journal(tmp_path / "journal.db")
        device = adapter(journal, port, got)
        task = asyncio.create_task(device.run())
        try:
            await until("device.offline", lambda: bool(offline_reasons(got)))
            # Past the first back-off: the adapter tried again, its task still alive.
            await until("a second attempt", lambda: device._outage.attempts >= 2)
            assert not task.done(), "the adapter task died"
            assert device.tried.is_set() and not device.online
        finally:
            await stop(device, task)
            journal.close()

    with structlog.testing.capture_logs() as logs:
        asyncio.run(scenario())
    [reason] = offline_reasons(got)  # once, however often it is tried again
    assert reason == f"cannot open port: {str(refused.value).removeprefix(f'{port}: ')}"
    assert got[0].device_seq == 1  # recorded on the device's own stream first
    # One line however often it is tried again (the repeats come minutes apart), the port
    # in its own field and not again in the error.
    [line] = [e for e in logs if e["event"] == "cannot open device"]
    assert line["port"] == port and line["log_level"] == "warning"
    assert line["error"] == str(refused.value).removeprefix(f"{port}: ")
