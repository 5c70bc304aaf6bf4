"""A roulette table whose wheel adapter runs as its own process (`floord adapter`).

Real parts throughout: the SS2 simulator on a pty, `floord adapter` and `floord run` as
subprocesses, a real Mosquitto. The same scripted spins give the same table record with
the wheel's adapter in-process or remote; a re-spin reaches the wheel through the remote
adapter; a killed adapter (its last will) halts the table and a restarted one brings the
wheel back; events the daemon missed while it was down are filled in by a replay.
"""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from e2e_support import (
    Collector,
    Process,
    collecting,
    command,
    open_table,
    start_daemon,
    start_sim,
    topics,
    write_config,
)

from floord.journal.store import Journal

pytestmark = pytest.mark.system

SPEED = 10.0
STREAM = "RL-01/devices/wheel"
TS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$")


def remote_configs(tmp: Path, url: str, pty: str, device: str = "wheel") -> tuple[Path, Path]:
    """(the daemon's config with `adapter: remote`, the adapter's config with the port)."""
    body = yaml.safe_load(write_config(tmp, url, pty).read_text())
    adapter = tmp / "adapter.yaml"
    adapter.write_text(yaml.safe_dump(body))
    for item in body["tables"][0]["devices"]:
        if item["id"] == device:
            del item["port"]
            item["adapter"] = "remote"
    daemon = tmp / "floord.yaml"
    daemon.write_text(yaml.safe_dump(body))
    return daemon, adapter


def start_adapter(config: Path, table: str = "RL-01", device: str = "wheel") -> Process:
    args = ["adapter", "-c", str(config), "--table", table, "--device", device]
    return Process(args, stdout=subprocess.DEVNULL)


def normal(value: Any, port: str) -> Any:
    """A value with what differs between two runs (times, the pty's path) blanked."""
    if isinstance(value, dict):
        return {k: normal(v, port) for k, v in value.items()}
    if isinstance(value, list):
        return [normal(v, port) for v in value]
    if isinstance(value, str) and TS.match(value):
        return "<ts>"
    if value == port:
        return "<port>"
    return value


def record(events: list[dict[str, Any]], port: str) -> list[tuple[Any, ...]]:
    """Type, source, data, rule and round of each event; a command's random id dropped,
    and `daemon.started`'s `drivers` (the daemon names only the drivers it runs itself:
    `drivers_started` compares them)."""
    out = []
    for body in events:
        data = dict(body["data"])
        if body["type"].startswith("operator."):
            data.pop("id", None)
        if body["type"] == "daemon.started":
            data.pop("drivers")
        out.append((body["type"], body["source"], normal(data, port), body["rule"], body["round"]))
    return out


def drivers_started(events: list[dict[str, Any]]) -> dict[str, Any]:
    """The `drivers` of the run's `daemon.started`."""
    [started] = [b for b in events if b["type"] == "daemon.started"]
    drivers: dict[str, Any] = started["data"]["drivers"]
    return drivers


def device_stream(path: Path) -> list[dict[str, Any]]:
    """A journal's copy of the wheel's stream: each event's own fields (not its chain)."""
    journal = Journal(path)
    try:
        last = journal.last_seq(STREAM)
        bodies = [json.loads(b) for b in journal.read_range(STREAM, 1, last)] if last else []
    finally:
        journal.close()
    keys = ("site", "table", "seq", "ts", "type", "source", "data", "rule", "round")
    return [{k: b[k] for k in keys} for b in bodies]


SPINS = {
    "pockets": 37,
    "seed": 7,
    "steps": [
        # 15 s at SPEED before the first spin: the daemon starts and the table opens
        # first, even on a loaded machine.
        {"idle": 150},
        {"spin": {"number": "17", "direction": "cw"}},
        {
            "spin": {
                "number": "5",
                "direction": "ccw",
                "warn": "same_direction",
                "respin_number": "23",
            }
        },
        {"idle": 6000},
    ],
}


async def play_spins(c: Collector, url: str) -> list[dict[str, Any]]:
    """Open the table, see both results; the table's record up to the second one."""
    t = topics()
    await c.event("device.identified")
    await open_table(url)
    first = await c.event("roulette.result")
    assert first["data"]["number"] == "17"
    await c.event("roulette.no_spin")
    second = await c.event("roulette.result", lambda b: b["data"]["number"] == "23")
    respin = await c.wait_for(
        lambda tp, b: (
            tp == t.device_events("wheel")
            and b["type"] == "device.command_result"
            and b["data"]["name"] == "respin"
        ),
        what="the re-spin's result on the wheel's stream",
    )
    assert respin["data"]["ok"] is True
    return [b for b in c.events(t.events) if b["seq"] <= second["seq"]]


def test_the_table_runs_the_same_with_the_wheel_adapter_remote(broker, tmp_path: Path) -> None:
    local_dir, remote_dir = tmp_path / "local", tmp_path / "remote"
    local_dir.mkdir()
    remote_dir.mkdir()

    sim, local_pty = start_sim(local_dir, SPINS, SPEED)
    daemon = start_daemon(write_config(local_dir, broker.url, local_pty))
    try:

        async def local_run() -> list[dict[str, Any]]:
            async with collecting(broker.url) as c:
                return await play_spins(c, broker.url)

        local = asyncio.run(local_run())
    finally:
        assert daemon.terminate() == 0
        sim.kill()

    sim, remote_pty = start_sim(remote_dir, SPINS, SPEED)
    daemon_cfg, adapter_cfg = remote_configs(remote_dir, broker.url, remote_pty)
    adapter = start_adapter(adapter_cfg)
    t = topics()
    try:

        async def remote_run() -> list[dict[str, Any]]:
            async with collecting(broker.url) as c:
                # The adapter is up and publishing before the daemon starts: the daemon
                # catches up on the wheel's stream by replay.
                await c.wait_for(
                    lambda tp, b: tp == t.device_events("wheel") and b["seq"] >= 2,
                    what="the adapter's first events",
                )
                daemon = start_daemon(daemon_cfg)
                try:
                    return await play_spins(c, broker.url)
                finally:
                    assert daemon.terminate() == 0

        remote = asyncio.run(remote_run())
    finally:
        assert adapter.terminate() == 0
        sim.kill()

    assert record(remote, remote_pty) == record(local, local_pty)
    # The wheel's driver runs in the daemon only when its adapter is the daemon's own.
    assert set(drivers_started(local)) == {"wheel"}
    assert drivers_started(remote) == {}
    assert [b["type"] for b in local].count("roulette.result") == 2
    # The daemon keeps the wheel's stream with the adapter's own seq.
    kept = device_stream(remote_dir / "journal.db")
    served = device_stream(remote_dir / "adapter-RL-01-wheel.db")
    assert kept and [b["seq"] for b in kept] == list(range(1, len(kept) + 1))
    assert kept == served[: len(kept)]


def test_a_killed_adapter_halts_the_table_until_it_is_back(broker, tmp_path: Path) -> None:
    sim, pty = start_sim(tmp_path, {"pockets": 37, "steps": [{"idle": 60000}]}, SPEED)
    daemon_cfg, adapter_cfg = remote_configs(tmp_path, broker.url, pty)
    adapter = start_adapter(adapter_cfg)
    daemon = start_daemon(daemon_cfg)
    t = topics()

    async def run() -> None:
        nonlocal adapter
        async with collecting(broker.url) as c:
            online = await c.event("device.online")
            await c.event("device.identified")
            await open_table(broker.url)
            await c.event("table.opened")
            adapter.proc.kill()  # SIGKILL: no word from it, only the broker's last will
            adapter.kill()
            will = await c.wait_for(
                lambda tp, b: tp == t.device_status("wheel") and b["online"] is False,
                what="the adapter's last will",
            )
            assert will["reason"] == "connection lost"
            offline = await c.event("device.offline", lambda b: b["source"] == "wheel")
            assert "adapter offline" in offline["data"]["reason"]
            halted = await c.event("table.halted")
            assert halted["data"]["code"] == "device_offline"
            assert halted["data"]["device"] == "wheel"
            refused = await command(broker.url, "resume", {"reason": "adapter gone"})
            assert not refused["ok"], "no resume while the wheel is not heard"

            adapter = start_adapter(adapter_cfg)
            back = await c.event(
                "device.online", lambda b: b["source"] == "wheel" and b["seq"] > offline["seq"]
            )
            assert back["data"]["port"] == online["data"]["port"]
            await c.wait_for(
                lambda tp, b: (
                    tp == t.device("wheel") and b["online"] is True and b["adapter"] == "remote"
                ),
                what="the wheel available again",
            )
            reply = await command(broker.url, "resume", {"reason": "adapter restarted"})
            assert reply["ok"], reply
            await c.event("table.resumed")

    try:
        asyncio.run(run())
    finally:
        assert daemon.terminate() == 0
        adapter.terminate()
        sim.kill()


def test_events_the_daemon_missed_are_filled_in_by_replay(broker, tmp_path: Path) -> None:
    scenario = {
        "pockets": 37,
        "seed": 3,
        "steps": [{"idle": 60}, {"spin": {"number": "8", "direction": "cw"}}, {"idle": 6000}],
    }
    sim, pty = start_sim(tmp_path, scenario, SPEED)
    daemon_cfg, adapter_cfg = remote_configs(tmp_path, broker.url, pty)
    adapter = start_adapter(adapter_cfg)
    daemon = start_daemon(daemon_cfg)
    t = topics()

    async def run() -> None:
        nonlocal daemon
        async with collecting(broker.url) as c:
            await c.event("device.identified")
            assert daemon.terminate() == 0
            stopped = await c.event("daemon.stopped")
            # While the daemon is down the wheel spins; the adapter publishes to no one.
            missed = await c.wait_for(
                lambda tp, b: tp == t.device_events("wheel") and b["type"] == "wheel.number",
                what="the spin while the daemon is down",
            )
            assert not [b for b in c.events(t.events) if b["type"] == "wheel.number"]
            daemon = start_daemon(daemon_cfg)
            started = await c.event("daemon.started", lambda b: b["seq"] > stopped["seq"])
            number = await c.event("wheel.number", lambda b: b["seq"] > started["seq"])
            assert number["data"] == missed["data"]
            # The restarted engine counts the wheel as not seen: the adapter says it again.
            announced = await c.event("device.online", lambda b: b["seq"] > started["seq"])
            assert announced["data"]["announced"] is True

    try:
        asyncio.run(run())
    finally:
        assert daemon.terminate() == 0
        assert adapter.terminate() == 0
        sim.kill()
    kept = device_stream(tmp_path / "journal.db")
    served = device_stream(tmp_path / "adapter-RL-01-wheel.db")
    # The daemon's copy is the adapter's stream without a gap, the missed spin in it; the
    # adapter may have said more after the daemon stopped (the next start replays it).
    assert [b["seq"] for b in kept] == list(range(1, len(kept) + 1))
    assert kept == served[: len(kept)]
    assert any(b["type"] == "wheel.number" for b in kept)
    assert len(served) - len(kept) <= 2


# ----- the daemon's side on its own: order, duplicates, bad input (no processes) -----


def _remote(tmp: Path, got: list[Any]) -> Any:
    from datetime import UTC, datetime

    from floord.adapters.remote import RemoteDevice
    from floord.profiles import load_profile

    return RemoteDevice(
        site="test-casino",
        table="RL-01",
        device="wheel",
        profile=load_profile("cammegh-ss2"),
        topics=topics(),
        journal=Journal(tmp / "daemon.db"),
        sink=got.append,
        clock=lambda: datetime(2026, 1, 2, tzinfo=UTC),
        url="mqtt://127.0.0.1:1",
        username=None,
        password=None,
    )


def _envelope(seq: int, etype: str = "wheel.idle", **over: Any) -> dict[str, Any]:
    body = {
        "v": 1,
        "site": "test-casino",
        "table": "RL-01",
        "seq": seq,
        "ts": f"2026-01-02T03:04:{seq:02d}.000000Z",
        "type": etype,
        "source": "wheel",
        "data": {"spin": seq},
        "rule": None,
        "round": None,
    }
    return {**body, **over}


def test_remote_events_reach_the_bus_in_seq_order_once(tmp_path: Path) -> None:
    got: list[Any] = []
    remote = _remote(tmp_path, got)
    for seq in (2, 3, 1, 2, 4):
        remote._accept(remote._read_envelope(_envelope(seq)))
    assert [(r.device_seq, r.event.data["spin"]) for r in got] == [(s, s) for s in (1, 2, 3, 4)]
    assert got[0].ts.isoformat() == "2026-01-02T03:04:01+00:00"
    assert [json.loads(b)["seq"] for b in remote._journal.read_range(STREAM, 1, 9)] == [1, 2, 3, 4]
    assert remote._journal.backlog([STREAM]) == 0  # the adapter published them, not us
    remote._journal.close()


def test_remote_refuses_what_is_not_its_stream(tmp_path: Path) -> None:
    from floord.adapters.remote import BadEnvelope

    got: list[Any] = []
    remote = _remote(tmp_path, got)
    for bad in (
        _envelope(1, source="shoe"),
        _envelope(0),
        _envelope(1, etype="wheel.teleported"),
        {"seq": 1},
    ):
        with pytest.raises(BadEnvelope):
            remote._read_envelope(bad)
    remote._accept(remote._read_envelope(_envelope(1)))
    assert [r.device_seq for r in got] == [1]
    remote._journal.close()


def test_adapter_requests_are_read_strictly() -> None:
    from floord.adapters.link import read_command, read_replay_request

    assert read_command(b'{"v":1,"id":"a","name":"respin","args":{}}', "wheel").name == "respin"
    for raw in (
        b"[]",
        b'{"v":2,"id":"a","name":"respin"}',
        b'{"v":1,"id":"a","name":""}',
        b'{"v":1,"id":"a","name":"x","args":[]}',
        b'{"v":1,"name":"x","extra":1}',
    ):
        with pytest.raises(ValueError):
            read_command(raw, "wheel")
    assert read_replay_request(b'{"v":1,"id":"r","from_seq":3}')["from_seq"] == 3
    for raw in (
        b'{"v":1,"id":"r","from_seq":0}',
        b'{"v":1,"id":"r","from_seq":true}',
        b'{"v":1,"id":"r","from_seq":1,"announce":"yes"}',
        b"not json",
    ):
        with pytest.raises(ValueError):
            read_replay_request(raw)
