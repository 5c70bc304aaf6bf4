"""No log flood from a device that stays missing (`floord.adapters.outage`): its first
failure is one warning naming the port once, the attempts after it are counted and said
again at growing intervals (1 min, 2, 4 ... at most 1 h apart), and its return is one
line with how long it was gone. The attempts themselves keep their own schedule.

A unit test of `Outage` over a simulated day of attempts 10 s apart, and the adapter on
a port path that does not exist, with a small retry and repeat schedule, which then
appears (a real pty behind it) and speaks."""

from __future__ import annotations

import asyncio
import itertools
import json
import math
import os
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
import structlog

from floord.adapters.local import DeviceAdapter, Received
from floord.adapters.outage import REPEAT_FIRST_S, REPEAT_MAX_S, Outage
from floord.contract import EventType
from floord.journal.store import Journal
from floord.mqtt.backoff import Backoff
from floord.profiles import load_profile

pytestmark = pytest.mark.system

DAY_S = 24 * 3600.0
RETRY_S = 10.0  # the SS2 profile's reconnect_max_s: what a missing device is tried at
SS2_STATUS = b"*X;1;000;00;0;000;0\r\n"  # state 1 (betting): the wheel speaks


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_day_missing_is_a_few_dozen_lines_not_thousands() -> None:
    clock = Clock()
    log = structlog.get_logger("test").bind(port="/dev/floord/wheel")
    outage = Outage(log, still="device still offline", back="device back", clock=clock)
    firsts = 0
    with structlog.testing.capture_logs() as logs:
        for _ in range(int(DAY_S / RETRY_S)):
            firsts += outage.failed("No such file or directory", "open")
            clock.now += RETRY_S
        outage.recovered()
    assert firsts == 1  # the caller's own first line, once
    repeats = [e for e in logs if e["event"] == "device still offline"]
    # At 1, 3, 7, 15, 31, 63 min (each gap twice the one before, from 1 min), then hourly.
    expected = int(math.log2(REPEAT_MAX_S / REPEAT_FIRST_S)) + 1
    expected += int((DAY_S - (2**expected - 1) * REPEAT_FIRST_S) // REPEAT_MAX_S) + 1
    assert len(repeats) in (expected - 1, expected), len(repeats)
    assert len(repeats) < 35
    gaps = [b["down_s"] - a["down_s"] for a, b in itertools.pairwise(repeats)]
    assert repeats[0]["down_s"] == REPEAT_FIRST_S
    assert gaps[:5] == [120.0, 240.0, 480.0, 960.0, 1920.0]
    assert all(g == REPEAT_MAX_S for g in gaps[6:]) and max(gaps) == REPEAT_MAX_S
    assert all(e["log_level"] == "warning" for e in repeats)
    # Each says how many attempts failed and for how long it has been down.
    assert all(e["attempts"] == e["down_s"] / RETRY_S + 1 for e in repeats)
    assert [e["error"] for e in repeats] == ["No such file or directory"] * len(repeats)
    [back] = [e for e in logs if e["event"] == "device back"]
    assert back["log_level"] == "info" and back["attempts"] == DAY_S / RETRY_S
    assert back["down_s"] == DAY_S and back["port"] == "/dev/floord/wheel"


def test_a_new_kind_of_failure_is_said_and_a_return_starts_over() -> None:
    clock = Clock()
    outage = Outage(structlog.get_logger("test"), still="still", back="back", clock=clock)
    assert outage.failed("No such file or directory", "open")
    assert not outage.failed("Permission denied", "open")  # the same kind: counted
    assert outage.failed("adapter failed: ZeroDivisionError", "ZeroDivisionError")
    assert not outage.failed("adapter failed: ZeroDivisionError", "ZeroDivisionError")
    with structlog.testing.capture_logs() as logs:
        outage.recovered()
        outage.recovered()  # not down: nothing to say
    assert [(e["event"], e["attempts"]) for e in logs] == [("back", 4)]
    assert not outage.down and outage.failed("No such file or directory", "open")


def _adapter(tmp: Path, port: Path, got: list[Received], repeat: Backoff) -> DeviceAdapter:
    ss2 = load_profile("cammegh-ss2")
    fast = ss2.timeouts.model_copy(update={"reconnect_min_s": 0.01, "reconnect_max_s": 0.02})
    return DeviceAdapter(
        site="s",
        table="RL-01",
        device="wheel",
        port=str(port),
        profile=ss2.model_copy(update={"timeouts": fast}),
        driver_options={"pockets": 37},
        journal=Journal(tmp / "journal.db"),
        sink=got.append,
        clock=lambda: datetime.now(UTC),
        log_repeat=repeat,
    )


def test_a_missing_port_logs_its_first_failure_repeats_with_back_off_and_its_return(
    tmp_path: Path,
) -> None:
    port = tmp_path / "wheel"  # not there yet: `No such file or directory` at every try
    got: list[Received] = []
    first_s, max_s, missing_s = 0.1, 0.8, 3.0
    master, slave = os.openpty()

    async def speak() -> None:
        while True:
            os.write(master, SS2_STATUS)
            await asyncio.sleep(0.05)

    async def scenario() -> tuple[float, int]:
        device = _adapter(tmp_path, port, got, Backoff(first_s, max_s))
        task = asyncio.create_task(device.run())
        speaking: asyncio.Task[None] | None = None
        try:
            started = time.monotonic()
            await asyncio.sleep(missing_s)
            attempts = device._outage.attempts
            missing = time.monotonic() - started
            os.symlink(os.ttyname(slave), port)  # the device is plugged in and speaks
            speaking = asyncio.create_task(speak())
            deadline = time.monotonic() + 10.0
            while not device.online:
                assert time.monotonic() < deadline, "the device never came back"
                await asyncio.sleep(0.02)
            return missing, attempts
        finally:
            device.stop()
            for job in (task, speaking):
                if job is not None:
                    job.cancel()
            await asyncio.gather(task, *([speaking] if speaking else []), return_exceptions=True)
            device._journal.close()

    try:
        with structlog.testing.capture_logs() as logs:
            missing, attempts = asyncio.run(scenario())
    finally:
        os.close(master)
        os.close(slave)
    lines = [e for e in logs if e["event"] in ("cannot open device", "device still offline")]
    first, repeats = lines[0], lines[1:]
    assert first["event"] == "cannot open device" and first["log_level"] == "warning"
    assert first["error"] == "No such file or directory"
    assert [e["event"] for e in repeats] == ["device still offline"] * len(repeats)
    # Many attempts, few lines: the first, then one per doubling of the gap up to its cap.
    assert attempts >= 30, attempts
    bound = 1 + math.log2(max_s / first_s) + 1 + missing / max_s + 1
    assert 3 <= len(repeats) <= bound, (len(repeats), bound, attempts)
    assert all(e["attempts"] > 1 and e["down_s"] >= first_s for e in repeats)
    assert [e["attempts"] for e in repeats] == sorted(e["attempts"] for e in repeats)
    # The port once per line, in its own field, whatever the line.
    for entry in [*lines, *[e for e in logs if e["event"] == "device back"]]:
        assert json.dumps(entry).count(str(port)) == 1, entry
    [back] = [e for e in logs if e["event"] == "device back"]
    assert back["log_level"] == "info" and back["port"] == str(port)
    assert back["down_s"] >= missing - 0.1 and back["attempts"] >= attempts
    offline = [r for r in got if r.event.type == EventType.DEVICE_OFFLINE]
    assert len(offline) == 1  # the record: one device.offline, then device.online
    assert offline[0].event.data == {
        "port": str(port),
        "reason": "cannot open port: No such file or directory",
    }
    assert any(r.event.type == EventType.DEVICE_ONLINE for r in got)
