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

import asyncio
import contextlib
import sqlite3
import weakref
from collections.abc import Callable
from concurrent.futures import Future
from functools import partial
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, Self, TypeVar

from floord.contract import Envelope
from floord.journal import reads, watch_states, watermark
from floord.journal.append import Append, AppendRows, Build
from floord.journal.batches import JOURNAL_READ_LIMIT
from floord.journal.chain import Break
from floord.journal.checkpointer import WAL_ROOM, Checkpointer, catch_up
from floord.journal.errors import DISK_FULL as DISK_FULL
from floord.journal.errors import FAILURE as FAILURE
from floord.journal.errors import INTERNAL as INTERNAL
from floord.journal.errors import JournalError as JournalError
from floord.journal.errors import fail, rollback
from floord.journal.errors import failure_code as failure_code
from floord.journal.feed import Feeds, Row
from floord.journal.integrity import snapshot_breaks, tail_breaks
from floord.journal.lock import JournalInUse as JournalInUse
from floord.journal.lock import JournalLock
from floord.journal.migrate import bring_up_to_date, fill_watermarks
from floord.journal.prune import prune_streams
from floord.journal.schema import SCHEMA
from floord.journal.wal_room import make_room
from floord.journal.writer import WriterThread

SCHEMA_VERSION = 3


P = ParamSpec("P")
R = TypeVar("R")
W = TypeVar("W")


def on_writer(method: Callable[Concatenate[Journal, P], R]) -> Callable[Concatenate[Journal, P], R]:
    """Run the method's body on the journal's own thread; the caller waits for it."""

    def run(self: Journal, /, *args: P.args, **kwargs: P.kwargs) -> R:
        return self._writer.run(lambda _db: method(self, *args, **kwargs))

    run.__doc__ = method.__doc__
    run.__name__ = method.__name__
    return run


def off_loop(
    method: Callable[Concatenate[Journal, P], R], *, whole: bool = False
) -> Callable[Concatenate[Journal, P], asyncio.Future[R]]:
    """The method awaited on the event loop, its body run on the journal's own thread:
    handed to it at the call, its future returned (`WriterThread.hand`; with `whole`,
    run even if its caller is cancelled first: the appends)."""

    def call(self: Journal, /, *args: P.args, **kwargs: P.kwargs) -> asyncio.Future[R]:
        return self._writer.hand(lambda _db: method(self, *args, **kwargs), whole=whole)

    call.__doc__ = f"`{method.__name__}`, awaited: the loop goes on while the journal works."
    return call


def shared(
    kind: Callable[..., Callable[[sqlite3.Connection], R]],
) -> Callable[..., asyncio.Future[R]]:
    """An append awaited on the event loop: `kind` (`Append`, `AppendRows`) handed to the
    journal's thread at the call, where it shares its commit with the appends queued
    beside it (`floord.journal.shared_commit`); it runs whole though its caller is
    cancelled, to end as the journal decides and not half-way."""

    def call(self: Journal, stream: str, builds: list[Build], **extras: Any) -> asyncio.Future[R]:
        return self._writer.hand(self._appending(kind, stream, builds, **extras), whole=True)

    call.__doc__ = f"`{kind.__name__}`, awaited: shares its commit with those queued beside it."
    return call


class Journal:
    """One SQLite journal file. Its connection is used only on the journal's own thread
    (`floord.journal.writer`): each method runs there, the caller waiting for it, and
    the `..._async` methods are awaited on the event loop, which goes on meanwhile."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise JournalError(f"journal {self.path}: cannot create its directory: {exc}") from exc
        self._readonly = False
        # One writer per journal (`floord.journal.lock`): taken before the file is opened,
        # released when it is closed (or the process ends, however it ends).
        self._lock: JournalLock | None = JournalLock(self.path)
        try:
            self._open_for_writing()
        except BaseException:
            self._lock.release()
            raise
        weakref.finalize(self, self._lock.release)

    def _open_for_writing(self) -> None:
        file = self.path
        self._start(lambda: _connect(file), "cannot open")
        try:
            self._writer.run(lambda _db: self._prepare())
        except sqlite3.Error as exc:
            self._writer.close()
            raise JournalError(f"journal {self.path}: cannot prepare: {exc}") from exc
        except JournalError:
            self._writer.close()
            raise
        try:  # the WAL's checkpoints, beside the commits (`floord.journal.checkpointer`)
            catching_up = partial(self._writer.submit, catch_up)
            connect = partial(_connect, file)
            checkpoints = Checkpointer(self.path, connect, catching_up, self._writer.changes)
        except sqlite3.Error as exc:
            self._writer.close()
            raise JournalError(f"journal {self.path}: cannot open for checkpoints: {exc}") from exc
        self._checkpoints: Checkpointer | None = checkpoints
        weakref.finalize(self, checkpoints.stop_soon)

    def _start(self, connect: Callable[[], sqlite3.Connection], doing: str) -> None:
        """The journal's thread and, on it, its connection."""
        # Each publisher's feed of what the commits store (`floord.journal.feed`), and
        # the acknowledgements the next write takes (`watermark.Acks`).
        self.feeds = Feeds()
        try:
            self._writer = WriterThread(f"journal {self.path.name}", connect, self.feeds.due)
        except sqlite3.Error as exc:
            raise JournalError(f"journal {self.path}: {doing}: {exc}") from exc
        self._writer.end_with(self)
        self._checkpoints = None
        self.acks = watermark.Acks()
        # The connection, for what runs on the thread (and a test's PRAGMA).
        self._db = self._writer.db

    def _prepare(self) -> None:
        mode = self._db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            raise JournalError(f"journal {self.path}: WAL mode refused (got {mode!r})")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.execute("PRAGMA wal_autocheckpoint=0")  # the checkpointer's thread does
        self._db.executescript(SCHEMA + watermark.SCHEMA + watch_states.SCHEMA)
        bring_up_to_date(self._db, self.path, SCHEMA_VERSION)
        self._in_transaction(fill_watermarks)
        self._in_transaction(watermark.retire_unpublished_index)
        path = self.path
        self._in_transaction(lambda db: make_room(db, path, WAL_ROOM))

    def _in_transaction(self, job: Callable[[sqlite3.Connection], object]) -> None:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            job(self._db)
            self._db.execute("COMMIT")
        finally:
            rollback(self._db)

    @classmethod
    def open_readonly(cls, path: Path) -> Self:
        """The file opened `mode=ro`, beside a running daemon: the reading methods only,
        no schema set-up or migration (the daemon's business); a write raises."""
        journal: Self = cls.__new__(cls)
        journal.path = Path(path)
        journal._readonly = True
        journal._lock = None  # a reader never takes the writer's lock
        if not journal.path.is_file():
            raise JournalError(f"journal {journal.path}: no such file")
        uri = f"{journal.path.resolve().as_uri()}?mode=ro"
        journal._start(lambda: _connect(uri, uri=True), "cannot open read-only")
        try:
            journal._writer.run(lambda db: db.execute("SELECT 1 FROM events LIMIT 1").fetchall())
        except sqlite3.Error as exc:
            journal._writer.close()
            raise JournalError(f"journal {journal.path}: cannot open read-only: {exc}") from exc
        return journal

    # --- writing -----------------------------------------------------------------

    def append(
        self,
        stream: str,
        build: Build,
        *,
        snapshot: tuple[str, dict[str, Any]] | None = None,
    ) -> Envelope:
        """Number, store and (optionally) snapshot one event; return its envelope."""
        return self.append_many(stream, [build], snapshot=snapshot)[0]

    @on_writer
    def append_many(
        self,
        stream: str,
        builds: list[Build],
        *,
        snapshot: tuple[str, dict[str, Any]] | None = None,
        drop_snapshot: str | None = None,
        command_id: tuple[str, str] | None = None,
        published: bool = False,
    ) -> list[Envelope]:
        """Number and store several events and (optionally) a snapshot in ONE transaction
        (`floord.journal.append.Append`): all or nothing."""
        append = self._appending(
            AppendRows,
            stream,
            builds,
            snapshot=snapshot,
            drop_snapshot=drop_snapshot,
            command_id=command_id,
            published=published,
        )
        return append(self._db)

    append_many_async = shared(AppendRows)

    @on_writer
    def append_group(
        self, /, stream: str, builds: list[Build], **extras: Any
    ) -> tuple[list[Envelope], list[list[Envelope]]]:
        """`append_many` after other streams' events (`before`), one transaction
        (`floord.journal.append.Append`)."""
        return self._appending(Append, stream, builds, **extras)(self._db)

    append_group_async = shared(Append)

    def append_many_soon(
        self, stream: str, builds: list[Build], **extras: Any
    ) -> Future[list[Envelope]]:
        """`append_many` handed to the journal's thread now, from any thread; its future
        holds the envelopes. It shares its commit as `append_many_async` does."""
        return self._writer.submit(self._appending(AppendRows, stream, builds, **extras))

    def _appending(
        self, kind: Callable[..., W], stream: str, builds: list[Build], **extras: Any
    ) -> W:
        """An append of `kind` to this journal: its file, its publishers' feeds and the
        acknowledgements its next write takes."""
        return kind(self.path, stream, builds, feeds=self.feeds, acks=self.acks, **extras)

    @on_writer
    def mark_published(self, stream: str, seqs: list[int]) -> None:
        """The broker acknowledged these: the stream's watermark moves over the run of
        them that continues it, without an fsync (`floord.journal.watermark`)."""
        if not seqs:
            return
        try:
            watermark.advance(self._db, stream, seqs)
        except sqlite3.Error as exc:
            rollback(self._db)
            raise fail(self.path, f"mark published in {stream!r}", exc) from exc

    @on_writer
    def write_acks(self) -> None:
        """Write the acknowledgements handed in (`watermark.Acks`), without an fsync."""
        try:
            self._write_acks()
        except sqlite3.Error as exc:
            raise fail(self.path, "mark published", exc) from exc

    def _write_acks(self) -> None:
        acked = self.acks.take()
        try:
            watermark.advance_many(self._db, acked)
        except BaseException:
            self.acks.put_back(acked)
            raise

    @on_writer
    def prune(self, before_ts: str) -> int:
        """Delete each stream's oldest events, recorded before `before_ts`; return how many
        (`floord.journal.prune`)."""
        return prune_streams(self._db, self.path, before_ts)

    @on_writer
    def record_command_id(self, command_id: str, ts: str) -> bool:
        """Remember an operator command's id; False if it was already recorded."""
        try:
            cur = self._db.execute(
                "INSERT INTO command_ids (id, ts) VALUES (?, ?) ON CONFLICT (id) DO NOTHING",
                (command_id, ts),
            )
        except sqlite3.Error as exc:
            raise fail(self.path, "record a command id", exc) from exc
        return cur.rowcount == 1

    # --- reading -----------------------------------------------------------------

    @on_writer
    def last_seq(self, stream: str) -> int:
        return reads.last_seq(self._db, self.path, stream)

    @on_writer
    def chain_head(self, stream: str) -> tuple[int, str]:
        """(last seq, its hash) of a stream; (0, "") for a stream with no event yet."""
        return reads.chain_head(self._db, self.path, stream)

    @on_writer
    def unpublished(self, streams: list[str], limit: int = JOURNAL_READ_LIMIT) -> list[Row]:
        """Unacknowledged events of these streams, (stream, seq, json), by stream then seq."""
        if not streams:
            return []
        if limit < 1:
            raise ValueError(f"limit must be at least 1, not {limit}")
        try:
            self._write_acks()
            return watermark.unpublished(self._db, streams, limit)
        except sqlite3.Error as exc:
            raise fail(self.path, "read unpublished events", exc) from exc

    @on_writer
    def marks(self, streams: list[str]) -> dict[str, int]:
        """Each stream's watermark: every event up to it acknowledged (0: none yet)."""
        try:
            self._write_acks()
            return {stream: watermark.mark(self._db, stream) for stream in streams}
        except sqlite3.Error as exc:
            raise fail(self.path, "read the published watermarks", exc) from exc

    @on_writer
    def backlog(self, streams: list[str]) -> int:
        """How many events of these streams the broker has not acknowledged yet."""
        if not streams:
            return 0
        try:
            self._write_acks()
            return watermark.backlog(self._db, streams)
        except sqlite3.Error as exc:
            raise fail(self.path, "count unpublished events", exc) from exc

    @on_writer
    def read_range(self, stream: str, from_seq: int, to_seq: int) -> list[str]:
        """The stored JSON of seqs from_seq..to_seq (both included), unchanged, in order."""
        return reads.read_range(self._db, self.path, stream, from_seq, to_seq)

    @on_writer
    def load_snapshot(self, table_id: str) -> dict[str, Any] | None:
        return reads.load_snapshot(self._db, self.path, table_id)

    @on_writer
    def save_watch_state(self, table_id: str, state: dict[str, Any]) -> int:
        """Keep a table's live tests' state at its stream's head now (its own
        transaction; `floord.journal.watch_states`); the head's seq."""
        saved: list[int] = []
        try:
            self._in_transaction(lambda db: saved.append(watch_states.save(db, table_id, state)))
        except sqlite3.Error as exc:
            raise fail(self.path, f"save the live tests of {table_id!r}", exc) from exc
        return saved[0]

    @on_writer
    def last_event(self, stream: str) -> dict[str, Any] | None:
        """The newest stored envelope of `stream`, or None when it has none."""
        return reads.last_event(self._db, self.path, stream)

    @on_writer
    def integrity_breaks(self, table: str, streams: list[str]) -> list[Break]:
        """What `run` checks on start: the tail of each of `streams` and the table's
        snapshot, latched halts included (`floord.journal.integrity`)."""
        try:
            return [*tail_breaks(self._db, streams), *snapshot_breaks(self._db, table)]
        except (sqlite3.Error, ValueError) as exc:
            raise fail(self.path, f"check the record of {table!r}", exc) from exc

    @on_writer
    def command_id_used(self, command_id: str) -> bool:
        return reads.command_id_used(self._db, self.path, command_id)

    @property
    def writer(self) -> WriterThread:
        """The journal's thread: its queue, its commits' timings, closed or not (metrics)."""
        return self._writer

    def run(self, job: Callable[[], R]) -> R:
        """Several of the methods above as one job on the journal's thread, waited for."""
        return self._writer.run(lambda _db: job())

    def submit(self, job: Callable[[], R]) -> Future[R]:
        """Several of the methods above as one job on the journal's thread; its future."""
        return self._writer.submit(lambda _db: job())

    async def call(self, job: Callable[[], R]) -> R:
        """Several of the methods above as one job on the journal's thread, awaited."""
        return await self._writer.call(lambda _db: job())

    prune_async = off_loop(prune)
    save_watch_state_async = off_loop(save_watch_state)
    unpublished_async = off_loop(unpublished)
    backlog_async = off_loop(backlog)
    read_range_async = off_loop(read_range)
    command_id_used_async = off_loop(command_id_used)

    def _last_job(self, db: sqlite3.Connection) -> None:
        if self._readonly:
            db.close()
        else:
            with contextlib.suppress(sqlite3.Error):
                self._write_acks()  # the last acknowledgements, best effort
            watermark.fold_and_close(db)

    def close(self) -> None:
        """Close the connection and end the journal's thread (a second close does nothing)."""
        if self._writer.closed:
            return
        try:
            if self._checkpoints is not None:
                self._checkpoints.close()
            self._writer.close(self._last_job)
        except sqlite3.Error as exc:
            raise fail(self.path, "close", exc) from exc
        finally:
            if self._lock is not None:
                self._lock.release()


def _connect(target: str | Path, *, uri: bool = False) -> sqlite3.Connection:
    """The journal's connection: transactions by hand, a 5 s busy wait (on the journal's
    thread, never the loop), made there and used only there (tests may run a PRAGMA)."""
    return sqlite3.connect(
        target, uri=uri, isolation_level=None, timeout=5.0, check_same_thread=False
    )
