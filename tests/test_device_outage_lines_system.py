"""No log flood from a device that stays missing, through the adapter: on a port path that
does not exist, with a small retry and repeat schedule, which then appears (a real pty
behind it) and speaks. `Outage` alone is in `test_device_outage_lines.py`.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
import structlog

from floord.adapters.local import DeviceAdapter, Received
from floord.contract import EventType
from floord.journal.store import Journal
from floord.mqtt.backoff import Backoff
from floord.profiles import load_profile

pytestmark = pytest.mark.system


SS2_STATUS = b"*X;1;000;00;0;000;0\r\n"  # state 1 (betting): the wheel speaks


def _adapter(journal: Journal, port: Path, got: list[Received], repeat: Backoff) -> DeviceAdapter:
    ss2 = load_profile("cammegh-ss2")
    fast = ss2.timeouts.model_copy(update={"reconnect_min_s": 0.01, "reconnect_max_s": 0.02})
    return DeviceAdapter(
        site="s",
        table="RL-01",
        device="wheel",
        port=str(port),
        profile=ss2.model_copy(update={"timeouts": fast}),
        driver_options={"pockets": 37},
        journal=journal,
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
        journal = Journal(tmp_path / "journal.db")
        device = _adapter(journal, port, got, Backoff(first_s, max_s))
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
            journal.close()

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
