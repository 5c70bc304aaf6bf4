"""The WAL made its full size on opening (`floord.journal.wal_room`): commits overwrite
it instead of making it longer, nothing in it is overwritten by the zeros, a crash's WAL
with zeros past its frames recovers whole, and a disk that refuses the room still opens."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from test_journal_full_round_system import small_filesystem

from floord.contract import Envelope
from floord.journal.checkpointer import WAL_ROOM
from floord.journal.store import Journal
from floord.journal.wal_room import full_size, make_room

pytestmark = pytest.mark.system

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


def test_a_disk_that_refuses_the_room_still_opens_the_journal(tmp_path: Path) -> None:
    """A file size limit of 1 MB (as a full disk would, `EFBIG` for `ENOSPC`): the
    zeros stop short, and the journal opens and records all the same."""
    script = textwrap.dedent(
        f"""
        import resource, signal
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, resource.RLIM_INFINITY))
        from floord.contract import Envelope
        from floord.journal.store import Journal
        def build(seq):
            return Envelope(site="s1", table="t1", seq=seq, ts="2026-01-01T00:00:00.000Z",
                            type="x.y", source="t1", data={{}})
        j = Journal({str(tmp_path / "j.db")!r})
        j.append("t1", build)
        j.append("t1", build)
        import os
        print(j.last_seq("t1"), os.path.getsize({str(tmp_path / "j.db-wal")!r}))
        j.close()
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    seq, wal_size = done.stdout.split()
    assert seq == "2"
    assert int(wal_size) <= 1 << 20 < FULL  # the room was refused


def test_no_room_is_taken_on_a_disk_short_of_space(tmp_path: Path) -> None:
    """On a 4 MiB file system the zeros would leave no room for anything else, and a
    disk that fills would be met frames after the commit that filled it: the WAL grows
    as SQLite needs it instead."""
    with small_filesystem(tmp_path / "small") as mnt:
        path = mnt / "j.db"
        journal = Journal(path)
        try:
            journal.append("t1", build)
            assert 0 < Path(f"{path}-wal").stat().st_size < FULL
        finally:
            journal.close()
