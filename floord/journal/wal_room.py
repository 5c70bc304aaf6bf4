"""The WAL file made its full size when the journal opens, so commits overwrite it.

SQLite deletes a journal's `-wal` file when its last connection closes, and the next
open starts it again at nothing. Until a checkpoint lets it wrap to its start (at
`checkpointer.START_AGAIN_AT` frames), every commit then makes the file longer, and an
`fdatasync` of a longer file must also commit the file system's journal for the new
size: measured here (`make bench`, a wheel frame's commit) 0.57 ms more a
commit, a quarter more, for the first hundred-odd frames after every start; on a table
box's eMMC or SD card it is one more metadata write each time too. So on opening, the
file is extended by zeros to what a full WAL takes (`checkpointer.WAL_ROOM` frames,
16 MB), written and synced once, as databases do with their redo logs.

Safe by SQLite's WAL format: the valid frames are those the WAL's header and their own
salts and checksums say so, so bytes past the last of them (zeros here, stale frames
after a wrap) are never read as a commit. Nothing already in the file is overwritten:
only bytes past its end are written, inside a `BEGIN IMMEDIATE` (the caller's), which
holds SQLite's write lock so that no other connection appends a frame meanwhile.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

# A WAL frame's header, before each page; the file's own header.
_FRAME_HEADER = 24
_WAL_HEADER = 32
_CHUNK = 1 << 20
# The room is taken only where the file system has this many times it free: on a disk
# short of space the WAL grows as SQLite needs it, so that a disk that fills is met by
# the very commit that does not fit (the disk-full tests), not some frames later.
_FREE_TIMES = 16


def full_size(page_size: int, pages: int) -> int:
    """The bytes of a WAL of `pages` frames."""
    return _WAL_HEADER + pages * (page_size + _FRAME_HEADER)


def make_room(db: sqlite3.Connection, path: Path, pages: int) -> int:
    """Extend `path`'s WAL by zeros to `pages` frames (in the caller's write
    transaction); how many bytes were added (0: already that long, or no WAL file).

    Not on a file system with less than `_FREE_TIMES` the room free. Best effort: should
    the disk be full, or the file refuse (an error of the file
    system), the WAL grows as SQLite needs it; zeros written so far past its
    end stay there, harmless, and a full disk is met by the commits themselves."""
    page_size = int(db.execute("PRAGMA page_size").fetchone()[0])
    wal = Path(f"{path}-wal")
    target = full_size(page_size, pages)
    try:
        fd = os.open(wal, os.O_WRONLY)  # never created here: SQLite makes it
    except OSError:
        return 0
    try:
        size = os.fstat(fd).st_size
        if size >= target:
            return 0
        free = os.fstatvfs(fd)
        if free.f_bavail * free.f_frsize < _FREE_TIMES * (target - size):
            return 0
        zeros = bytes(_CHUNK)
        at = size
        while at < target:
            at += os.pwrite(fd, zeros[: min(_CHUNK, target - at)], at)
        os.fsync(fd)
        return target - size
    except OSError:
        return 0
    finally:
        os.close(fd)
