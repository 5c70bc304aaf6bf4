"""The WAL's checkpoints on a thread and a connection of their own, not inside a commit.

SQLite checkpoints a WAL inside whichever commit takes it past `wal_autocheckpoint`
pages: that commit copies a thousand pages into the database file and fsyncs it before
it returns. On issue 15's latency bench a wheel frame's commit writes about eight
pages, so one frame in a hundred-odd waited a millisecond more, and with 5 ms fsyncs
(a table box's eMMC) more than ten: those frames were the p99. So the journal's own
connection never checkpoints (`wal_autocheckpoint=0`), and this thread does, with
`PRAGMA wal_checkpoint(PASSIVE)` on a second connection to the same file, beside the
commits: a passive checkpoint takes no lock a writer needs, copies only frames every
reader is done with, and a commit meanwhile appends to the WAL as before.

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
WAL holds the threshold's frames, the thread also checkpoints what is left of it, every
`CATCH_UP_EVERY_S`, until one falls in a pause long enough for all of it; should the
WAL still grow past `LONG_WAL` times the threshold (commits without a pause, a burst),
it checkpoints with `RESTART` instead, which waits for the commit in progress and holds
the next ones while it copies what is left (it gives up after `RESTART_WAITS_MS`,
should a reader keep it waiting): without that a burst would lengthen the WAL for as
long as it lasts.

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
from pathlib import Path

import structlog

from floord.journal.watermark import AUTOCHECKPOINT

LOOK_EVERY_S = 0.05
BLIND_EVERY_S = 1.0
CATCH_UP_EVERY_S = 0.2
LONG_WAL = 4
RESTART_WAITS_MS = 50

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
        *,
        pages: int = AUTOCHECKPOINT,
        look_every_s: float = LOOK_EVERY_S,
    ) -> None:
        self.path = Path(path)
        self._shm = self.path.with_name(self.path.name + "-shm")
        self._pages = pages
        self._look_every_s = look_every_s
        self._stop = threading.Event()
        self._log = structlog.get_logger("floord.journal").bind(journal=str(self.path))
        self.checkpoints = 0  # how many ran (the tests read it)
        self._last = 0.0  # when the last one ended (time.monotonic)
        self._db = connect()
        try:
            self._db.execute("PRAGMA synchronous=FULL")
            # How long a RESTART may wait, for the commit in progress or a reader, while
            # holding the commits after it: given up (busy) past that, tried again later.
            self._db.execute(f"PRAGMA busy_timeout={RESTART_WAITS_MS}")
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
                    mode: str | None = "PASSIVE"
                else:
                    mode = self._mode(*read)
                if mode is not None:
                    failing = self._checkpoint(mode, failing)
        finally:
            with contextlib.suppress(sqlite3.Error):
                self._db.close()

    def _mode(self, frames: int, copied: int) -> str | None:
        """How to checkpoint a WAL of `frames` frames, `copied` of them copied: not at all
        (None) below the threshold, nor for what is left of a long WAL sooner than
        `CATCH_UP_EVERY_S` after the last; else passively, or with RESTART once long."""
        behind = frames - copied
        if behind <= 0 or frames < self._pages:
            return None
        if behind < self._pages and time.monotonic() - self._last < CATCH_UP_EVERY_S:
            return None
        return "RESTART" if frames > LONG_WAL * self._pages else "PASSIVE"

    def _checkpoint(self, mode: str, failing: bool) -> bool:
        """One checkpoint; whether it failed (logged when that changes)."""
        try:
            self._db.execute(f"PRAGMA wal_checkpoint({mode})").fetchall()
        except sqlite3.Error as exc:
            if not failing:
                self._log.warning(
                    "journal checkpoint failing; the WAL keeps every commit meanwhile",
                    error=str(exc),
                )
            return True
        self.checkpoints += 1
        self._last = time.monotonic()
        if failing:
            self._log.info("journal checkpoint recovered")
        return False
