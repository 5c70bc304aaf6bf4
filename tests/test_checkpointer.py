"""The WAL's checkpoints on their own thread (`floord.journal.checkpointer`): the WAL
index read as SQLite reports it, the journal's commits never checkpointing, the thread
copying the WAL past the threshold and, once it is long, the rest copied on the
journal's thread so that it starts again, and a checkpoint that fails logged once, its
recovery too, nothing lost."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from structlog.testing import capture_logs

from floord.contract import Envelope
from floord.journal.checkpointer import START_AGAIN_AT, Checkpointer, catch_up, wal_index
from floord.journal.store import Journal
from floord.journal.watermark import AUTOCHECKPOINT


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


def until(done: Callable[[], bool], seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while not done():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_the_wal_index_reads_as_sqlite_reports_it(tmp_path: Path) -> None:
    path = tmp_path / "x.db"
    db = wal_db(path, 40)
    try:
        frames, copied = wal_index(shm(path)) or (-1, -1)
        assert frames >= 40 and copied == 0
        other = sqlite3.connect(path)
        busy, logged, checkpointed = other.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        other.close()
        assert (busy, logged, checkpointed) == (0, frames, frames)
        assert wal_index(shm(path)) == (frames, frames)
    finally:
        db.close()


def test_an_index_of_another_format_is_not_read(tmp_path: Path) -> None:
    assert wal_index(tmp_path / "none-shm") is None
    (tmp_path / "short-shm").write_bytes(b"\1" * 50)
    assert wal_index(tmp_path / "short-shm") is None
    (tmp_path / "zeros-shm").write_bytes(b"\0" * 32768)  # no version 3007000
    assert wal_index(tmp_path / "zeros-shm") is None


def test_commits_never_checkpoint_and_the_thread_copies_the_wal(tmp_path: Path) -> None:
    """Below the threshold nothing is copied; past it the journal's checkpointer copies
    the WAL beside the commits; once the WAL is `START_AGAIN_AT` long what is left is
    copied too, and the next commit starts the WAL again. Every event is there."""
    path = tmp_path / "j.db"
    journal = Journal(path)
    appended = 0

    def frames_reach(frames: int) -> None:
        nonlocal appended
        while (wal_index(shm(path)) or (0, 0))[0] < frames:
            journal.append("t1", build)
            appended += 1

    try:
        assert journal._db.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0
        frames_reach(AUTOCHECKPOINT - 50)
        time.sleep(0.2)  # four looks of the thread
        assert (wal_index(shm(path)) or (0, 1))[1] == 0
        frames_reach(AUTOCHECKPOINT + 10)
        assert until(lambda: (wal_index(shm(path)) or (0, 0))[1] > 0)  # copied beside
        frames_reach(START_AGAIN_AT + 10)
        assert until(lambda: (lambda i: i is not None and i[0] == i[1])(wal_index(shm(path))))
        assert journal._checkpoints is not None and journal._checkpoints.catch_ups >= 1
        journal.append("t1", build)
        assert (wal_index(shm(path)) or (START_AGAIN_AT, 0))[0] < 10  # started again
        assert len(journal.read_range("t1", 1, 100_000)) == appended + 1
    finally:
        journal.close()


@pytest.fixture
def journal_thread(tmp_path: Path) -> Iterator[Callable[[], Future[object]]]:
    """What the journal hands the checkpointer: `catch_up` run on a thread of its own,
    with a connection of its own (the journal's thread and connection, for a bare file)."""
    pool = ThreadPoolExecutor(1)
    db = pool.submit(lambda: sqlite3.connect(tmp_path / "x.db")).result()
    yield lambda: pool.submit(catch_up, db)
    pool.submit(db.close).result()
    pool.shutdown()


def test_a_long_wal_is_copied_to_its_end_on_the_journals_thread(
    tmp_path: Path, journal_thread: Callable[[], Future[object]]
) -> None:
    """A WAL past `start_again_at` with a few frames not copied (a reader held them back
    during the last copy) gets them copied on the journal's thread, and starts again."""
    path = tmp_path / "x.db"
    db = wal_db(path, 95)  # past a start again at 30 frames
    reader = sqlite3.connect(path, isolation_level=None)
    try:
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM t").fetchone()  # a snapshot at 95 commits
        for _ in range(5):
            db.execute("INSERT INTO t (b) VALUES ('z')")
        other = sqlite3.connect(path)
        other.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()  # up to the reader's
        other.close()
        reader.execute("ROLLBACK")
        frames, copied = wal_index(shm(path)) or (0, 0)
        assert 0 < frames - copied < 10
        checkpoints = Checkpointer(
            path, lambda: sqlite3.connect(path, check_same_thread=False), journal_thread,
            pages=10, start_again_at=30, look_every_s=0.01,
        )  # fmt: skip
        try:
            assert until(lambda: checkpoints.catch_ups >= 1)
        finally:
            checkpoints.close()
        assert checkpoints.checkpoints == 0  # nothing for this thread to copy itself
        assert wal_index(shm(path)) == (frames, frames)
        db.execute("INSERT INTO t (b) VALUES ('z')")
        assert (wal_index(shm(path)) or (100, 0))[0] < 10  # the WAL started again
        assert db.execute("SELECT count(*) FROM t").fetchone()[0] == 101
    finally:
        reader.close()
        db.close()


@pytest.mark.parametrize(
    ("frames", "copied", "work"),
    [
        (500, 0, None),  # below the threshold
        (1000, 0, "copy"),
        (2500, 2000, None),  # copied to the threshold, not yet long: it grows on
        (3100, 3100, None),  # all copied: the next commit starts the WAL again
        (3100, 3090, "catch up"),  # what is left of a long WAL
        (5000, 3000, "copy"),
    ],
)
def test_what_a_look_finds_to_do(
    tmp_path: Path, frames: int, copied: int, work: str | None
) -> None:
    checkpoints = Checkpointer(
        tmp_path / "x.db", lambda: sqlite3.connect(tmp_path / "x.db"), _never,
        pages=1000, start_again_at=3000, look_every_s=60,
    )  # fmt: skip
    try:
        assert checkpoints._work(frames, copied) == work
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
                path, _refusing(path, refusals), _never, pages=10, look_every_s=0.01
            )
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


def _never() -> Future[object]:
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
