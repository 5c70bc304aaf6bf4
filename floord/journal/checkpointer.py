"""The WAL's checkpoints on a thread and a connection of their own, not inside a commit.

SQLite checkpoints a WAL inside whichever commit takes it past `wal_autocheckpoint`
pages: that commit copies a thousand pages into the database file and fsyncs it before
it returns. On issue 15's latency bench a wheel frame's commit writes about eight
pages, so one frame in a hundred-odd waited a millisecond more, and with 5 ms fsyncs
(a table box's eMMC) more than ten: those frames were the p99. So the journal's own
connection never checkpoints in a commit (`wal_autocheckpoint=0`), and this thread
does, with `PRAGMA wal_checkpoint(PASSIVE)` on a second connection to the same file,
beside the commits: a passive checkpoint takes no lock a writer needs, copies only
frames every reader is done with, and a commit meanwhile appends to the WAL as before.

Durability is as it was. The checkpoint's connection runs `synchronous=FULL`, so it
syncs the WAL before it copies any frame (what makes the marks written without an fsync
durable, `floord.journal.watermark`) and the database file before the WAL may be
written again from its start; the WAL starts again only when a commit finds everything
in it copied, as SQLite always decides.

When: the thread looks every `LOOK_EVERY_S` at the WAL index's header (the `-shm`
file: `mxFrame`, the WAL's frames, and `nBackfill`, those copied, at the offsets
sqlite.org's "WAL-mode File Format" gives), and checkpoints once `AUTOCHECKPOINT`
frames are not yet copied, as SQLite's own threshold did. Should the index not be
readable as that format, it checkpoints every `BLIND_EVERY_S` instead.

The WAL starts again from its start only once a checkpoint has copied all of it, and
commits that land during a passive checkpoint leave it a few frames short. So once the
WAL holds `START_AGAIN_AT` frames, the copy is followed by one of those few on the
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
import os
import sqlite3
import struct
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path

import structlog

from floord.journal.watermark import AUTOCHECKPOINT

LOOK_EVERY_S = 0.05
BLIND_EVERY_S = 1.0
CATCH_UP_EVERY_S = 0.2
START_AGAIN_AT = 3 * AUTOCHECKPOINT
# The WAL's room made on opening: past where it starts again, with what is written
# during the copy and the catch-up.
WAL_ROOM = 4 * AUTOCHECKPOINT
# What a look found to do (`Checkpointer._work`).
COPY, CATCH_UP = "copy", "catch up"

# The WAL index's header (sqlite.org/walformat.html, 2.2): its version at 0, `mxFrame`
# (frames in the WAL) at 16, and, in the checkpoint information after the header's two
# 48-byte copies, `nBackfill` (frames copied into the database) at 96; native order.
_INDEX_VERSION = 3007000
_HEADER = struct.Struct("=I12xI")
_BACKFILL = struct.Struct("=I")
_BACKFILL_AT = 96


def wal_index(shm: Path) -> tuple[int, int] | None:
    """(the WAL's frames, those copied into the database) from the WAL index's header
    (`shm`: `mxFrame`, `nBackfill`); None if no index is there or it is not the format
    this reads."""
    try:
        fd = os.open(shm, os.O_RDONLY)
    except OSError:
        return None
    try:
        head = os.pread(fd, _BACKFILL_AT + _BACKFILL.size, 0)
    except OSError:
        return None
    finally:
        os.close(fd)
    if len(head) < _BACKFILL_AT + _BACKFILL.size:
        return None
    version, frames = _HEADER.unpack_from(head, 0)
    if version != _INDEX_VERSION:
        return None
    (copied,) = _BACKFILL.unpack_from(head, _BACKFILL_AT)
    return int(frames), int(copied)


class Checkpointer:
    """One journal file's checkpoints, on a thread of their own (see the module)."""

    def __init__(
        self,
        path: Path,
        connect: Callable[[], sqlite3.Connection],
        catch_up: Callable[[], Future[object]],
        *,
        pages: int = AUTOCHECKPOINT,
        start_again_at: int = START_AGAIN_AT,
        look_every_s: float = LOOK_EVERY_S,
    ) -> None:
        self.path = Path(path)
        self._shm = self.path.with_name(self.path.name + "-shm")
        self._pages = pages
        self._start_again_at = start_again_at
        self._look_every_s = look_every_s
        self._stop = threading.Event()
        self._log = structlog.get_logger("floord.journal").bind(journal=str(self.path))
        self.checkpoints = 0  # copies run here (the tests read them)
        self.catch_ups = 0  # and on the journal's thread
        self._last = 0.0  # when the last one ended (time.monotonic)
        self._catch_up = catch_up
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
        blind_wait = 0.0
        failing = False
        try:
            # A checkpoint that failed is tried again after BLIND_EVERY_S, not at once.
            while not self._stop.wait(BLIND_EVERY_S if failing else self._look_every_s):
                read = wal_index(self._shm)
                if read is None:
                    blind_wait += self._look_every_s
                    if blind_wait < BLIND_EVERY_S:
                        continue
                    blind_wait = 0.0
                    work: str | None = COPY
                else:
                    work = self._work(*read)
                if work is not None:
                    failing = self._checkpoint(work, failing)
        finally:
            with contextlib.suppress(sqlite3.Error):
                self._db.close()

    def _work(self, frames: int, copied: int) -> str | None:
        """What a WAL of `frames` frames, `copied` of them copied, needs: `COPY` with the
        threshold's frames to copy (here, then the rest on the journal's thread once it
        is `start_again_at` long); `CATCH_UP` when it is that long with a few frames
        left, no sooner than `CATCH_UP_EVERY_S` after the last try; else nothing."""
        behind = frames - copied
        if behind >= self._pages:
            return COPY
        if behind <= 0 or frames < self._start_again_at:
            return None
        if time.monotonic() - self._last < CATCH_UP_EVERY_S:
            return None
        return CATCH_UP

    def _checkpoint(self, work: str, failing: bool) -> bool:
        """The checkpoint `work` asks for; whether it failed (logged when that changes)."""
        try:
            if work == COPY:
                _, frames, copied = self._db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                self.checkpoints += 1
                long = frames >= self._start_again_at
                work = CATCH_UP if long and frames > copied else ""
            if work == CATCH_UP:
                self._wait(self._catch_up())
                self.catch_ups += 1
        except sqlite3.Error as exc:
            self._last = time.monotonic()
            if not failing:
                self._log.warning(
                    "journal checkpoint failing; the WAL keeps every commit meanwhile",
                    error=str(exc),
                )
            return True
        self._last = time.monotonic()
        if failing:
            self._log.info("journal checkpoint recovered")
        return False

    def _wait(self, job: Future[object]) -> None:
        """Until the journal's thread has run `job` (raising what it raised), or this
        thread is to stop (a journal collected unclosed runs no more jobs)."""
        while not self._stop.is_set():
            with contextlib.suppress(TimeoutError):
                job.result(timeout=0.5)
                return


def catch_up(db: sqlite3.Connection) -> object:
    """The journal's thread's job: copy what the WAL still holds, between two commits."""
    return db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
