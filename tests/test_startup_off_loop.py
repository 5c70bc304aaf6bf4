"""Start-up never waits for SQLite on the event loop.

The journal's thread is held by a job that waits on a `threading.Event`; the daemon's
start (the journal's open, each table's snapshot, start check and start record) and a
remote adapter's connection (its last will) must let the loop go on meanwhile, and a
table serves nothing before its start check and start record are done. Nothing is timed:
the loop proves it ran by turning while the thread is held, and a valve releases a
thread held too long so that a loop that did wait fails the test instead of hanging it.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest
import yaml
from support import Broker
from table_turns import restore

from floord.adapters.link import AdapterLink
from floord.config.load import load_config
from floord.contract import EventType, Topics
from floord.journal.store import Journal
from floord.processes.daemon import Daemon

pytestmark = pytest.mark.system

TABLE = "RL-01"
VALVE_S = 20.0  # only ever reached by a loop that waits for the journal


class Held:
    """The journal's thread held by a job until `release()` (or the valve)."""

    def __init__(self, journal: Journal) -> None:
        self._event = threading.Event()
        self.valve = False
        self.job = journal.submit(self._hold)

    def _hold(self) -> None:
        if not self._event.wait(VALVE_S):
            self.valve = True

    def release(self) -> None:
        self._event.set()


def _config(tmp: Path, url: str, port: str) -> Path:
    (tmp / "fp.key").write_text("secret\n")
    body = {
        "site": "s1",
        "broker": {"url": url},
        "journal": "journal.db",
        "operators": [{"id": "FP-1001", "role": "floorperson", "key_file": "fp.key"}],
        "tables": [
            {
                "id": TABLE,
                "game": "roulette",
                "rules": {"wheel": "single_zero"},
                "devices": [{"id": "wheel", "profile": "cammegh-ss2", "port": port}],
            }
        ],
    }
    path = tmp / "floord.yaml"
    path.write_text(yaml.safe_dump(body))
    return path


def _types(path: Path) -> list[str]:
    db = sqlite3.connect(path)
    try:
        rows = db.execute(
            "SELECT body FROM events WHERE stream = ? ORDER BY seq", (TABLE,)
        ).fetchall()
    finally:
        db.close()
    return [json.loads(r[0])["type"] for r in rows]


async def _turns(n: int) -> None:
    """The loop turns `n` times (a loop blocked in a SQLite call would not)."""
    for _ in range(n):
        await asyncio.sleep(0)


async def _until(what: str, ok: Any) -> None:
    async with asyncio.timeout(30):  # a bound, not a measure
        while not ok():
            await asyncio.sleep(0.01)


def _run_daemon_held(config: Path) -> tuple[dict[str, Any], Path]:
    """Run the daemon with its journal's thread held from before its first table's
    restore; what was seen while held, and the journal's path."""
    seen: dict[str, Any] = {}

    async def scenario() -> None:
        daemon = await Daemon.open(load_config(config))
        unit = daemon.tables[TABLE]
        held = Held(daemon.journal)
        running = asyncio.create_task(daemon.run())
        try:
            await _turns(200)
            seen["valve"] = held.valve
            seen["served_while_held"] = bool(unit.tasks)
            seen["recorded_while_held"] = daemon.journal.path.exists() and _types(
                daemon.journal.path
            )
            held.release()
            await _until("the table served", lambda: bool(unit.tasks))
            seen["state"] = unit.runner.state()
        finally:
            held.release()
            daemon.request_stop()
            await running

    asyncio.run(scenario())
    return seen, config.parent / "journal.db"


def test_the_loop_goes_on_while_a_table_restores_and_the_table_waits(
    broker: Broker, tmp_path: Path
) -> None:
    master, slave = os.openpty()
    try:
        seen, journal = _run_daemon_held(_config(tmp_path, broker.url, os.ttyname(slave)))
    finally:
        os.close(master)
        os.close(slave)
    assert seen["valve"] is False, "the loop waited for the journal's thread"
    assert seen["served_while_held"] is False, "the table was served before its restore"
    assert EventType.DAEMON_STARTED not in seen["recorded_while_held"]
    assert seen["state"]["state"] == "closed"
    types = _types(journal)
    assert types[0] == EventType.DAEMON_STARTED and types[-1] == EventType.DAEMON_STOPPED
    assert EventType.JOURNAL_INTEGRITY not in types


def test_a_broken_record_still_halts_the_table_on_the_loops_start(
    broker: Broker, tmp_path: Path
) -> None:
    """The start check, awaited off the loop, fails closed: a broken record halts."""
    master, slave = os.openpty()
    try:
        config = _config(tmp_path, broker.url, os.ttyname(slave))
        first = Daemon(load_config(config))
        restore(first)
        first.journal.close()
        path = tmp_path / "journal.db"
        db = sqlite3.connect(path)
        [body] = db.execute(
            "SELECT body FROM events WHERE stream = ? AND seq = 1", (TABLE,)
        ).fetchone()
        edited = json.loads(body)
        edited["data"]["version"] = "0.0.0-edited"
        db.execute(
            "UPDATE events SET body = ? WHERE stream = ? AND seq = 1", (json.dumps(edited), TABLE)
        )
        db.commit()
        db.close()
        seen, journal = _run_daemon_held(config)
    finally:
        os.close(master)
        os.close(slave)
    assert seen["valve"] is False and seen["served_while_held"] is False
    assert seen["state"]["state"] == "halted"
    [reason] = seen["state"]["halt_reasons"]
    assert reason["code"] == "journal_integrity" and "seq 1: edited" in reason["detail"]
    assert _types(journal).count(EventType.JOURNAL_INTEGRITY) == 1


def test_an_adapter_links_last_will_reads_nothing_on_the_loop(
    broker: Broker, tmp_path: Path
) -> None:
    """The will is made with every client, on the loop: from the head read before."""
    journal = Journal(tmp_path / "adapter.db")
    link = AdapterLink(
        url=broker.url,
        username=None,
        password=None,
        topics=Topics("floor", "s1", TABLE),
        device="wheel",
        journal=journal,
        on_command=lambda _command: asyncio.sleep(0),
        announce=lambda: True,
        device_online=lambda: False,
        heartbeat_s=60.0,
    )

    async def scenario() -> tuple[bool, dict[str, Any]]:
        held = Held(journal)
        try:
            client = link._make_client()
            await _turns(10)
            # paho keeps the will it was given (aiomqtt hands it over as it is made)
            return held.valve, json.loads(client._client._will_payload)
        finally:
            held.release()

    try:
        valve, will = asyncio.run(scenario())
    finally:
        journal.close()
    assert valve is False
    assert will["online"] is False and will["reason"] == "connection lost"
    assert will["last_seq"] == 0 and will["first_ts"] is None
