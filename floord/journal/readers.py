"""The journal's file read by a tool that does not hold it: the schema `floord check`
looks at before `run` would open the file, and a table's stream as `floord report` reads
it back.

Only the journal package speaks the journal's SQL; everything else asks here or on a
`Journal`. Each read opens a connection of its own `mode=ro` (SQLite creates, migrates
and writes nothing, and no writer's lock is taken: safe beside a running daemon) and
closes it before it returns. The file is opened by SQLite only: SQLite keeps its POSIX
locks per file and process, so it knows not to drop them when one of its connections
closes, while a descriptor of the journal's files opened and closed outside it would
drop every such lock the process holds (docs/journal.md, "Checkpoints on their own
thread").
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from floord.journal import watch_states
from floord.journal.errors import JournalError
from floord.journal.migrate import shape_problem
from floord.journal.watch_states import SavedWatch

SCHEMA_VERSION_SQL = "SELECT value FROM meta WHERE key = 'schema_version'"


class ReadOnlyFailed(JournalError):
    """A read-only look at a journal file that failed. `opening`: SQLite could not open
    the file (else it opened it and could not read it); `reason`: SQLite's own words,
    for a caller that says what it expected in its own."""

    def __init__(self, message: str, *, opening: bool, reason: str) -> None:
        super().__init__(message)
        self.opening = opening
        self.reason = reason


@dataclass(frozen=True)
class FileSchema:
    """What a SQLite file holds, as far as telling a floord journal from another file
    goes: its tables' names, `meta.schema_version` (None: no `meta` table, or no
    version in it), and whether it holds any event."""

    tables: frozenset[str]
    version: str | None
    has_events: bool = False


def _connect(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=5.0)


def _open(path: Path) -> sqlite3.Connection:
    try:
        return _connect(path)
    except sqlite3.Error as exc:
        raise ReadOnlyFailed(
            f"journal {path}: cannot open read-only: {exc}", opening=True, reason=str(exc)
        ) from exc


def read_schema(path: Path) -> FileSchema:
    """The tables and schema version of the SQLite file at `path` (any SQLite file: an
    empty one has no tables, another program's has no `meta`)."""
    db = _open(path)
    try:
        rows = db.execute("SELECT name FROM sqlite_master WHERE type='table'").fetchall()
        tables = frozenset(str(row[0]) for row in rows)
        version = None
        if "meta" in tables:
            row = db.execute(SCHEMA_VERSION_SQL).fetchone()
            version = None if row is None else str(row[0])
        has_events = (
            "events" in tables and db.execute("SELECT 1 FROM events LIMIT 1").fetchone() is not None
        )
    except sqlite3.Error as exc:
        raise ReadOnlyFailed(
            f"journal {path}: cannot read its tables: {exc}", opening=False, reason=str(exc)
        ) from exc
    finally:
        db.close()
    return FileSchema(tables, version, has_events)


def schema_version(path: Path) -> str | None:
    """The journal's `meta.schema_version` (None: never set up by floord); a file without
    the `meta` table cannot be read as a journal."""
    try:
        db = _connect(path)
        try:
            row = db.execute(SCHEMA_VERSION_SQL).fetchone()
        finally:
            db.close()
    except sqlite3.Error as exc:
        raise JournalError(f"journal {path}: cannot read its schema version: {exc}") from exc
    return str(row[0]) if row else None


def saved_watch(path: Path, table: str) -> SavedWatch | str:
    """A table's live tests as last saved, whole and on its chain, or why there is none
    to take (`floord.journal.watch_states.load`)."""
    try:
        db = _connect(path)
        try:
            return watch_states.load(db, table)
        finally:
            db.close()
    except sqlite3.Error as exc:
        return f"it cannot be read: {exc}"


def older_schema_problem(path: Path) -> str | None:
    """Why the journal, whose recorded schema version is an older one, cannot be chained
    up to this floord's on its first open (`floord.journal.migrate.shape_problem`);
    None for a file of any other version, or one that can."""
    try:
        db = _connect(path)
        try:
            row = db.execute(SCHEMA_VERSION_SQL).fetchone()
            claimed = str(row[0]) if row else None
            if claimed not in ("1", "2"):
                return None
            return shape_problem(db, claimed)
        finally:
            db.close()
    except sqlite3.Error as exc:
        raise JournalError(f"journal {path}: cannot read its tables: {exc}") from exc


# With `types`, a row is read when its type is one asked for, and also when it cannot be
# told not to be (no body, a body that is not JSON, a type that is not text): the caller
# decodes it and names what is wrong with it, as it would on a read of the whole stream.
# CASE tries its conditions in order, so no JSON function is given text that is not JSON.
_ROWS = "SELECT seq, body FROM events WHERE stream = ?{after}{types} ORDER BY seq LIMIT ?"
_AFTER = " AND seq > ?"
_OF_TYPES = (
    " AND CASE WHEN body IS NULL THEN 1 WHEN NOT json_valid(body) THEN 1 "
    "WHEN json_type(body, '$.type') IS NOT 'text' THEN 1 "
    "ELSE json_extract(body, '$.type') IN ({}) END"
)
ROWS_A_BATCH = 500


def stream_rows(
    path: Path, stream: str, types: Collection[str] | None = None, after: int = 0
) -> Iterator[tuple[int, str]]:
    """The stored events of `stream` (those whose `type` is one of `types`, if given) as
    (seq, its JSON as stored), in seq order, read `ROWS_A_BATCH` at a time: a table's
    record of months holds hundreds of thousands of events, never held at once, of which
    a reader of results or rolls wants one in ten, picked out by SQLite without Python
    decoding the others. With `after`, only those of a later seq.

    Each batch is read on a connection of its own, closed before its rows are handed on,
    so a reader that stops half way (a damaged row named) leaves nothing open."""
    wanted = sorted(set(types)) if types is not None else []
    if types is not None and not wanted:
        return
    kinds = _OF_TYPES.format(", ".join("?" * len(wanted))) if wanted else ""
    after_seq: Any = after if after > 0 else None
    while True:
        query = _ROWS.format(after="" if after_seq is None else _AFTER, types=kinds)
        bound = (stream,) if after_seq is None else (stream, after_seq)
        db = _open(path)
        try:
            batch = db.execute(query, (*bound, *wanted, ROWS_A_BATCH)).fetchall()
        except sqlite3.Error as exc:
            raise ReadOnlyFailed(
                f"journal {path}: cannot read stream {stream!r}: {exc}",
                opening=False,
                reason=str(exc),
            ) from exc
        finally:
            db.close()
        yield from batch
        if len(batch) < ROWS_A_BATCH:
            return
        after_seq = batch[-1][0]


def stream_names(path: Path) -> list[str]:
    """Every stream the journal holds events of (the tables' and their devices'), sorted."""
    db = _open(path)
    try:
        rows = db.execute("SELECT DISTINCT stream FROM events ORDER BY stream").fetchall()
    except sqlite3.Error as exc:
        raise ReadOnlyFailed(
            f"journal {path}: cannot list its streams: {exc}", opening=False, reason=str(exc)
        ) from exc
    finally:
        db.close()
    return [str(row[0]) for row in rows]
