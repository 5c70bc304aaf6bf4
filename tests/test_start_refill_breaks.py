"""A recorded event a table's live tests cannot be refilled from, anywhere on its record:
that table halts for its record (`journal_integrity`, the row named), where the whole
daemon used to refuse to start (`floord.processes.table_watchers`)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from test_journal_integrity import TABLE, events, start

from floord.contract import Envelope, EventType
from floord.journal.store import Journal

pytestmark = pytest.mark.unit

TS = "2026-12-07T10:00:00.000000Z"


def result(number: str) -> Callable[[int], Envelope]:
    data = {"number": number, "spin": 1, "wheel": "single_zero"}
    return lambda seq: Envelope("s1", TABLE, seq, TS, EventType.ROULETTE_RESULT, "engine", data)


def played(tmp: Path, numbers: list[str], after: int) -> tuple[Path, int]:
    """A table's record holding results of `numbers`, `after` more events behind them
    (so they are out of the start check's tail); returns the journal and the seq of the
    first result."""
    start(tmp, 0).journal.close()
    path = tmp / "journal.db"
    journal = Journal(path)
    try:
        state = journal.load_snapshot(TABLE)
        assert state is not None
        first = journal.last_seq(TABLE) + 1
        builds = [result(n) for n in numbers]
        builds += [result("17") for _ in range(after)]
        journal.append_many(TABLE, builds, snapshot=(TABLE, state))
    finally:
        journal.close()
    return path, first


def halt_of(tmp: Path) -> list[dict[str, str]]:
    daemon = start(tmp, 5)
    try:
        state = daemon.tables[TABLE].runner.state()
    finally:
        daemon.journal.close()
    return list(state["halt_reasons"]) if state["state"] == "halted" else []


def test_a_result_no_wheel_has_halts_its_table_naming_it(tmp_path: Path) -> None:
    """Chained as floord would chain it (a forgery the chain cannot see): the refill
    names it, and the table, not the box, stops."""
    path, first = played(tmp_path, ["5", "-1", "7"], after=0)
    [reason] = halt_of(tmp_path)
    assert reason["code"] == "journal_integrity"
    assert f"seq {first + 1}: unreadable" in reason["detail"] and "'-1'" in reason["detail"]
    [recorded] = [e for e in events(path) if e["type"] == EventType.JOURNAL_INTEGRITY]
    assert recorded["data"]["breaks"][0]["seq"] == first + 1


def test_a_row_that_is_no_json_behind_the_tail_halts_its_table(tmp_path: Path) -> None:
    path, first = played(tmp_path, ["5"], after=100)
    db = sqlite3.connect(path)
    try:
        db.execute(
            "UPDATE events SET body = '{not json' WHERE stream = ? AND seq = ?", (TABLE, first)
        )
        db.commit()
    finally:
        db.close()
    [reason] = halt_of(tmp_path)
    assert reason["code"] == "journal_integrity"
    assert f"seq {first}: unreadable" in reason["detail"] and "is not JSON" in reason["detail"]

    # Recorded once: the next start logs it as known and does not record it again.
    halt_of(tmp_path)
    db = sqlite3.connect(path)
    try:
        [(recorded,)] = db.execute(
            "SELECT count(*) FROM events WHERE stream = ? AND body LIKE ?",
            (TABLE, '%"type":"journal.integrity"%'),
        ).fetchall()
    finally:
        db.close()
    assert recorded == 1
