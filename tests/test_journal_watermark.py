"""The published watermark (`floord.journal.watermark`): one mark per stream, moved over
the acknowledged run without an fsync, filled from the per-row flags of an older file,
and folded back into those flags when the journal closes."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from floord.contract import Envelope
from floord.journal.checkpointer import Checkpointer, catch_up
from floord.journal.store import Journal, JournalError
from floord.journal.watermark import SCHEMA, mark

pytestmark = pytest.mark.unit


def builder(stream: str) -> Callable[[int], Envelope]:
    def build(seq: int) -> Envelope:
        return Envelope(
            site="s1", table="t1", seq=seq, ts="2026-01-01T00:00:00.000Z", type="x.y",
            source=stream, data={},
        )  # fmt: skip

    return build


def by_hand(path: Path, *statements: str) -> None:
    """Edit the closed file as another version (or a person) would have left it."""
    db = sqlite3.connect(path, isolation_level=None)
    try:
        for statement in statements:
            db.execute(statement)
    finally:
        db.close()


def rows(path: Path, sql: str) -> list[tuple]:
    db = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    try:
        return db.execute(sql).fetchall()
    finally:
        db.close()


def test_a_mark_past_a_gap_does_not_count_and_no_fsync_setting_stays(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    journal = Journal(path)
    try:
        for _ in range(6):
            journal.append("t1", builder("t1"))
        journal.mark_published("t1", [1, 2, 4, 5])  # 3 not acknowledged
        assert [seq for _, seq, _ in journal.unpublished(["t1"])] == [3, 4, 5, 6]
        journal.mark_published("t1", [3])
        assert [seq for _, seq, _ in journal.unpublished(["t1"])] == [4, 5, 6]
        journal.mark_published("t1", [2])  # an old acknowledgement moves nothing back
        assert journal.backlog(["t1"]) == 3
        # The mark is written without an fsync; the events' commits keep theirs.
        assert journal._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        assert rows(path, "SELECT up_to_seq FROM published_marks") == [(3,)]
        # Not one row flag was written for it: they are folded on close.
        assert rows(path, "SELECT COUNT(*) FROM events WHERE published = 1") == [(0,)]
    finally:
        journal.close()
    assert rows(path, "SELECT seq FROM events WHERE published = 1 ORDER BY seq") == [
        (1,),
        (2,),
        (3,),
    ]


INDEX = "SELECT name FROM sqlite_schema WHERE name = 'events_unpublished'"


def test_a_new_journal_keeps_no_index_on_the_flag(tmp_path: Path) -> None:
    """Every commit of an event would write a page of it too."""
    path = tmp_path / "j.db"
    Journal(path).close()
    assert rows(path, INDEX) == []


def test_the_index_an_older_version_kept_is_retired_and_its_flags_folded(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    journal = Journal(path)
    for _ in range(5):
        journal.append("t1", builder("t1"))
    journal.append("t1/devices/w", builder("t1/devices/w"))
    journal.mark_published("t1", [1, 2, 3])
    journal.close()
    # As a version that kept the index left it: its index, and the flags behind the marks
    # (it flagged rows itself, and knew nothing of the fold's record).
    by_hand(
        path,
        "UPDATE events SET published = 0",
        "DELETE FROM meta WHERE key = 'published_folded'",
        "CREATE INDEX events_unpublished ON events (stream, seq) WHERE published = 0",
    )

    journal = Journal(path)
    try:
        assert journal._db.execute(INDEX).fetchall() == []
        # Folded up to the marks at the retirement, and the fold's place noted.
        flagged = "SELECT stream, seq FROM events WHERE published = 1 ORDER BY stream, seq"
        assert journal._db.execute(flagged).fetchall() == [("t1", 1), ("t1", 2), ("t1", 3)]
        folded = journal._db.execute("SELECT value FROM meta WHERE key = 'published_folded'")
        assert folded.fetchall() == [('{"t1":3}',)]
        assert [seq for _, seq, _ in journal.unpublished(["t1"])] == [4, 5]
        journal.append("t1", builder("t1"))
        journal.mark_published("t1", [4, 5, 6])
        journal.mark_published("t1/devices/w", [1])
        # A row below the fold's place set back by hand: the next fold does not scan the
        # stream again from its start, only what came since.
        journal._db.execute("UPDATE events SET published = 0 WHERE stream = 't1' AND seq = 1")
    finally:
        journal.close()
    assert rows(path, "SELECT stream, seq FROM events WHERE published = 1 ORDER BY 1, 2") == [
        ("t1", 2), ("t1", 3), ("t1", 4), ("t1", 5), ("t1", 6), ("t1/devices/w", 1),
    ]  # fmt: skip
    assert rows(path, "SELECT value FROM meta WHERE key = 'published_folded'") == [
        ('{"t1":6,"t1/devices/w":1}',)
    ]


def test_an_unreadable_fold_record_folds_every_stream_from_its_start(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    journal = Journal(path)
    try:
        journal.append_many("t1", [builder("t1")] * 3)
        journal.mark_published("t1", [1, 2])
        journal._db.execute("INSERT INTO meta (key, value) VALUES ('published_folded', 'not json')")
    finally:
        journal.close()
    assert rows(path, "SELECT seq FROM events WHERE published = 1 ORDER BY seq") == [(1,), (2,)]


def test_an_older_file_gets_its_marks_from_the_flags(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    journal = Journal(path)
    for _ in range(4):
        journal.append("t1", builder("t1"))
        journal.append("t1/devices/wheel", builder("wheel"))
    journal.close()
    # As a floord before the watermarks left it: flags only.
    by_hand(
        path,
        "DROP TABLE published_marks",
        "DELETE FROM meta WHERE key = 'published_marks'",
        "UPDATE events SET published = 1 WHERE stream = 't1' AND seq IN (1, 2, 4)",
        "UPDATE events SET published = 1 WHERE stream = 't1/devices/wheel'",
    )

    journal = Journal(path)
    try:
        assert [seq for _, seq, _ in journal.unpublished(["t1"])] == [3, 4]
        assert journal.backlog(["t1/devices/wheel"]) == 0
        meta = dict(journal._db.execute("SELECT key, value FROM meta").fetchall())
        assert meta["published_marks"] == '{"streams": 2}'
        assert meta["schema_version"] == "3"
    finally:
        journal.close()


def test_a_remote_copy_is_stored_as_published_in_its_own_transaction(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.db")
    try:
        journal.append_many("t1/devices/wheel", [builder("wheel")] * 3, published=True)
        assert journal.backlog(["t1/devices/wheel"]) == 0
        journal.append("t1/devices/wheel", builder("wheel"))
        assert [seq for _, seq, _ in journal.unpublished(["t1/devices/wheel"])] == [4]
    finally:
        journal.close()


def test_a_mark_never_checkpoints_the_wal_without_an_fsync(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A checkpoint inside the mark's commit (synchronous=OFF) would copy the WAL into the
    file unsynced and then write the WAL again over its frames: the events' only durable
    copy. The journal's connection never checkpoints (not even past the threshold, and
    the marks' commits leave it so); the checkpointer's thread does, with its fsyncs
    (`floord.journal.checkpointer`), held back here until the marks are written.

    The WAL's size counts its frames here, so it is not made its full size on opening
    (`floord.journal.wal_room`, tested on its own)."""
    monkeypatch.setattr("floord.journal.store.make_room", lambda *_: 0)
    path = tmp_path / "j.db"
    wal = tmp_path / "j.db-wal"
    journal = Journal(path)
    assert journal._checkpoints is not None
    journal._checkpoints.close()
    big = {"pad": "x" * 3000}

    def event(seq: int) -> Envelope:
        return Envelope(site="s1", table="t1", seq=seq, ts="2026-01-01T00:00:00.000Z",
                        type="x.y", source="t1", data=big)  # fmt: skip

    try:
        n = 0
        while wal.stat().st_size < 990 * (4096 + 24):  # just under the 1,000 frames
            n += 1
            journal.append("t1", event)
        backfilled = path.stat().st_size
        for seq in range(1, n + 1):  # enough marks to pass the threshold
            journal.mark_published("t1", [seq])
        journal.append("t1", event)  # and an event's commit, synchronous=FULL
        assert wal.stat().st_size > 1000 * (4096 + 24)
        assert path.stat().st_size == backfilled  # nothing copied into the file
        assert journal._db.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0
        checkpoints = Checkpointer(
            path, lambda: sqlite3.connect(path, check_same_thread=False),
            lambda: journal._writer.submit(catch_up), journal._writer.changes, pages=10,
            look_every_s=0.01,
        )  # fmt: skip
        try:
            deadline = time.monotonic() + 10
            while checkpoints.checkpoints == 0 and time.monotonic() < deadline:
                time.sleep(0.01)
        finally:
            checkpoints.close()
        assert path.stat().st_size > backfilled
    finally:
        journal.close()


def test_acknowledgements_handed_in_are_written_by_the_next_write(tmp_path: Path) -> None:
    """The link hands its PUBACKs in (`journal.acks`): the next commit of events writes
    them in its own transaction, a read of what is unpublished writes them first, a
    refused commit leaves them for the next write, and a close writes the last ones."""
    path = tmp_path / "j.db"
    journal = Journal(path)
    try:
        journal.append_many("t1", [builder("t1")] * 4)
        journal.append("t1/devices/w", builder("t1/devices/w"))
        journal.acks.add({"t1": [1, 2]})
        journal.acks.add({"t1": [3], "t1/devices/w": [1]})
        assert rows(path, "SELECT COUNT(*) FROM published_marks") == [(0,)]
        journal.append("t1", builder("t1"))  # the next commit takes them
        assert not journal.acks
        assert sorted(rows(path, "SELECT stream, up_to_seq FROM published_marks")) == [
            ("t1", 3),
            ("t1/devices/w", 1),
        ]

        def broken(seq: int) -> Envelope:
            raise ValueError("a bug building the event")

        journal.acks.add({"t1": [4, 6]})  # 5 not acknowledged: only 4 counts
        with pytest.raises(JournalError):
            journal.append_many("t1", [broken])
        assert journal.acks  # rolled back with the commit, kept for the next write
        assert [seq for _, seq, _ in journal.unpublished(["t1"])] == [5]
        assert not journal.acks
        journal.acks.add({"t1": [5]})
        assert journal.backlog(["t1"]) == 0  # a count writes them first, too
        journal.append("t1", builder("t1"))
        journal.acks.add({"t1": [6]})
    finally:
        journal.close()
    assert rows(path, "SELECT up_to_seq FROM published_marks WHERE stream = 't1'") == [(6,)]


@pytest.mark.parametrize("stored", ["x", b"\x00", 2.5])
def test_a_mark_that_is_no_integer_is_no_mark(stored: object) -> None:
    """A watermark edited by hand: none, so the stream's events all go out again (as an
    unreadable fold record folds every stream from its start), never a crash."""
    db = sqlite3.connect(":memory:")
    db.executescript(SCHEMA)
    db.execute("INSERT INTO published_marks (stream, up_to_seq) VALUES ('RL-01', ?)", (stored,))
    assert mark(db, "RL-01") == 0
    db.execute("UPDATE published_marks SET up_to_seq = 7")
    assert mark(db, "RL-01") == 7
    db.close()


@pytest.mark.parametrize("stored", ["x", b"\x00", 2.5])
def test_a_journal_with_a_mark_that_is_no_integer_closes_cleanly(
    tmp_path: Path, stored: object
) -> None:
    """The fold at close reads every mark: one edited by hand crashed the daemon's stop
    (no `floord stopped`, exit 1); it is no mark, as `mark` reads it."""
    path = tmp_path / "j.db"
    journal = Journal(path)
    try:
        journal.append_many("t1", [builder("t1")] * 3)
        journal.mark_published("t1", [1, 2])
        journal._db.execute("UPDATE published_marks SET up_to_seq = ?", (stored,))
    finally:
        journal.close()
    assert rows(path, "SELECT seq FROM events WHERE published = 1 ORDER BY seq") == []
