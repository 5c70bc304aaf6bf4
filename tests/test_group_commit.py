"""Group commit: the runner takes every input waiting on its bus through the engine in
order and commits them ONCE; a failed commit puts the engine back to the last committed
state and names every refused input in the halt; a command's id goes in its record's
transaction."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import structlog
from table_turns import take
from test_engine_support import WHEEL
from test_journal_disk_full import KEYS, FakeLink, command, connect, make_runner, table_events

from floord.adapters.local import Received
from floord.adapters.stream_appends import StreamAppends
from floord.contract import Envelope, EventType
from floord.events import DeviceEvent
from floord.journal.store import DISK_FULL, Journal
from floord.operator.commands import build_command
from floord.table.bus import CommandArrived, Tick
from floord.table.runner import TableRunner

pytestmark = pytest.mark.unit


class CountingJournal:
    """Counts the runner's commits (appends to the table stream) on the real journal."""

    def __init__(self, journal: Journal) -> None:
        self.journal = journal
        self.commits = 0
        real = journal.append_many_async

        async def append_many_async(stream: str, builds: list[Any], **kw: Any) -> Any:
            self.commits += 1
            return await real(stream, builds, **kw)

        journal.append_many_async = append_many_async  # type: ignore[method-assign]


async def drive(runner: TableRunner) -> None:
    """Run the runner until its bus is empty and it is idle (its turn lock free: every
    input it took is committed, not only the one in flight), then stop it."""
    task = asyncio.create_task(runner.run())
    for _ in range(200):
        await asyncio.sleep(0.01)
        if runner.bus.pending() == 0 and not runner._turn.locked():
            break
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


def commit_protocol_errors(tmp_path: Path, count: int, *, tick: bool = False) -> int:
    """`count` protocol errors from the wheel (and, with `tick`, a tick behind them)
    waiting on a connected runner's bus, taken: checks they are on the table's record in
    order with unbroken seqs, and returns how many commits the runner made of them."""
    path = tmp_path / "journal.db"
    runner, journal, clock, _ = make_runner(path)
    try:
        connect(runner, clock)
        before = len(table_events(path, runner.table))
        counting = CountingJournal(journal)
        for n in range(1, count + 1):
            event = DeviceEvent(EventType.DEVICE_PROTOCOL_ERROR, {"reason": f"bad {n}", "raw": ""})
            runner.bus.put(Received(WHEEL, event, clock.step(), n))
        if tick:
            runner.bus.put(Tick(clock.step()))
        asyncio.run(drive(runner))
        events = table_events(path, runner.table)[before:]
        reasons = [e["data"]["reason"] for e in events if e["type"] == "device.protocol_error"]
        assert reasons == [f"bad {n}" for n in range(1, count + 1)]
        assert [e["seq"] for e in events] == list(range(before + 1, before + 1 + len(events)))
        return counting.commits
    finally:
        journal.close()


def test_every_waiting_input_goes_in_one_commit_in_order(tmp_path: Path) -> None:
    assert commit_protocol_errors(tmp_path, 7, tick=True) == 1


def test_a_command_commits_on_its_own_with_its_id(tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    runner, journal, clock, _ = make_runner(path)
    try:
        connect(runner, clock)
        counting = CountingJournal(journal)
        event = DeviceEvent(EventType.DEVICE_PROTOCOL_ERROR, {"reason": "before", "raw": ""})
        runner.bus.put(Received(WHEEL, event, clock.step(), 1))
        body = build_command("close", "fp1", {}, KEYS["fp1"][1], clock.step())
        runner.bus.put(CommandArrived(json.dumps(body).encode()))
        event = DeviceEvent(EventType.DEVICE_PROTOCOL_ERROR, {"reason": "after", "raw": ""})
        runner.bus.put(Received(WHEEL, event, clock.step(), 2))
        asyncio.run(drive(runner))
        # Before the command, the command, after it: three commits, in that order.
        assert counting.commits == 3
        types = [e["type"] for e in table_events(path, runner.table)[-3:]]
        assert types[0] == "device.protocol_error" and types[2] == "device.protocol_error"
        assert types[1].startswith("operator.command")
        assert journal.command_id_used(body["id"])
        # The same command again is a replay, refused.
        again = asyncio.run(command_again(runner, body))
        assert again["ok"] is False and "already used" in again["error"]
    finally:
        journal.close()


async def command_again(runner: TableRunner, body: dict[str, Any]) -> dict[str, Any]:
    await runner.on_command(json.dumps(body).encode())
    await asyncio.gather(*list(runner.effects.tasks))
    assert isinstance(runner.committed, FakeLink)
    return runner.committed.results[-1]


def test_a_failed_group_commit_rolls_back_and_names_every_input(tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    runner, journal, clock, _ = make_runner(path)
    try:
        connect(runner, clock)
        committed = runner.engine.snapshot()
        journal._db.execute("PRAGMA max_page_count = 1")  # full: no new page
        for n in range(1, 6):
            data = {"reason": f"lost {n}", "raw": "x" * 3000}  # needs new pages
            event = DeviceEvent(EventType.DEVICE_PROTOCOL_ERROR, data)
            runner.bus.put(Received(WHEEL, event, clock.step(), n))
        asyncio.run(drive(runner))
        assert runner.record_failure_code == DISK_FULL
        # Back to the committed state, plus the halt (and nothing the group did).
        halted = {"state": "halted", "halt_reasons": runner.engine.snapshot()["halt_reasons"]}
        assert runner.engine.snapshot() == {**committed, **halted}
        assert [r["code"] for r in halted["halt_reasons"]] == [DISK_FULL]
        journal._db.execute("PRAGMA max_page_count = 1000000")
        take(runner, Tick(clock.step()))
        assert runner.record_failure is None
        [halt] = [e for e in table_events(path, runner.table) if e["type"] == "table.halted"]
        named = halt["data"]["unrecorded_inputs"]
        assert [i["device_seq"] for i in named] == [1, 2, 3, 4, 5]
    finally:
        journal.close()


def test_the_command_id_is_in_the_transaction_of_its_record(tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    runner, journal, clock, _ = make_runner(path)
    try:
        connect(runner, clock)
        # The record of the command cannot be written (after the id, in the transaction).
        journal._db.execute(
            "CREATE TEMP TRIGGER no_record BEFORE INSERT ON events "
            "BEGIN SELECT RAISE(ABORT, 'no room for the record'); END"
        )
        result = asyncio.run(command(runner, clock, "open", "fp1", {}))
        assert result["ok"] is False
        assert runner.record_failure and "no room for the record" in runner.record_failure
        journal._db.execute("DROP TRIGGER no_record")
        db = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
        try:
            ids = db.execute("SELECT COUNT(*) FROM command_ids").fetchone()[0]
        finally:
            db.close()
        assert ids == 0  # neither the record nor the id: all or nothing
    finally:
        journal.close()


def test_an_adapter_appends_what_one_read_gave_in_one_transaction(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal.db")
    appends: list[int] = []
    real = journal.append_many_soon

    def append_many_soon(stream: str, builds: list[Any], **kw: Any) -> Any:
        appends.append(len(builds))
        return real(stream, builds, **kw)

    journal.append_many_soon = append_many_soon  # type: ignore[method-assign]
    stream = "R01/devices/wheel"
    heard: list[int] = []

    def build(n: int) -> Any:
        def envelope(seq: int) -> Envelope:
            return Envelope(
                site="s1", table="R01", seq=seq, ts="2026-01-01T00:00:00.000Z",
                type="wheel.idle", source="wheel", data={"n": n},
            )  # fmt: skip

        return envelope

    async def one_read() -> None:
        appends = StreamAppends(journal, stream, structlog.get_logger())
        for n in range(6):  # what a driver decoded from one read, emitted one by one
            appends.add(build(n), heard.append)
        assert heard == []  # nobody hears of an event before it is durable
        await appends.settled()

    try:
        asyncio.run(one_read())
        assert appends == [6]  # one transaction
        assert heard == [1, 2, 3, 4, 5, 6]
        assert [json.loads(r)["data"]["n"] for r in journal.read_range(stream, 1, 6)] == list(
            range(6)
        )
    finally:
        journal.close()
