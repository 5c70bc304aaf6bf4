"""The journal: every event floord decides on, on disk before anyone is told of it.

An event is appended here first and published over MQTT afterwards, and is marked
published only once the broker has acknowledged it. So a broker outage, a network cut
or a daemon restart loses nothing: what is unpublished is sent again, in order.

SQLite in WAL mode with `synchronous=FULL`: a committed append survives a power cut,
and readers (a replay, an auditor's query) never block the writer. Every SQLite failure
becomes a `JournalError`; the caller halts the table (fail closed), because a table
whose record cannot be written must not keep dealing.

Streams: a table's own record is the stream `"<table>"`; a device's own events are the
stream `"<table>/devices/<device>"`. Each stream numbers its events 1, 2, 3, ... and a
number is never reused, even across restarts.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from floord.contract import Envelope

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS streams (
    stream TEXT PRIMARY KEY,
    last_seq INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    stream TEXT NOT NULL,
    seq INTEGER NOT NULL,
    body TEXT NOT NULL,
    published INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (stream, seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS events_unpublished ON events (stream, seq) WHERE published = 0;
CREATE TABLE IF NOT EXISTS snapshots (
    table_id TEXT PRIMARY KEY,
    state TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS command_ids (
    id TEXT PRIMARY KEY,
    ts TEXT NOT NULL
);
"""


class JournalError(RuntimeError):
    """The journal could not record or read: the caller must halt the table."""


class Journal:
    """One SQLite journal file, used from one thread (the daemon's event loop)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise JournalError(f"journal {self.path}: cannot create its directory: {exc}") from exc
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, timeout=5.0)
        except sqlite3.Error as exc:
            raise JournalError(f"journal {self.path}: cannot open: {exc}") from exc
        try:
            mode = self._db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise JournalError(f"journal {self.path}: WAL mode refused (got {mode!r})")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.executescript(_SCHEMA)
            self._check_version()
        except sqlite3.Error as exc:
            self._db.close()
            raise JournalError(f"journal {self.path}: cannot prepare: {exc}") from exc
        except JournalError:
            self._db.close()
            raise

    def _check_version(self) -> None:
        row = self._db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        if row is None:
            self._db.execute(
                "INSERT INTO meta (key, value) VALUES ('schema_version', ?)",
                (str(SCHEMA_VERSION),),
            )
        elif row[0] != str(SCHEMA_VERSION):
            raise JournalError(
                f"journal {self.path}: schema version {row[0]} is not {SCHEMA_VERSION}"
            )

    def _fail(self, doing: str, exc: BaseException) -> JournalError:
        return JournalError(f"journal {self.path}: {doing} failed: {exc}")

    # --- writing -----------------------------------------------------------------

    def append(
        self,
        stream: str,
        build: Callable[[int], Envelope],
        *,
        snapshot: tuple[str, dict[str, Any]] | None = None,
    ) -> Envelope:
        """Number, store and (optionally) snapshot one event; return its envelope."""
        return self.append_many(stream, [build], snapshot=snapshot)[0]

    def append_many(
        self,
        stream: str,
        builds: list[Callable[[int], Envelope]],
        *,
        snapshot: tuple[str, dict[str, Any]] | None = None,
    ) -> list[Envelope]:
        """Number and store several events and (optionally) a snapshot in ONE transaction.

        `build(seq)` makes each envelope for the number the journal hands out, so the
        number in the stored JSON is always the journal's own. All or nothing: a table's
        input and the decisions it caused are never on the record without each other.
        """
        try:
            self._db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise self._fail(f"append to {stream!r}", exc) from exc
        envelopes: list[Envelope] = []
        try:
            row = self._db.execute(
                "SELECT last_seq FROM streams WHERE stream = ?", (stream,)
            ).fetchone()
            seq = row[0] if row else 0
            for build in builds:
                seq += 1
                envelope = build(seq)
                if envelope.seq != seq:
                    raise JournalError(
                        f"journal {self.path}: envelope for {stream!r} carries seq "
                        f"{envelope.seq}, the journal handed out {seq}"
                    )
                self._db.execute(
                    "INSERT INTO events (stream, seq, body, published) VALUES (?, ?, ?, 0)",
                    (stream, seq, envelope.to_json()),
                )
                envelopes.append(envelope)
            if envelopes:
                self._db.execute(
                    "INSERT INTO streams (stream, last_seq) VALUES (?, ?) "
                    "ON CONFLICT (stream) DO UPDATE SET last_seq = excluded.last_seq",
                    (stream, seq),
                )
            if snapshot is not None:
                table_id, state = snapshot
                self._db.execute(
                    "INSERT INTO snapshots (table_id, state) VALUES (?, ?) "
                    "ON CONFLICT (table_id) DO UPDATE SET state = excluded.state",
                    (table_id, json.dumps(state, separators=(",", ":"), sort_keys=True)),
                )
            self._db.execute("COMMIT")
        except BaseException as exc:
            self._rollback()
            if isinstance(exc, JournalError):
                raise
            if isinstance(exc, Exception):
                raise self._fail(f"append to {stream!r}", exc) from exc
            raise
        return envelopes

    def _rollback(self) -> None:
        try:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
        except sqlite3.Error:
            # The connection is unusable; the original error is the one worth reporting.
            pass

    def mark_published(self, stream: str, seqs: list[int]) -> None:
        """The broker acknowledged these: they are not sent again."""
        if not seqs:
            return
        try:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.executemany(
                "UPDATE events SET published = 1 WHERE stream = ? AND seq = ?",
                [(stream, s) for s in seqs],
            )
            self._db.execute("COMMIT")
        except sqlite3.Error as exc:
            self._rollback()
            raise self._fail(f"mark published in {stream!r}", exc) from exc

    def record_command_id(self, command_id: str, ts: str) -> bool:
        """Remember an operator command's id; False if it was already recorded."""
        try:
            cur = self._db.execute(
                "INSERT INTO command_ids (id, ts) VALUES (?, ?) ON CONFLICT (id) DO NOTHING",
                (command_id, ts),
            )
        except sqlite3.Error as exc:
            raise self._fail("record a command id", exc) from exc
        return cur.rowcount == 1

    # --- reading -----------------------------------------------------------------

    def _query(self, doing: str, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        try:
            return self._db.execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            raise self._fail(doing, exc) from exc

    def last_seq(self, stream: str) -> int:
        rows = self._query(
            f"read last seq of {stream!r}",
            "SELECT last_seq FROM streams WHERE stream = ?",
            (stream,),
        )
        return rows[0][0] if rows else 0

    def unpublished(self, streams: list[str], limit: int = 500) -> list[tuple[str, int, str]]:
        """Unacknowledged events of these streams, (stream, seq, json), by stream then seq."""
        if not streams:
            return []
        if limit < 1:
            raise ValueError(f"limit must be at least 1, not {limit}")
        marks = ",".join("?" for _ in streams)
        rows = self._query(
            "read unpublished events",
            f"SELECT stream, seq, body FROM events WHERE published = 0 AND stream IN ({marks}) "
            "ORDER BY stream, seq LIMIT ?",
            (*streams, limit),
        )
        return [(r[0], r[1], r[2]) for r in rows]

    def backlog(self, streams: list[str]) -> int:
        """How many events of these streams the broker has not acknowledged yet."""
        if not streams:
            return 0
        marks = ",".join("?" for _ in streams)
        rows = self._query(
            "count unpublished events",
            f"SELECT COUNT(*) FROM events WHERE published = 0 AND stream IN ({marks})",
            tuple(streams),
        )
        return rows[0][0]

    def read_range(self, stream: str, from_seq: int, to_seq: int) -> list[str]:
        """The stored JSON of seqs from_seq..to_seq (both included), unchanged, in order."""
        if from_seq < 1 or to_seq < from_seq:
            raise ValueError(
                f"a range 1 <= from_seq <= to_seq expected, found {from_seq}..{to_seq}"
            )
        rows = self._query(
            f"read {stream!r} {from_seq}..{to_seq}",
            "SELECT body FROM events WHERE stream = ? AND seq BETWEEN ? AND ? ORDER BY seq",
            (stream, from_seq, to_seq),
        )
        return [r[0] for r in rows]

    def load_snapshot(self, table_id: str) -> dict[str, Any] | None:
        rows = self._query(
            f"load the snapshot of {table_id!r}",
            "SELECT state FROM snapshots WHERE table_id = ?",
            (table_id,),
        )
        if not rows:
            return None
        try:
            state = json.loads(rows[0][0])
        except ValueError as exc:
            raise self._fail(f"decode the snapshot of {table_id!r}", exc) from exc
        if not isinstance(state, dict):
            raise JournalError(f"journal {self.path}: snapshot of {table_id!r} is not an object")
        return state

    def command_id_used(self, command_id: str) -> bool:
        rows = self._query(
            "look up a command id", "SELECT 1 FROM command_ids WHERE id = ?", (command_id,)
        )
        return bool(rows)

    def close(self) -> None:
        try:
            self._db.close()
        except sqlite3.Error as exc:
            raise self._fail("close", exc) from exc
