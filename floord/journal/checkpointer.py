"""The WAL's checkpoints on a thread and a connection of their own, not inside a commit.

SQLite checkpoints a WAL inside whichever commit takes it past `wal_autocheckpoint`
pages: that commit copies a thousand pages into the database file and fsyncs it before
it returns. On `make bench` a wheel frame's commit writes about eight pages, so one
frame in a hundred-odd would wait a millisecond more, and with 5 ms fsyncs (a table
box's eMMC) more than ten: those frames would be the p99. So the journal's own
connection never checkpoints (`wal_autocheckpoint=0`), and this thread does, with
`PRAGMA wal_checkpoint(PASSIVE)` on a second connection to the same file, beside the
commits: a passive checkpoint takes no lock a writer needs, copies only frames every
reader is done with, and a commit meanwhile appends to the WAL undisturbed.

Durability is as it was. The checkpoint's connection runs `synchronous=FULL`, so it
syncs the WAL before it copies any frame (what makes the marks written without an fsync
durable, `floord.journal.watermark`) and the database file before the WAL may be
written again from its start; the WAL starts again only when a commit finds everything
in it copied, as SQLite always decides.

When: the thread looks every `LOOK_EVERY_S` at how many rows the journal's connection
has changed (`WriterThread.changes`, SQLite's `total_changes`), and checkpoints once
those since the last checkpoint, at the frames a row has been taking, come to
`AUTOCHECKPOINT` frames not yet copied, as SQLite's own threshold did. Each checkpoint
reports the WAL's frames and those it copied, and the journal's thread's count of jobs
begun and ended says whether a commit landed during it; these set the next estimate
(`_Estimate`). Nothing reads the WAL's files themselves: SQLite keeps its WAL-index locks as POSIX
(`fcntl`) locks on the `-shm` file, and closing any descriptor of a file drops every
such lock the process holds on it; another process opening the journal (`floord
status`) would then rebuild the index under the daemon's own map of it. That was a
crash (SIGBUS in a COMMIT), in the first version of this module.

The WAL starts again from its start only once a checkpoint has copied all of it, and
commits that land during a passive checkpoint leave it a few frames short. So once the
WAL is estimated `START_AGAIN_AT` frames long, a copy here of all but a few (`A_FEW` of
a threshold) is followed by one of those few on the
journal's own thread (`catch_up`, a job like any other there, so no commit lands during
it and it copies all): the one commit queued behind it waits for a few frames' copy and
two fsyncs of files nearly all synced already, and the next starts the WAL again. That
is once in `START_AGAIN_AT` frames, where SQLite's own checkpoint made a commit wait for
a thousand frames' copy and the same fsyncs once in a thousand; the WAL's room
(`WAL_ROOM`, made on opening by `floord.journal.wal_room`) holds what is written
meanwhile, so no commit lengthens the file. A catch-up that could not copy all (a
reader still on an older snapshot: `floord journal` beside the daemon) is tried again
`CATCH_UP_EVERY_S` later.

A checkpoint that fails (a full disk, an I/O error) loses nothing: the frames stay in
the WAL, the commits go on into it, and it is tried again after `BLIND_EVERY_S`; the
failure and the recovery are each logged once.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path

import structlog

from floord.journal.watermark import AUTOCHECKPOINT
from floord.journal.writer import Changes

LOOK_EVERY_S = 0.05
BLIND_EVERY_S = 1.0
CATCH_UP_EVERY_S = 0.2
START_AGAIN_AT = 3 * AUTOCHECKPOINT
# The WAL's room made on opening: past where it starts again, with what is written
# during the copy and the catch-up.
WAL_ROOM = 4 * AUTOCHECKPOINT
# A checkpoint's report: SQLite's (busy, the WAL's frames, those copied).
Report = tuple[int, int, int]
# What a look found to do (`Checkpointer._work`).
COPY, CATCH_UP = "copy", "catch up"
# What is left for a catch-up of a long WAL, at most, as a part of the threshold.
A_FEW = 0.1
# Frames a changed row is taken to cost until a checkpoint has measured it: more than
# a wheel frame's commit takes (about 1.5), so the first copy comes early, not late.
FIRST_FRAMES_A_ROW = 2.0
# How much of itself the estimate of a row's frames may fall by at one checkpoint.
FORGET = 0.25


class _Estimate:
    """Where the WAL stands, as the last checkpoint reported it, and the frames a row
    changed since has been taking.

    No file says how long the WAL is (see the module), so the frames written between
    two checkpoints are inferred from their reports, and that needs to know whether the
    WAL started again between them. It can only after a checkpoint that copied every
    frame with no commit landing during it (`quiet`): the next commit then starts it
    again, unless a reader still holds the old one, which is rare and then the frames
    are overestimated. Else the WAL grew on, unless it is shorter than it was. An
    estimate too low would let the WAL grow past its room, one too high only copies
    early, so the frames a row takes are never taken to fall by more than `FORGET` of
    themselves a checkpoint."""

    def __init__(self) -> None:
        self.rows = 0  # the journal's changed rows when the last checkpoint began
        self.frames = 0  # the WAL's frames then reported
        self.left = 0  # and those it could not copy
        self.quiet = True  # and whether no commit landed during it
        self.per_row = FIRST_FRAMES_A_ROW

    def behind(self, rows: int) -> float:
        """Frames not yet copied, at `rows` changed rows."""
        return self.left + (rows - self.rows) * self.per_row

    def length(self, rows: int) -> float:
        """The WAL's frames, at `rows` changed rows."""
        start = 0 if self.copied_to_its_end() else self.frames
        return start + (rows - self.rows) * self.per_row

    def copied_to_its_end(self) -> bool:
        """Whether the last checkpoint left the WAL to start again at the next commit."""
        return self.left == 0 and self.quiet

    def started_again(self, frames: int) -> bool:
        """Whether the WAL, now `frames` long, started again since the last report."""
        return frames < self.frames or self.copied_to_its_end()

    def reported(self, rows: int, frames: int, copied: int, quiet: bool) -> None:
        """A checkpoint begun at `rows` found `frames` in the WAL and copied `copied`,
        with no commit landing during it if `quiet`."""
        written = frames if self.started_again(frames) else frames - self.frames
        if rows > self.rows and written > 0:
            self.per_row = max(written / (rows - self.rows), self.per_row * (1 - FORGET))
        self.rows, self.frames, self.left = rows, frames, max(0, frames - copied)
        self.quiet = quiet


class Checkpointer:
    """One journal file's checkpoints, on a thread of their own (see the module)."""

    def __init__(
        self,
        path: Path,
        connect: Callable[[], sqlite3.Connection],
        catch_up: Callable[[], Future[Report]],
        changes: Callable[[], Changes],
        *,
        pages: int = AUTOCHECKPOINT,
        start_again_at: int = START_AGAIN_AT,
        look_every_s: float = LOOK_EVERY_S,
        retry_every_s: float = BLIND_EVERY_S,
    ) -> None:
        self.path = Path(path)
        self._pages = pages
        self._start_again_at = start_again_at
        self._look_every_s = look_every_s
        self._retry_every_s = retry_every_s
        self._stop = threading.Event()
        self._log = structlog.get_logger("floord.journal").bind(journal=str(self.path))
        self.checkpoints = 0  # copies run here (the tests read them)
        self.catch_ups = 0  # and on the journal's thread
        self._last = 0.0  # when the last one ended (time.monotonic)
        self._catch_up = catch_up
        self._changes = changes
        self._wal = _Estimate()
        self._db = connect()
        try:
            self._db.execute("PRAGMA synchronous=FULL")
        except BaseException:
            self._db.close()
            raise
        self._thread = threading.Thread(
            target=self._serve, name=f"checkpoints {self.path.name}", daemon=True
        )
        self._thread.start()

    def close(self) -> None:
        """End the thread (after the checkpoint it may be in) and close its connection,
        before the journal's own connection closes: the last to close checkpoints the
        whole WAL and deletes it, as SQLite does."""
        self._stop.set()
        if threading.current_thread() is not self._thread:
            self._thread.join()

    def stop_soon(self) -> None:
        """End the thread without waiting (its journal was collected unclosed)."""
        self._stop.set()

    def _serve(self) -> None:
        failing = False
        try:
            # A checkpoint that failed is tried again after `retry_every_s`, not at once.
            while not self._stop.wait(self._retry_every_s if failing else self._look_every_s):
                work = COPY if failing else self._work(self._changes().rows)
                if work is not None:
                    failing = self._checkpoint(work, failing)
        finally:
            with contextlib.suppress(sqlite3.Error):
                self._db.close()

    def _work(self, rows: int) -> str | None:
        """What the WAL needs at `rows` changed rows: `COPY` once the threshold's frames
        are estimated not yet copied; once it is estimated `start_again_at` long and
        not copied to its end, `COPY` of what is more than a few frames (the rest then
        follows on the journal's thread) or else `CATCH_UP` of those few, no sooner
        than `CATCH_UP_EVERY_S` after the last try; else nothing."""
        behind = self._wal.behind(rows)
        if behind >= self._pages:
            return COPY
        if self._wal.length(rows) < self._start_again_at:
            return None
        if behind >= self._pages * A_FEW:
            return COPY
        if time.monotonic() - self._last < CATCH_UP_EVERY_S:
            return None
        return CATCH_UP

    def _checkpoint(self, work: str, failing: bool) -> bool:
        """The checkpoint `work` asks for, its report noted in the estimate; whether it
        failed (logged when that changes)."""
        try:
            if work == COPY:
                # Quiet if no job of the journal's thread ran during any of the copy.
                before = self._changes()
                _, frames, copied = self._db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                self.checkpoints += 1
                quiet = before.turns % 2 == 0 and self._changes() == before
                self._wal.reported(before.rows, int(frames), int(copied), quiet)
                long = frames >= self._start_again_at
                work = CATCH_UP if long and not self._wal.copied_to_its_end() else ""
            if work == CATCH_UP:
                rows = self._changes().rows
                _, frames, copied = self._wait(self._catch_up())
                self.catch_ups += 1
                # On the journal's thread no commit lands during it.
                self._wal.reported(rows, int(frames), int(copied), quiet=True)
        except (sqlite3.Error, _Stopped) as exc:
            self._last = time.monotonic()
            if isinstance(exc, sqlite3.Error) and not failing:
                self._log.warning(
                    "journal checkpoint failing; the WAL keeps every commit meanwhile",
                    error=str(exc),
                )
            return isinstance(exc, sqlite3.Error)
        self._last = time.monotonic()
        if failing:
            self._log.info("journal checkpoint recovered")
        return False

    def _wait(self, job: Future[Report]) -> Report:
        """What the journal's thread's `job` (`catch_up`) reported, once it ran (raising
        what it raised); `_Stopped` if this thread is to stop first (a journal collected
        unclosed runs no more jobs)."""
        while not self._stop.is_set():
            with contextlib.suppress(TimeoutError):
                return job.result(timeout=0.5)
        raise _Stopped


class _Stopped(Exception):
    """The checkpointer stopped while the journal's thread had its catch-up queued."""


def catch_up(db: sqlite3.Connection) -> Report:
    """The journal's thread's job: copy what the WAL still holds, between two commits;
    SQLite's report (busy, the WAL's frames, those copied)."""
    busy, frames, copied = db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    return int(busy), int(frames), int(copied)
