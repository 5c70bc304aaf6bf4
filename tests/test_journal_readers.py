"""The journal's readers for the tools (`floord.journal.readers`): real SQLite files, a
journal written by a live `Journal` in the same process, another program's database."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from floord.config.journal_path import journal_problems
from floord.contract import Envelope, format_ts
from floord.journal.errors import JournalError
from floord.journal.readers import (
    FileSchema,
    ReadOnlyFailed,
    read_schema,
    schema_version,
    stream_rows,
)
from floord.journal.store import SCHEMA_VERSION, Journal

pytestmark = pytest.mark.unit

WHEN = format_ts(datetime(2026, 12, 4, 12, 0, tzinfo=UTC))


def _append(journal: Journal, stream: str, number: str) -> None:
    journal.append(
        stream,
        lambda seq: Envelope(
            "casino-1", "RL-01", seq, WHEN, "roulette.result", "engine", {"number": number}
        ),
    )


def _foreign(path: Path) -> Path:
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY)")
    db.commit()
    db.close()
    return path


def test_a_stream_is_read_beside_its_writer_in_the_same_process(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal.db")
    try:
        _append(journal, "RL-01", "17")
        _append(journal, "RL-02", "3")
        _append(journal, "RL-01", "0")
        rows = list(stream_rows(journal.path, "RL-01"))
        assert [seq for seq, _ in rows] == [1, 2]
        assert [json.loads(body)["data"]["number"] for _, body in rows] == ["17", "0"]
        # The reader's connection came and went; the writer's locks are SQLite's to keep.
        _append(journal, "RL-01", "32")
        assert [seq for seq, _ in stream_rows(journal.path, "RL-01")] == [1, 2, 3]
        assert list(stream_rows(journal.path, "RL-09")) == []
    finally:
        journal.close()


def test_a_journal_s_schema_and_version(tmp_path: Path) -> None:
    Journal(tmp_path / "journal.db").close()
    schema = read_schema(tmp_path / "journal.db")
    assert {"meta", "streams", "events", "snapshots", "command_ids"} <= schema.tables
    assert schema.version == str(SCHEMA_VERSION)
    assert schema_version(tmp_path / "journal.db") == str(SCHEMA_VERSION)


def test_another_program_s_database_is_told_apart_and_left_as_it_was(tmp_path: Path) -> None:
    path = _foreign(tmp_path / "orders.db")
    before = path.read_bytes()
    assert read_schema(path).tables == frozenset({"orders"})
    assert read_schema(path).version is None
    with pytest.raises(ReadOnlyFailed, match="cannot read stream 'RL-01'") as raised:
        list(stream_rows(path, "RL-01"))
    assert not raised.value.opening and "no such table: events" in raised.value.reason
    with pytest.raises(JournalError, match="cannot read its schema version: no such table"):
        schema_version(path)
    [problem] = journal_problems(tmp_path / "floord.yaml", "journal", path)
    assert problem.endswith("(a SQLite file without its tables)")
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["orders.db"]  # no WAL, no -shm


def test_an_empty_sqlite_file_has_no_tables(tmp_path: Path) -> None:
    path = tmp_path / "empty.db"
    sqlite3.connect(path).close()
    assert read_schema(path) == FileSchema(frozenset(), None)
