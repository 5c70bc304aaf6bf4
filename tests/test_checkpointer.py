"""The WAL's checkpoints on their own thread (`floord.journal.checkpointer`): the
estimate of the frames not yet copied, the journal's commits never checkpointing, the thread
copying the WAL past the threshold and, once it is long, the rest copied on the
journal's thread so that it starts again, and a checkpoint that fails logged once, its
recovery too, nothing lost."""

from __future__ import annotations

import sqlite3
import struct
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from structlog.testing import capture_logs

from floord.contract import Envelope
from floord.journal.checkpointer import (
    FIRST_FRAMES_A_ROW,
    FORGET,
    START_AGAIN_AT,
    WAL_ROOM,
    Checkpointer,
    Report,
    _Estimate,
    catch_up,
)
from floord.journal.store import Journal
from floord.journal.watermark import AUTOCHECKPOINT
from floord.journal.writer import Changes

pytestmark = pytest.mark.unit


def build(seq: int) -> Envelope:
    return Envelope(
        site="s1", table="t1", seq=seq, ts="2026-01-01T00:00:00.000Z", type="x.y",
        source="t1", data={"pad": "x" * 3000},
    )  # fmt: skip


def wal_db(path: Path, commits: int) -> sqlite3.Connection:
    """A WAL database that never checkpoints by itself, `commits` commits in its WAL."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA wal_autocheckpoint=0")
    db.execute("CREATE TABLE t (a INTEGER PRIMARY KEY, b TEXT)")
    for _ in range(commits):
        db.execute("INSERT INTO t (b) VALUES (?)", ("y" * 3000,))
    return db


def shm(path: Path) -> Path:
    return path.with_name(path.name + "-shm")


def wal_index(shm: Path) -> tuple[int, int] | None:
    """(the WAL's frames, those copied) from the WAL index's header (sqlite.org's
    "WAL-mode File Format": `mxFrame` at 16, `nBackfill` at 96, version 3007000).

    For these tests only, where no other process opens the file: closing this
    descriptor drops the process's POSIX locks on `-shm`, SQLite's WAL-index locks,
    which is why the checkpointer itself never reads it (see its module)."""
    try:
        head = shm.read_bytes()[:100]
    except OSError:
        return None
    if len(head) < 100 or struct.unpack_from("=I", head, 0)[0] != 3007000:
        return None
    return struct.unpack_from("=I", head, 16)[0], struct.unpack_from("=I", head, 96)[0]


def until(done: Callable[[], bool], seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while not done():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_the_estimate_learns_the_frames_a_row_takes() -> None:
    """Before any checkpoint a row counts FIRST_FRAMES_A_ROW; each report sets what the
    rows since the last one took: the whole WAL after a quiet copy of all of it (it
    started again), what it grew by otherwise; a fall is taken a quarter at a time."""
    wal = _Estimate()
    assert wal.behind(100) == 100 * FIRST_FRAMES_A_ROW
    wal.reported(rows=100, frames=300, copied=290, quiet=True)
    assert (wal.per_row, wal.frames, wal.left) == (3.0, 300, 10)
    assert wal.behind(100) == 10 and wal.behind(200) == 10 + 300
    wal.reported(rows=200, frames=700, copied=700, quiet=False)  # grew by 400
    assert (wal.per_row, wal.left) == (4.0, 0)
    wal.reported(rows=300, frames=1100, copied=1100, quiet=True)  # not started again
    assert wal.per_row == 4.0
    wal.reported(rows=400, frames=1200, copied=1200, quiet=True)  # started again: 1200
    assert wal.per_row == 12.0
    wal.reported(rows=500, frames=300, copied=300, quiet=True)  # 3 a row: a fall
    assert wal.per_row == 12.0 * (1 - FORGET)
    wal.reported(rows=500, frames=300, copied=300, quiet=True)  # no rows since
    assert wal.per_row == 12.0 * (1 - FORGET)
    wal.reported(rows=600, frames=50, copied=0, quiet=True)  # shorter: started again
    assert (wal.per_row, wal.left) == (12.0 * (1 - FORGET) ** 2, 50)


def test_commits_never_checkpoint_and_the_thread_copies_the_wal(tmp_path: Path) -> None:
    """Below the threshold nothing is copied; past it the journal's checkpointer copies
    the WAL beside the commits, again as it grows; once it is copied to its end (by the
    thread, or by a catch-up on the journal's thread once the WAL is `START_AGAIN_AT`
    long) the next commit starts it again. Every event is there."""
    path = tmp_path / "j.db"
    journal = Journal(path)
    appended = 0

    def frames_reach(frames: int) -> int:
        nonlocal appended
        while (now := (wal_index(shm(path)) or (0, 0))[0]) < frames:
            journal.append("t1", build)
            appended += 1
        return now

    try:
        assert journal._db.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0
        frames_reach(AUTOCHECKPOINT // 3)
        time.sleep(0.2)  # four looks of the thread
        assert (wal_index(shm(path)) or (0, 1))[1] == 0
        # These events take about 2.5 frames a row, more than the first estimate's
        # FIRST_FRAMES_A_ROW: the first copy comes by 1.3 thresholds' frames.
        frames_reach(AUTOCHECKPOINT * 3 // 2)
        assert until(lambda: (wal_index(shm(path)) or (0, 0))[1] > 0)  # copied beside
        longest = frames_reach(START_AGAIN_AT + 10)

        def started_again() -> bool:
            nonlocal appended, longest
            journal.append("t1", build)
            appended += 1
            frames = (wal_index(shm(path)) or (0, 0))[0]
            longest = max(longest, frames)
            return frames < longest

        assert until(started_again, 30)
        assert START_AGAIN_AT < longest <= WAL_ROOM  # within the room made on opening
        checkpoints = journal._checkpoints
        assert checkpoints is not None and checkpoints.checkpoints >= 2
        assert len(journal.read_range("t1", 1, 100_000)) == appended
    finally:
        journal.close()


@pytest.fixture
def journal_thread(tmp_path: Path) -> Iterator[Callable[[], Future[Report]]]:
    """What the journal hands the checkpointer: `catch_up` run on a thread of its own,
    with a connection of its own (the journal's thread and connection, for a bare file)."""
    pool = ThreadPoolExecutor(1)
    db = pool.submit(lambda: sqlite3.connect(tmp_path / "x.db")).result()
    yield lambda: pool.submit(catch_up, db)
    pool.submit(db.close).result()
    pool.shutdown()


def test_a_long_wal_is_copied_to_its_end_on_the_journals_thread(
    tmp_path: Path, journal_thread: Callable[[], Future[Report]]
) -> None:
    """A WAL past `start_again_at` that a copy left a few frames short of its end (a
    reader held them back) gets them copied on the journal's thread, tried again while
    the reader stays, and then starts again at the next commit."""
    path = tmp_path / "x.db"
    db = wal_db(path, 95)  # past a start again at 30 frames
    reader = sqlite3.connect(path, isolation_level=None)
    try:
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM t").fetchone()  # a snapshot at 95 commits
        for _ in range(5):
            db.execute("INSERT INTO t (b) VALUES ('z')")
        checkpoints = Checkpointer(
            path, lambda: sqlite3.connect(path, check_same_thread=False), journal_thread,
            lambda: Changes(100, 0), pages=200, start_again_at=30, look_every_s=0.01,
        )  # fmt: skip
        try:
            assert until(lambda: checkpoints.catch_ups >= 2)  # the reader holds on
            frames, copied = wal_index(shm(path)) or (0, 0)
            assert 0 < frames - copied < 20
            reader.execute("ROLLBACK")
            assert until(lambda: wal_index(shm(path)) == (frames, frames))
        finally:
            checkpoints.close()
        assert checkpoints.checkpoints == 1  # the copy here, the rest on the other thread
        db.execute("INSERT INTO t (b) VALUES ('z')")
        assert (wal_index(shm(path)) or (100, 0))[0] < 10  # the WAL started again
        assert db.execute("SELECT count(*) FROM t").fetchone()[0] == 101
    finally:
        reader.close()
        db.close()


_FRESH = (0, 0, 0, True, FIRST_FRAMES_A_ROW)  # the estimate before any checkpoint
_GROWING = (1000, 2500, 0, True, 2.5)  # rows, frames, left, quiet, frames a row


@pytest.mark.parametrize(
    ("wal", "rows", "since_s", "work"),
    [
        (_FRESH, 400, 60.0, None),  # 800 frames estimated: below the threshold
        (_FRESH, 500, 60.0, "copy"),  # 1000
        (_GROWING, 1200, 60.0, None),  # 500 more frames
        (_GROWING, 1400, 60.0, "copy"),  # 1000 more
        ((1000, 3100, 0, True, 2.5), 1000, 60.0, None),  # long, all copied: starts again
        ((1000, 3100, 10, True, 2.5), 1000, 60.0, "catch up"),  # long, a few frames left
        ((1000, 3100, 0, False, 2.5), 1000, 60.0, "catch up"),  # commits landed after
        ((1000, 2900, 0, False, 2.5), 1100, 60.0, "copy"),  # long now, 250 to copy
        ((1000, 2900, 0, True, 2.5), 1100, 60.0, None),  # started again: 250 long
        ((1000, 3100, 10, True, 2.5), 1000, 0.0, None),  # the same, just tried
        ((1000, 2500, 10, True, 2.5), 1000, 60.0, None),  # a few left, not yet long
    ],
)
def test_what_a_look_finds_to_do(
    tmp_path: Path,
    wal: tuple[int, int, int, bool, float],
    rows: int,
    since_s: float,
    work: str | None,
) -> None:
    checkpoints = Checkpointer(
        tmp_path / "x.db", lambda: sqlite3.connect(tmp_path / "x.db"), _never,
        lambda: Changes(0, 0), pages=1000, start_again_at=3000, look_every_s=60,
    )  # fmt: skip
    try:
        estimate = checkpoints._wal
        estimate.rows, estimate.frames, estimate.left, estimate.quiet, estimate.per_row = wal
        checkpoints._last = time.monotonic() - since_s
        assert checkpoints._work(rows) == work
    finally:
        checkpoints.close()


def test_a_failing_checkpoint_is_logged_once_and_loses_nothing(tmp_path: Path) -> None:
    """The disk refuses the copy twice (a test double for the checkpoint's connection,
    the one thing changed): one warning, then the copy succeeds, one recovery line, and
    every row committed meanwhile is there."""
    path = tmp_path / "x.db"
    db = wal_db(path, 30)
    refusals = [2]
    try:
        with capture_logs() as logs:
            checkpoints = Checkpointer(
                path, _refusing(path, refusals), _never, lambda: Changes(1000, 0),
                pages=10, look_every_s=0.01, retry_every_s=0.05,
            )  # fmt: skip
            try:
                assert until(lambda: checkpoints.checkpoints >= 1, 20)
            finally:
                checkpoints.close()
        events = [entry["event"] for entry in logs]
        assert events == [
            "journal checkpoint failing; the WAL keeps every commit meanwhile",
            "journal checkpoint recovered",
        ]
        assert logs[0]["log_level"] == "warning" and "disk I/O error" in logs[0]["error"]
        assert (wal_index(shm(path)) or (0, 0))[1] > 0
        assert db.execute("SELECT count(*) FROM t").fetchone()[0] == 30
    finally:
        db.close()


def _never() -> Future[Report]:
    raise AssertionError("no catch-up is due in this test")


class _Refusing(sqlite3.Connection):
    refusals: list[int]

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
        if "wal_checkpoint" in sql and self.refusals[0] > 0:
            self.refusals[0] -= 1
            raise sqlite3.OperationalError("disk I/O error")
        return super().execute(sql, *args)


def _refusing(path: Path, refusals: list[int]) -> Callable[[], sqlite3.Connection]:
    def connect() -> sqlite3.Connection:
        db = sqlite3.connect(path, check_same_thread=False, factory=_Refusing)
        assert isinstance(db, _Refusing)
        db.refusals = refusals
        return db

    return connect
