"""The WAL made its full size on opening (`floord.journal.wal_room`): commits overwrite
it instead of making it longer, nothing in it is overwritten by the zeros, and a crash's
WAL with zeros past its frames recovers whole. A disk that refuses the room (a child
process under a file size limit, a small tmpfs) is in `test_wal_room_system.py`.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from floord.contract import Envelope
from floord.journal.checkpointer import WAL_ROOM
from floord.journal.store import Journal
from floord.journal.wal_room import full_size, make_room

pytestmark = pytest.mark.unit

FULL = full_size(4096, WAL_ROOM)


def build(seq: int) -> Envelope:
    return Envelope(
        site="s1", table="t1", seq=seq, ts="2026-01-01T00:00:00.000Z", type="x.y",
        source="t1", data={"n": seq},
    )  # fmt: skip


def test_the_wal_is_full_size_on_opening_and_commits_do_not_lengthen_it(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    journal = Journal(path)
    try:
        wal = Path(f"{path}-wal")
        assert wal.stat().st_size == FULL
        for _ in range(50):
            journal.append("t1", build)
        assert wal.stat().st_size == FULL
    finally:
        journal.close()


def test_a_crash_with_zeros_past_the_frames_recovers_every_commit(tmp_path: Path) -> None:
    """A copy of the files taken while the journal is open is what a power cut leaves:
    the WAL's committed frames, then the zeros. SQLite reads the frames and stops."""
    path = tmp_path / "j.db"
    journal = Journal(path)
    try:
        for _ in range(30):
            journal.append("t1", build)
        crashed = tmp_path / "crashed"
        crashed.mkdir()
        for suffix in ("", "-wal"):
            shutil.copy(f"{path}{suffix}", crashed / f"j.db{suffix}")
    finally:
        journal.close()
    db = sqlite3.connect(crashed / "j.db")
    try:
        seqs = [seq for (seq,) in db.execute("SELECT seq FROM events ORDER BY seq")]
    finally:
        db.close()
    assert seqs == list(range(1, 31))
    reopened = Journal(crashed / "j.db")
    try:
        reopened.append("t1", build)
        assert reopened.last_seq("t1") == 31
    finally:
        reopened.close()


def test_nothing_already_in_the_wal_is_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("CREATE TABLE t (x TEXT)")
        db.execute("INSERT INTO t VALUES ('kept')")
        wal = Path(f"{path}-wal")
        before = wal.read_bytes()
        db.execute("BEGIN IMMEDIATE")
        added = make_room(db, path, 10)
        db.execute("COMMIT")
        after = wal.read_bytes()
        assert added == full_size(4096, 10) - len(before)
        assert after[: len(before)] == before
        assert after[len(before) :] == bytes(added)
        db.execute("BEGIN IMMEDIATE")
        assert make_room(db, path, 10) == 0  # long enough: not touched
        db.execute("COMMIT")
        db.execute("INSERT INTO t VALUES ('after')")
        assert [x for (x,) in db.execute("SELECT x FROM t")] == ["kept", "after"]
    finally:
        db.close()
