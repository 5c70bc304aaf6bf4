"""A full disk halts the table (fail closed) with `journal_disk_full`; it recovers alone.

The full disk is simulated with `PRAGMA max_page_count` on the journal's own connection:
SQLite then fails a write that needs a new page with SQLITE_FULL, exactly as it does
when the file system has no room left.
"""

from __future__ import annotations

import asyncio
import errno
import json
import sqlite3
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from table_turns import take
from test_engine_support import POCKETS, WHEEL, Clock, make_table

from floord.adapters.local import Received
from floord.contract import EventType
from floord.events import DeviceEvent
from floord.journal.audit import verify_journal
from floord.journal.store import DISK_FULL, FAILURE, Journal, JournalError, failure_code
from floord.operator.commands import build_command
from floord.table.bus import TableBus, Tick
from floord.table.runner import TableRunner

pytestmark = pytest.mark.unit

KEYS = {"fp1": ("floorperson", b"fp1-secret"), "dl1": ("dealer", b"dl1-secret")}


class FakeLink:
    """The runner's port (`floord.table.port`), keeping what it is told: how often the
    record had news, and each command's result."""

    def __init__(self) -> None:
        self.notified = 0
        self.results: list[dict[str, Any]] = []

    def recorded(self) -> None:
        self.notified += 1

    def state_changed(self) -> None:
        pass

    async def publish_result(self, payload: dict[str, Any]) -> None:
        self.results.append(payload)

    async def publish_replay(self, payloads: list[str]) -> None:
        raise AssertionError("no replay in these tests")


def make_runner(path: Path) -> tuple[TableRunner, Journal, Clock, FakeLink]:
    table = make_table()
    journal = Journal(path)
    link = FakeLink()
    runner = TableRunner(
        site="s1",
        table=table.engine.table_id,
        engine=table.engine,
        journal=journal,
        bus=TableBus(),
        adapters={},
        operators=KEYS,
        clock=lambda: table.clock.now,
        committed=link,
    )
    return runner, journal, table.clock, link


def device(runner: TableRunner, clock: Clock, etype: str, data: dict[str, Any]) -> None:
    take(runner, Received(WHEEL, DeviceEvent(EventType(etype), data), clock.step(), 0))


def connect(runner: TableRunner, clock: Clock) -> None:
    device(runner, clock, EventType.DEVICE_ONLINE, {"port": "/dev/pts/9"})
    identity = {
        "maker": "Cammegh",
        "model": "SS2",
        "firmware": "V2.50",
        "version_text": "*V V2.50",
        "pockets": POCKETS["single_zero"],
        "serial": None,
    }
    device(runner, clock, EventType.DEVICE_IDENTIFIED, identity)


def table_events(path: Path, table: str) -> list[dict[str, Any]]:
    db = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    try:
        rows = db.execute(
            "SELECT body FROM events WHERE stream = ? ORDER BY seq", (table,)
        ).fetchall()
    finally:
        db.close()
    return [json.loads(r[0]) for r in rows]


async def command(runner: TableRunner, clock: Clock, name: str, by: str, args: dict) -> dict:
    now: datetime = clock.step()
    body = build_command(name, by, args, KEYS[by][1], now)
    await runner.on_command(json.dumps(body).encode())
    await asyncio.gather(*list(runner.effects.tasks))
    assert isinstance(runner.committed, FakeLink)
    return runner.committed.results[-1]


def test_disk_full_halts_then_the_halt_is_recorded_when_space_returns(tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    runner, journal, clock, link = make_runner(path)
    try:
        connect(runner, clock)
        assert runner.record_failure is None
        table = runner.table
        recorded = len(table_events(path, table))

        # The disk fills: no write may take a new page.
        journal._db.execute("PRAGMA max_page_count = 1")  # clamps to the current size
        for i in range(500):
            raw = repr(f"garbled frame {i:04d} " + "x" * 60)[:80]
            device(runner, clock, EventType.DEVICE_PROTOCOL_ERROR, {"reason": "bad", "raw": raw})
            if runner.record_failure:
                break
        assert runner.record_failure and "database or disk is full" in runner.record_failure
        assert runner.record_failure_code == DISK_FULL
        state = runner.state()
        assert state["state"] == "halted"
        assert state["halt_reasons"][-1]["code"] == DISK_FULL
        assert runner.engine.snapshot()["halt_reasons"][0]["code"] == DISK_FULL

        # Still full: a tick tries again, records nothing, and the table stays halted.
        full_rows = len(table_events(path, table))
        take(runner, Tick(clock.step()))
        assert runner.record_failure and len(table_events(path, table)) == full_rows
        assert full_rows > recorded

        # Space returns: the next tick records the halt and tells MQTT, with no device
        # event needed.
        journal._db.execute("PRAGMA max_page_count = 1000000")
        notified = link.notified
        take(runner, Tick(clock.step()))
        assert runner.record_failure is None
        assert link.notified > notified
        events = table_events(path, table)
        halts = [e for e in events[full_rows:] if e["type"] == "table.halted"]
        assert len(halts) == 1 and halts[0]["data"]["code"] == DISK_FULL
        assert "database or disk is full" in halts[0]["data"]["detail"]
        assert runner.state()["state"] == "halted"
        assert runner.state()["chain"] == {"seq": events[-1]["seq"], "hash": events[-1]["hash"]}

        # Latched: device events and ticks do not lift it; a dealer may not resume.
        connect(runner, clock)
        take(runner, Tick(clock.step()))
        assert runner.engine.public_state()["state"] == "halted"
        refused = asyncio.run(command(runner, clock, "resume", "dl1", {"reason": "space"}))
        assert refused["ok"] is False
        assert runner.engine.public_state()["state"] == "halted"
        accepted = asyncio.run(command(runner, clock, "resume", "fp1", {"reason": "disk freed"}))
        assert accepted == {"id": accepted["id"], "ok": True, "error": None}
        assert runner.engine.public_state()["state"] == "closed"
        assert table_events(path, table)[-1]["type"] == "table.resumed"
    finally:
        journal.close()
    report = verify_journal(path)
    assert report.broken is None and report.events == len(table_events(path, table))


def test_another_write_error_halts_with_journal_failure(tmp_path: Path) -> None:
    runner, journal, clock, _ = make_runner(tmp_path / "journal.db")
    connect(runner, clock)
    journal.close()  # every write now fails, and not for want of space
    device(runner, clock, EventType.DEVICE_PROTOCOL_ERROR, {"reason": "bad", "raw": "'x'"})
    assert runner.record_failure_code == FAILURE
    assert runner.state()["halt_reasons"][-1]["code"] == FAILURE
    assert "chain" not in runner.state()  # the head cannot be read either
    take(runner, Tick(clock.step()))
    assert runner.record_failure is not None


def test_failure_codes() -> None:
    assert failure_code(sqlite3.OperationalError("database or disk is full")) == DISK_FULL
    assert failure_code(OSError(errno.ENOSPC, "No space left on device")) == DISK_FULL
    assert failure_code(OSError(errno.EIO, "I/O error")) == FAILURE
    assert failure_code(sqlite3.OperationalError("disk I/O error")) == FAILURE
    assert failure_code(JournalError("x", DISK_FULL)) == DISK_FULL
    assert JournalError("x").code == FAILURE
