"""systemd's notify protocol as `Type=notify` + `WatchdogSec` sees it.

A real daemon process runs with NOTIFY_SOCKET pointing at a datagram socket the test
owns. READY=1 must mean every table is restored and every device has been tried: one
wheel talks (a simulator on a pty), one port opens but never speaks (a pty the test
holds), one port does not exist. Readiness still comes (the silent one is bounded by its
profile's connect timeout), and by then the journal holds the talking wheel's
`device.online` and the absent one's `device.offline`. Watchdog pings follow, and
SIGTERM brings STOPPING=1. The watchdog's stall rule is tested on a real event loop.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
import yaml
from e2e_support import start_sim, write_config

from floord.system.sdnotify import keep_watchdog

pytestmark = pytest.mark.system


class NotifySocket:
    """The datagram socket systemd would own; keeps every message with its arrival."""

    def __init__(self) -> None:
        # A short directory: AF_UNIX paths are limited to 107 bytes.
        self._dir = tempfile.TemporaryDirectory(prefix="fn-")
        self.path = str(Path(self._dir.name) / "notify")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)
        self.messages: list[str] = []

    def wait_for(self, line: str, timeout: float) -> list[str]:
        """Receive until a message holds `line`; return that message's lines."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.sock.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                data = self.sock.recv(4096).decode()
            except TimeoutError:
                break
            self.messages.append(data)
            if line in data.splitlines():
                return data.splitlines()
        raise AssertionError(f"no {line!r} within {timeout} s; got {self.messages}")

    def close(self) -> None:
        self.sock.close()
        self._dir.cleanup()


def _three_tables(tmp: Path, sim_pty: str, silent_pty: str) -> Path:
    config_path = write_config(tmp, "mqtt://127.0.0.1:1", sim_pty)
    config = yaml.safe_load(config_path.read_text())
    first = config["tables"][0]
    for table_id, port in (("RL-02", silent_pty), ("RL-03", str(tmp / "no-such-tty"))):
        table = json.loads(json.dumps(first))
        table["id"] = table_id
        table["devices"][0]["port"] = port
        config["tables"].append(table)
    config_path.write_text(yaml.safe_dump(config))
    return config_path


def _device_events(journal: Path, stream: str) -> list[str]:
    with sqlite3.connect(f"file:{journal}?mode=ro", uri=True) as db:
        rows = db.execute("SELECT body FROM events WHERE stream = ? ORDER BY seq", (stream,))
        return [json.loads(body)["type"] for (body,) in rows]


def test_ready_after_devices_tried_then_watchdog_then_stopping(tmp_path: Path) -> None:
    sim, sim_pty = start_sim(tmp_path, {"pockets": 37, "steps": [{"idle": 60000}]}, 20.0)
    master, slave = os.openpty()
    notify = NotifySocket()
    config = _three_tables(tmp_path, sim_pty, os.ttyname(slave))
    env = dict(os.environ, NOTIFY_SOCKET=notify.path, WATCHDOG_USEC="1000000")
    env.pop("WATCHDOG_PID", None)
    daemon = subprocess.Popen(
        [sys.executable, "-m", "floord", "run", "-c", str(config)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    try:
        ready = notify.wait_for("READY=1", timeout=30)
        journal = tmp_path / "journal.db"
        assert "device.online" in _device_events(journal, "RL-01/devices/wheel")
        assert "device.offline" in _device_events(journal, "RL-03/devices/wheel")
        # The silent pty was opened and never spoke: not online, and it did not hold
        # readiness back past its bound.
        status = [line for line in ready if line.startswith("STATUS=")]
        assert status and status[0].startswith("STATUS=3 tables, 1/3 devices online"), ready
        before = notify.messages[:-1]
        assert "STATUS=3 tables restored, trying their devices" in before
        assert not any("READY=1" in m for m in before)

        notify.wait_for("WATCHDOG=1", timeout=5)
        notify.wait_for("WATCHDOG=1", timeout=5)

        daemon.send_signal(signal.SIGTERM)
        notify.wait_for("STOPPING=1", timeout=10)
        assert daemon.wait(15) == 0
    finally:
        if daemon.poll() is None:
            daemon.kill()
            daemon.wait()
        sim.kill()
        os.close(master)
        os.close(slave)
        notify.close()


def test_watchdog_skips_the_ping_after_a_stalled_loop() -> None:
    every = 0.2

    async def run() -> None:
        loop = asyncio.get_running_loop()
        pings: list[float] = []
        task = asyncio.create_task(keep_watchdog(every, lambda _: pings.append(loop.time())))
        try:
            await asyncio.sleep(5 * every)
            assert len(pings) >= 3, "an unstalled loop pings every interval"
            before = len(pings)
            time.sleep(5 * every)  # the loop is stuck: no callback runs
            await asyncio.sleep(every / 4)
            assert len(pings) == before, "the late wake-up after a stall must not ping"
            await asyncio.sleep(3 * every)
            assert len(pings) > before, "pings resume once the loop turns on time again"
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    asyncio.run(run())
