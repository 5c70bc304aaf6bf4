"""The daemon's line behind the adapters (`floord.adapters.supervision`): a device task
that raises, whatever the exception, or ends while the daemon runs is logged, reported
`device.offline` with the reason and started again; if even the report fails, the
offline event goes straight to the table. Unit tests of `supervise` with one scripted
device."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

import pytest
import structlog
from virtual_clock import run

from floord.adapters.local import Received
from floord.adapters.supervision import supervise
from floord.contract import EventType

pytestmark = pytest.mark.unit

T0 = datetime(2026, 12, 1, 6, 0, tzinfo=UTC)


class ScriptedDevice:
    """A device whose `run()` does, call by call, what `script` says: raise an exception,
    return, or run until cancelled (None)."""

    def __init__(self, script: list[BaseException | str | None], fail_raises: bool = False):
        self.table, self.device, self.port = "RL-01", "wheel", "socket://127.0.0.1:4000"
        self.online, self.tried = True, asyncio.Event()
        self.script, self.runs, self.failed = list(script), 0, []
        self._fail_raises = fail_raises

    async def run(self) -> None:
        self.runs += 1
        step = self.script.pop(0) if self.script else None
        if isinstance(step, BaseException):
            raise step
        if step == "return":
            return
        await asyncio.Event().wait()

    def fail(self, reason: str) -> None:
        if self._fail_raises:
            raise OSError("the device's own record failed too")
        self.failed.append(reason)
        self.online = False
        self.tried.set()


def drive(device: ScriptedDevice, stopping: list[bool], runs: int) -> list[Received]:
    got: list[Received] = []

    async def scenario() -> None:
        task = asyncio.create_task(
            supervise(
                device,  # type: ignore[arg-type]
                sink=got.append,
                clock=lambda: T0,
                stopping=lambda: stopping[0],
                restart_s=0.01,
            )
        )
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 5.0
        while device.runs < runs and loop.time() < deadline:
            await asyncio.sleep(0.01)
        assert not task.done(), "the supervisor itself ended"
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)

    run(scenario())  # the restarts' waits on a clock that jumps to each timer
    assert device.runs == runs
    return got


def test_any_exception_is_logged_reported_offline_and_the_task_restarted() -> None:
    device = ScriptedDevice([OverflowError("port must be 0-65535."), KeyError("x"), "return"])
    with structlog.testing.capture_logs() as logs:
        got = drive(device, [False], runs=4)
    assert device.failed == [
        "adapter task failed: OverflowError: port must be 0-65535.",
        "adapter task failed: KeyError: 'x'",
        "adapter task ended",
    ]
    assert got == []  # the device reported it on its own record
    assert [(e["event"], e["log_level"]) for e in logs] == [
        ("device task failed", "error"),
        ("device task failed", "error"),
        ("device task ended", "error"),
    ]
    assert all(e["table"] == "RL-01" and e["device"] == "wheel" for e in logs)


def test_when_the_device_cannot_report_the_table_still_hears_it() -> None:
    device = ScriptedDevice([RuntimeError("boom")], fail_raises=True)
    with structlog.testing.capture_logs() as logs:
        got = drive(device, [False], runs=2)
    [item] = got
    assert (item.device, item.event.type, item.device_seq, item.ts) == (
        "wheel",
        EventType.DEVICE_OFFLINE,
        0,
        T0,
    )
    assert item.event.data == {
        "port": "socket://127.0.0.1:4000",
        "reason": "adapter task failed: RuntimeError: boom",
    }
    assert not device.online and device.tried.is_set()
    assert "device offline not recorded by its adapter" in [e["event"] for e in logs]


def test_a_task_that_ends_because_the_daemon_stops_is_not_a_failure() -> None:
    device = ScriptedDevice(["return"])
    got: list[Any] = []

    async def scenario() -> None:
        await asyncio.wait_for(
            supervise(
                device,  # type: ignore[arg-type]
                sink=got.append,
                clock=lambda: T0,
                stopping=lambda: True,
                restart_s=0.01,
            ),
            5.0,
        )

    asyncio.run(scenario())
    assert (device.runs, device.failed, got) == (1, [], [])


def test_a_task_failing_again_and_again_is_one_line_per_kind_not_a_traceback_each_time() -> None:
    script: list[BaseException | str | None] = [RuntimeError("journal gone")] * 30
    device = ScriptedDevice([*script, KeyError("x"), RuntimeError("journal gone")])
    with structlog.testing.capture_logs() as logs:
        drive(device, [False], runs=33)
    assert len(device.failed) == 32  # each failure still reported and the task restarted
    # The repeats come a minute and more apart (`floord.adapters.outage`): none here.
    assert [(e["event"], e["reason"]) for e in logs] == [
        ("device task failed", "adapter task failed: RuntimeError: journal gone"),
        ("device task failed", "adapter task failed: KeyError: 'x'"),
    ]
