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

Tamper evidence (docs/journal.md): each stored event carries `prev`, the hash of the
stream's previous event, and `hash`, its own (`floord.journal.chain`). The `streams`
table keeps each stream's chain head; `pruned` keeps, for a stream whose oldest events
were deleted under the retention setting, the last pruned seq and its hash, so the
remaining record is still anchored.

Schema version 2 added the chain. A version-1 file is migrated when it is first opened:
its events are chained in place, in seq order (their bodies gain `prev` and `hash`,
nothing else changes), in one transaction, and `meta.chain_migrated` records how many
events were chained that way. The chain over those events proves only that they have
not changed SINCE the migration; it says nothing of what happened to them before.

Schema version 3 put the snapshots in the chain (`floord.journal.integrity`): each row
carries the seq and hash of the table stream's event it was written with, and its own
hash. A version-2 file gains them when first opened (`meta.snapshots_migrated`).
"""

from __future__ import annotations

import errno
import json
import sqlite3
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from floord.contract import Envelope, format_ts, parse_ts
from floord.journal.chain import Break, event_hash, genesis
from floord.journal.integrity import snapshot_breaks, tail_breaks, write_snapshot
from floord.journal.migrate import chain_snapshots, chain_version_1
from floord.untrusted import storable

SCHEMA_VERSION = 3

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS streams (
    stream TEXT PRIMARY KEY,
    last_seq INTEGER NOT NULL,
    last_hash TEXT
);
CREATE TABLE IF NOT EXISTS pruned (
    stream TEXT PRIMARY KEY,
    up_to_seq INTEGER NOT NULL,
    last_hash TEXT NOT NULL,
    pruned_before TEXT NOT NULL
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
    state TEXT NOT NULL,
    after_seq INTEGER,
    after_hash TEXT,
    hash TEXT
);
CREATE TABLE IF NOT EXISTS command_ids (
    id TEXT PRIMARY KEY,
    ts TEXT NOT NULL
);
"""


DISK_FULL = "journal_disk_full"
FAILURE = "journal_failure"
# Not the storage: an event or snapshot that could not be built or encoded (a bug).
INTERNAL = "internal_error"


class JournalError(RuntimeError):
    """The journal could not record or read: the caller must halt the table.

    `code` is the halt reason the table gets: `journal_disk_full` when the disk (or the
    database's size limit) is full, `internal_error` when what was to be stored could not
    be built or encoded (the storage did not fail), else `journal_failure`.
    """

    def __init__(self, message: str, code: str = FAILURE) -> None:
        super().__init__(message)
        self.code = code


def failure_code(exc: BaseException) -> str:
    """`journal_disk_full` for SQLITE_FULL or ENOSPC, else `journal_failure`."""
    if isinstance(exc, JournalError):
        return exc.code
    if isinstance(exc, sqlite3.Error):
        code = getattr(exc, "sqlite_errorcode", None)
        if (isinstance(code, int) and code & 0xFF == sqlite3.SQLITE_FULL) or (
            "database or disk is full" in str(exc)
        ):
            return DISK_FULL
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
        return DISK_FULL
    return FAILURE


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

    @classmethod
    def open_readonly(cls, path: Path) -> Journal:
        """The file opened `mode=ro`, beside a running daemon: the reading methods only,
        no schema set-up or migration (the daemon's business); a write raises."""
        journal = cls.__new__(cls)
        journal.path = Path(path)
        if not journal.path.is_file():
            raise JournalError(f"journal {journal.path}: no such file")
        uri = f"{journal.path.resolve().as_uri()}?mode=ro"
        try:
            journal._db = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=5.0)
            journal._db.execute("SELECT 1 FROM events LIMIT 1").fetchall()
        except sqlite3.Error as exc:
            raise JournalError(f"journal {journal.path}: cannot open read-only: {exc}") from exc
        return journal

    def _check_version(self) -> None:
        row = self._db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        if row is None:
            self._db.execute(
                "INSERT INTO meta (key, value) VALUES ('schema_version', ?)",
                (str(SCHEMA_VERSION),),
            )
        elif row[0] in ("1", "2"):
            self._migrate_from(int(row[0]))
        elif row[0] != str(SCHEMA_VERSION):
            raise JournalError(
                f"journal {self.path}: schema version {row[0]} is not {SCHEMA_VERSION}"
            )

    def _migrate_from(self, version: int) -> None:
        """Chain an older file in place, in one transaction: its events (from version 1),
        then its snapshots (from version 2)."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            if version == 1:
                chain_version_1(self._db, 2)
            chain_snapshots(self._db, SCHEMA_VERSION)
            self._db.execute("COMMIT")
        except BaseException as exc:
            self._rollback()
            if isinstance(exc, sqlite3.Error | ValueError | KeyError | TypeError):
                raise JournalError(
                    f"journal {self.path}: migrating schema {version} to {SCHEMA_VERSION} "
                    f"failed: {exc}"
                ) from exc
            raise

    def _fail(self, doing: str, exc: BaseException) -> JournalError:
        return JournalError(f"journal {self.path}: {doing} failed: {exc}", failure_code(exc))

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
        drop_snapshot: str | None = None,
    ) -> list[Envelope]:
        """Number and store several events and (optionally) a snapshot in ONE transaction.

        `build(seq)` makes each envelope for the number the journal hands out, so the
        number in the stored JSON is always the journal's own. All or nothing: a table's
        input and the decisions it caused are never on the record without each other.
        The journal chains each event to the one before it (`prev`, `hash`), and the
        envelopes returned carry both, as stored and published. `drop_snapshot` deletes
        that table's snapshot in the same transaction (`floord journal retire`).
        """
        try:
            self._db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise self._fail(f"append to {stream!r}", exc) from exc
        envelopes: list[Envelope] = []
        try:
            row = self._db.execute(
                "SELECT last_seq, last_hash FROM streams WHERE stream = ?", (stream,)
            ).fetchone()
            seq, prev = (row[0], row[1]) if row else (0, None)
            if seq and prev is None:
                raise JournalError(f"journal {self.path}: {stream!r} has no chain head")
            for build in builds:
                seq += 1
                envelope = build(seq)
                if envelope.seq != seq:
                    raise JournalError(
                        f"journal {self.path}: envelope for {stream!r} carries seq "
                        f"{envelope.seq}, the journal handed out {seq}"
                    )
                if prev is None:
                    prev = genesis(envelope.site, stream)
                envelope = replace(envelope, prev=prev, hash=None)
                # Text UTF-8 cannot hold (a lone surrogate from outside) is stored
                # escaped: what came in must never be what stops the record.
                body = storable(json.loads(envelope.to_json()))
                body["hash"] = prev = event_hash(body)
                self._db.execute(
                    "INSERT INTO events (stream, seq, body, published) VALUES (?, ?, ?, 0)",
                    (stream, seq, _dumps(body)),
                )
                envelopes.append(replace(envelope, data=body.get("data") or {}, hash=prev))
            if envelopes:
                self._db.execute(
                    "INSERT INTO streams (stream, last_seq, last_hash) VALUES (?, ?, ?) "
                    "ON CONFLICT (stream) DO UPDATE SET last_seq = excluded.last_seq, "
                    "last_hash = excluded.last_hash",
                    (stream, seq, prev),
                )
            if snapshot is not None:
                table_id, state = snapshot
                head = (seq, prev) if table_id == stream else None
                write_snapshot(self._db, table_id, state, head)
            if drop_snapshot is not None:
                self._db.execute("DELETE FROM snapshots WHERE table_id = ?", (drop_snapshot,))
            self._db.execute("COMMIT")
        except BaseException as exc:
            self._rollback()
            if isinstance(exc, JournalError):
                raise
            # Only the storage failing is the journal failing; anything else (a bug
            # building or encoding an event) is named for what it is.
            if isinstance(exc, sqlite3.Error | OSError):
                raise self._fail(f"append to {stream!r}", exc) from exc
            if isinstance(exc, Exception):
                raise JournalError(
                    f"journal {self.path}: append to {stream!r}: could not build or encode "
                    f"what was to be stored: {exc!r}",
                    INTERNAL,
                ) from exc
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

    def prune(self, before_ts: str) -> int:
        """Delete each stream's oldest events, recorded before `before_ts`; return how many.

        Only a stream's leading run of events that are published AND older than the cut
        goes, and never its last event (the chain head stays on the record). The last
        pruned seq and its hash go into `pruned`, the anchor `verify` checks the first
        remaining event's `prev` against.
        """
        cut = format_ts(parse_ts(before_ts))
        deleted = 0
        try:
            self._db.execute("BEGIN IMMEDIATE")
            streams = self._db.execute("SELECT stream, last_seq FROM streams").fetchall()
            for stream, last_seq in streams:
                keep = self._db.execute(
                    "SELECT seq FROM events WHERE stream = ? AND (published = 0 OR "
                    "json_extract(body, '$.ts') >= ?) ORDER BY seq LIMIT 1",
                    (stream, cut),
                ).fetchone()
                up_to = min(keep[0] - 1 if keep else last_seq, last_seq - 1)
                row = self._db.execute(
                    "SELECT body FROM events WHERE stream = ? AND seq = ?", (stream, up_to)
                ).fetchone()
                if row is None:
                    continue  # nothing old enough, or pruned up to here already
                last_hash = json.loads(row[0]).get("hash")
                if not isinstance(last_hash, str):
                    raise JournalError(f"journal {self.path}: {stream!r} seq {up_to} is unchained")
                cur = self._db.execute(
                    "DELETE FROM events WHERE stream = ? AND seq <= ?", (stream, up_to)
                )
                deleted += cur.rowcount
                self._db.execute(
                    "INSERT INTO pruned (stream, up_to_seq, last_hash, pruned_before) "
                    "VALUES (?, ?, ?, ?) ON CONFLICT (stream) DO UPDATE SET "
                    "up_to_seq = excluded.up_to_seq, last_hash = excluded.last_hash, "
                    "pruned_before = excluded.pruned_before",
                    (stream, up_to, last_hash, cut),
                )
            self._db.execute("COMMIT")
        except JournalError:
            self._rollback()
            raise
        except (sqlite3.Error, ValueError) as exc:
            self._rollback()
            raise self._fail("prune", exc) from exc
        return deleted

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

    def chain_head(self, stream: str) -> tuple[int, str]:
        """(last seq, its hash) of a stream; (0, "") for a stream with no event yet."""
        rows = self._query(
            f"read the chain head of {stream!r}",
            "SELECT last_seq, last_hash FROM streams WHERE stream = ?",
            (stream,),
        )
        if not rows:
            return (0, "")
        return (rows[0][0], rows[0][1] or "")

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
        return int(rows[0][0])

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

    def last_event(self, stream: str) -> dict[str, Any] | None:
        """The newest stored envelope of `stream`, or None when it has none."""
        rows = self._query(
            f"read the last event of {stream!r}",
            "SELECT body FROM events WHERE stream = ? ORDER BY seq DESC LIMIT 1",
            (stream,),
        )
        if not rows:
            return None
        try:
            body = json.loads(rows[0][0])
        except ValueError as exc:
            raise JournalError(f"journal {self.path}: {stream!r}: undecodable event") from exc
        return body if isinstance(body, dict) else None

    def integrity_breaks(self, table: str, streams: list[str]) -> list[Break]:
        """What `run` checks on start: the tail of each of `streams` and the table's
        snapshot, latched halts included (`floord.journal.integrity`)."""
        try:
            return [*tail_breaks(self._db, streams), *snapshot_breaks(self._db, table)]
        except (sqlite3.Error, ValueError) as exc:
            raise self._fail(f"check the record of {table!r}", exc) from exc

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


def _dumps(body: dict[str, Any]) -> str:
    """The stored form of a body: compact JSON, the same bytes as `Envelope.to_json`."""
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False)
