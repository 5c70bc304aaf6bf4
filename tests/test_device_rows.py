"""A local device's rows in its table's commit (`floord.adapters.device_rows`): one
transaction for a frame's row on the device's stream and the table's record of it, the
rows numbered by the journal in that transaction, in the order the runner takes them;
written even when the table records nothing of them; on no stream when the commit fails
(named with `device_seq` 0)."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import structlog
from table_turns import finish, take
from test_engine_support import WHEEL
from test_group_commit import drive
from test_journal_disk_full import connect, make_runner, table_events

from floord.adapters.device_rows import DeviceRows
from floord.adapters.local import DeviceAdapter, Received
from floord.contract import Envelope, EventType, format_ts
from floord.events import DeviceEvent
from floord.journal.store import DISK_FULL, Journal
from floord.profiles import load_profile
from floord.table.bus import Tick
from floord.table.runner import TableRunner

pytestmark = pytest.mark.unit

NOW = datetime(2024, 3, 5, 15, 0, tzinfo=UTC)


def stream_events(path: Path, stream: str) -> list[dict[str, Any]]:
    return table_events(path, stream)  # any stream, by seq


def counted(journal: Journal) -> list[str]:
    """The runner's commits, by kind: `group` (device rows with it) or `table`."""
    commits: list[str] = []
    group, many = journal.append_group_async, journal.append_many_async

    async def append_group_async(*args: Any, **kw: Any) -> Any:
        commits.append("group")
        return await group(*args, **kw)

    async def append_many_async(*args: Any, **kw: Any) -> Any:
        commits.append("table")
        return await many(*args, **kw)

    journal.append_group_async = append_group_async  # type: ignore[method-assign]
    journal.append_many_async = append_many_async  # type: ignore[method-assign]
    return commits


def frame(runner: TableRunner, rows: DeviceRows, clock: Any, n: int, pad: int = 0) -> Received:
    """What an adapter with `in_table_commit` hands its table: the event and its row."""
    now = clock.step()
    event = DeviceEvent(EventType.DEVICE_PROTOCOL_ERROR, {"reason": f"bad {n}", "raw": "x" * pad})

    def build(seq: int) -> Envelope:
        return Envelope(site="s1", table=runner.table, seq=seq, ts=format_ts(now),
                        type=str(event.type), source=WHEEL, data=event.data)  # fmt: skip

    return Received(WHEEL, event, now, 0, rows.row(build))


def test_a_frame_is_one_commit_for_its_row_and_the_tables_record(tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    runner, journal, clock, link = make_runner(path)
    stream = f"{runner.table}/devices/{WHEEL}"
    try:
        connect(runner, clock)
        rows = DeviceRows(stream, structlog.get_logger())
        commits = counted(journal)
        frames = [frame(runner, rows, clock, n) for n in range(1, 4)]
        for item in frames:
            runner.bus.put(item)
        asyncio.run(drive(runner))
        assert commits == ["group"]
        # The journal numbered them in the commit, and the numbers were reported back.
        assert [item.row.seq for item in frames if item.row is not None] == [1, 2, 3]
        device = stream_events(path, stream)
        assert [(e["seq"], e["data"]["reason"]) for e in device] == [
            (1, "bad 1"), (2, "bad 2"), (3, "bad 3")
        ]  # fmt: skip
        recorded = [e for e in table_events(path, runner.table)
                    if e["type"] == EventType.DEVICE_PROTOCOL_ERROR]  # fmt: skip
        assert [e["data"]["reason"] for e in recorded] == ["bad 1", "bad 2", "bad 3"]
        # The next frame goes on where the journal is, and the watchers are told once.
        before = link.notified
        runner.bus.put(frame(runner, rows, clock, 4))
        asyncio.run(drive(runner))
        assert [e["seq"] for e in stream_events(path, stream)] == [1, 2, 3, 4]
        assert commits == ["group", "group"] and link.notified == before + 1
    finally:
        journal.close()


def test_rows_the_table_records_nothing_of_are_written_on_their_own(tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    runner, journal, clock, _ = make_runner(path)
    stream = f"{runner.table}/devices/{WHEEL}"
    try:
        connect(runner, clock)
        rows = DeviceRows(stream, structlog.get_logger())
        finish(runner, clock.step())  # `daemon.stopped`: the table's record is closed
        last = table_events(path, runner.table)[-1]
        runner.bus.put(frame(runner, rows, clock, 1))
        asyncio.run(drive(runner))
        assert [e["data"]["reason"] for e in stream_events(path, stream)] == ["bad 1"]
        assert table_events(path, runner.table)[-1] == last
        asyncio.run(asyncio.wait_for(rows.settled(), 1))
    finally:
        journal.close()


def test_a_failed_commit_leaves_no_row_and_names_it_with_seq_0(tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    runner, journal, clock, _ = make_runner(path)
    stream = f"{runner.table}/devices/{WHEEL}"
    try:
        connect(runner, clock)
        rows = DeviceRows(stream, structlog.get_logger())
        journal._db.execute("PRAGMA max_page_count = 1")  # full: no new page
        for n in range(1, 4):
            runner.bus.put(frame(runner, rows, clock, n, pad=3000))
        asyncio.run(drive(runner))
        assert runner.record_failure_code == DISK_FULL
        assert stream_events(path, stream) == []
        journal._db.execute("PRAGMA max_page_count = 1000000")
        take(runner, Tick(clock.step()))
        assert runner.record_failure is None
        [halt] = [e for e in table_events(path, runner.table) if e["type"] == "table.halted"]
        assert [i["device_seq"] for i in halt["data"]["unrecorded_inputs"]] == [0, 0, 0]
        # Numbered again from the stream's head: no gap, nothing reused.
        runner.bus.put(frame(runner, rows, clock, 4))
        asyncio.run(drive(runner))
        assert [(e["seq"], e["data"]["reason"]) for e in stream_events(path, stream)] == [
            (1, "bad 4")
        ]
    finally:
        journal.close()


def test_the_journal_has_no_row_of_a_group_it_refused(tmp_path: Path) -> None:
    """`Journal.append_group` is all or nothing across the streams it writes."""
    journal = Journal(tmp_path / "journal.db")

    def build(stream: str, ok: bool = True) -> Any:
        def envelope(seq: int) -> Envelope:
            if not ok:
                raise ValueError("cannot build")
            return Envelope(site="s1", table="R01", seq=seq, ts="2026-01-01T00:00:00.000Z",
                            type="wheel.idle", source="wheel", data={})  # fmt: skip

        return envelope

    try:
        device = "R01/devices/wheel"
        written, [rows] = journal.append_group(
            "R01", [build("R01")], before=[(device, [build(device)])]
        )
        assert [e.seq for e in written] == [1] and [e.seq for e in rows] == [1]
        try:
            journal.append_group(
                "R01", [build("R01", ok=False)], before=[(device, [build(device)])]
            )
        except Exception as exc:  # the journal's error, naming the build
            assert "cannot build" in str(exc)
        else:
            raise AssertionError("a group with a failing build was stored")
        assert journal.last_seq(device) == 1 and journal.last_seq("R01") == 1
    finally:
        journal.close()
    db = sqlite3.connect(tmp_path / "journal.db")
    assert db.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 2
    db.close()


def test_an_adapter_in_its_tables_commit_hands_on_the_row_and_writes_nothing(
    tmp_path: Path,
) -> None:
    journal = Journal(tmp_path / "journal.db")
    received: list[Received] = []
    adapter = DeviceAdapter(
        site="s1", table="BJ-01", device="reader", port="/dev/pts/97",
        profile=load_profile("ref-card-reader"), driver_options={}, journal=journal,
        sink=received.append, clock=lambda: NOW, in_table_commit=True,
    )  # fmt: skip
    stream = "BJ-01/devices/reader"

    async def scenario() -> None:
        adapter._went_online()  # what the adapter does when the device first speaks
        [item] = received
        assert item.row is not None and item.device_seq == 0
        assert journal.last_seq(stream) == 0  # the table's commit writes it
        waiting = asyncio.create_task(adapter._events.settled())
        await asyncio.sleep(0.01)
        assert not waiting.done()  # not on the record yet
        _, [rows] = journal.append_group("BJ-01", [], before=[(stream, [item.row.build])])
        item.row.rows.written(len(rows))
        await asyncio.wait_for(waiting, 1)

    try:
        asyncio.run(scenario())
        assert [json.loads(b)["type"] for b in journal.read_range(stream, 1, 10)] == [
            EventType.DEVICE_ONLINE
        ]
    finally:
        journal.close()
