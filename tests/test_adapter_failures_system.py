"""No device task dies silently, over a real TCP socket: an exception no one foresaw,
while a device serves frames on a loopback port, is `device.offline`, logged and tried
again; a required device on a malformed port halts its table. The rest is in
`test_adapter_failures.py`.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
import structlog
import yaml
from e2e_support import daemon_running
from test_adapter_failures import WAIT_S, adapter, offline_reasons, stop, until

from floord.adapters.local import Received
from floord.config.load import load_config
from floord.contract import EventType
from floord.journal.store import Journal
from floord.processes.daemon import Daemon

pytestmark = pytest.mark.system


class RaisingDriver:
    """A driver with a bug: the SS2 driver, whose `feed` raises on the Nth chunk."""

    def __init__(self, real: Any, fail_at: int) -> None:
        self._real, self._fail_at, self.chunks = real, fail_at, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def feed(self, data: bytes, now: float) -> list[Any]:
        self.chunks += 1
        if self.chunks == self._fail_at:
            raise ZeroDivisionError("a bug in the driver")
        return self._real.feed(data, now)


def test_an_unforeseen_exception_is_offline_logged_and_tried_again(tmp_path: Path) -> None:
    got: list[Received] = []
    connections: list[int] = []

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections.append(1)
        try:
            while True:  # the SS2's automatic status, state 1 (betting), every 0.05 s
                writer.write(b"*X;1;000;00;0;000;0\r\n")
                await writer.drain()
                await asyncio.sleep(0.05)
        except (ConnectionError, OSError):
            pass
        finally:
            writer.close()

    async def scenario() -> None:
        server = await asyncio.start_server(serve, "127.0.0.1", 0)
        number = server.sockets[0].getsockname()[1]
        journal = Journal(tmp_path / "journal.db")
        device = adapter(journal, f"socket://127.0.0.1:{number}", got)
        device._driver = RaisingDriver(device._driver, fail_at=3)
        task = asyncio.create_task(device.run())
        try:
            await until("device.offline", lambda: bool(offline_reasons(got)))
            await until("a second connection", lambda: len(connections) >= 2)
            await until("online again", lambda: device.online)
            assert not task.done()
        finally:
            await stop(device, task)
            journal.close()
            server.close()
            await server.wait_closed()

    with structlog.testing.capture_logs() as logs:
        asyncio.run(scenario())
    kinds = [r.event.type for r in got]
    first_off = kinds.index(EventType.DEVICE_OFFLINE)
    assert kinds[0] == EventType.DEVICE_ONLINE and EventType.DEVICE_ONLINE in kinds[first_off:]
    assert offline_reasons(got)[0] == "adapter failed: ZeroDivisionError: a bug in the driver"
    [line] = [e for e in logs if e["event"] == "device adapter failed"]
    assert line["log_level"] == "error" and "ZeroDivisionError" in line["error"]


def test_a_required_device_on_a_malformed_port_halts_its_table(tmp_path: Path) -> None:
    """Through the daemon: the port gets past no check (`floord adapter --port` is one
    way), the table hears `device.offline` and halts, the device's task lives on."""
    (tmp_path / "fp.key").write_text("secret\n")
    config = {
        "site": "s",
        "broker": {"url": "mqtt://127.0.0.1:1"},  # nothing there: the link keeps trying
        "journal": "journal.db",
        "operators": [{"id": "FP-1001", "role": "floorperson", "key_file": "fp.key"}],
        "tables": [
            {
                "id": "RL-01",
                "game": "roulette",
                "rules": {"wheel": "single_zero"},
                "devices": [
                    {"id": "wheel", "profile": "cammegh-ss2", "port": "socket://127.0.0.1:9"}
                ],
            }
        ],
    }
    path = tmp_path / "floord.yaml"
    path.write_text(yaml.safe_dump(config))
    daemon = Daemon(load_config(path))
    unit = daemon.tables["RL-01"]
    bad = "socket://127.0.0.1:70000"
    unit.adapters["wheel"].port = bad

    def record() -> list[dict[str, Any]]:
        return [json.loads(e) for e in daemon.journal.read_range("RL-01", 1, 1000)]

    async def scenario() -> None:
        async with daemon_running(daemon, WAIT_S):
            await until("table.halted", lambda: any(e["type"] == "table.halted" for e in record()))
            device_tasks = unit.device_tasks
            assert device_tasks and not any(t.done() for t in device_tasks)

    asyncio.run(scenario())
    daemon.journal = Journal.open_readonly(tmp_path / "journal.db")  # the run closed its own
    events = record()
    daemon.journal.close()
    [offline] = [e for e in events if e["type"] == "device.offline"]
    assert offline["source"] == "wheel"
    assert offline["data"]["port"] == bad  # named there, not again in the reason
    assert offline["data"]["reason"].startswith("cannot open port: a port number")
    [halted] = [e for e in events if e["type"] == "table.halted"]
    assert "device_offline" in json.dumps(halted["data"])
    assert [e["type"] for e in events][-1] == "daemon.stopped"
