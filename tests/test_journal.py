"""The journal: numbering that never repeats, atomic snapshots, and a fail-closed error."""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path

import pytest

from floord.contract import Envelope
from floord.journal.store import Journal, JournalError

pytestmark = pytest.mark.unit


def builder(stream: str, note: str = "x"):
    def build(seq: int) -> Envelope:
        return Envelope(
            site="s1",
            table="t1",
            seq=seq,
            ts="2024-05-01T12:00:00.000000Z",
            type="wheel.number",
            source=stream,
            data={"note": note, "é": "ü"},
        )

    return build


@pytest.fixture
def journal(tmp_path: Path):
    j = Journal(tmp_path / "j" / "floord.db")
    yield j
    j.close()


def test_append_numbers_from_one_and_stores_json_verbatim(journal: Journal) -> None:
    first = journal.append("t1", builder("t1"))
    second = journal.append("t1", builder("t1", "y"))
    assert (first.seq, second.seq) == (1, 2)
    assert journal.read_range("t1", 1, 2) == [first.to_json(), second.to_json()]
    assert journal.last_seq("t1") == 2
    assert journal.last_seq("never") == 0


def test_streams_number_independently(journal: Journal) -> None:
    journal.append("t1", builder("t1"))
    journal.append("t1", builder("t1"))
    dev = journal.append("t1/devices/wheel", builder("wheel"))
    assert dev.seq == 1
    assert journal.last_seq("t1") == 2


def test_seq_continues_across_close_and_reopen(tmp_path: Path) -> None:
    path = tmp_path / "floord.db"
    j = Journal(path)
    for _ in range(3):
        j.append("t1", builder("t1"))
    j.mark_published("t1", [1, 2, 3])
    j.close()
    j = Journal(path)
    try:
        assert j.last_seq("t1") == 3
        assert j.append("t1", builder("t1")).seq == 4
        assert j.unpublished(["t1"]) == [("t1", 4, j.read_range("t1", 4, 4)[0])]
    finally:
        j.close()


def test_builder_with_wrong_seq_is_refused_and_nothing_is_kept(journal: Journal) -> None:
    def wrong(seq: int) -> Envelope:
        return builder("t1")(seq + 1)

    with pytest.raises(JournalError, match="seq"):
        journal.append("t1", wrong)
    assert journal.last_seq("t1") == 0
    assert journal.append("t1", builder("t1")).seq == 1


def test_snapshot_is_saved_with_the_event(journal: Journal) -> None:
    assert journal.load_snapshot("t1") is None
    journal.append("t1", builder("t1"), snapshot=("t1", {"phase": "open", "round": 1}))
    assert journal.load_snapshot("t1") == {"phase": "open", "round": 1}
    journal.append("t1", builder("t1"), snapshot=("t1", {"phase": "closed"}))
    assert journal.load_snapshot("t1") == {"phase": "closed"}


def test_failed_append_keeps_neither_event_nor_snapshot(journal: Journal) -> None:
    journal.append("t1", builder("t1"), snapshot=("t1", {"phase": "open"}))
    with pytest.raises(JournalError) as unencodable:
        journal.append("t1", builder("t1"), snapshot=("t1", {"bad": object()}))
    # Not the storage failing: the table's halt must not say the journal failed.
    assert unencodable.value.code == "internal_error"
    assert journal.last_seq("t1") == 1
    assert journal.read_range("t1", 1, 5) == [journal.read_range("t1", 1, 1)[0]]
    assert journal.load_snapshot("t1") == {"phase": "open"}

    def broken(seq: int) -> Envelope:
        raise KeyError("builder bug")

    with pytest.raises(JournalError, match="builder bug") as bug:
        journal.append("t1", broken, snapshot=("t1", {"phase": "halted"}))
    assert bug.value.code == "internal_error"
    assert journal.load_snapshot("t1") == {"phase": "open"}
    assert journal.append("t1", builder("t1")).seq == 2


def test_unpublished_order_limit_mark_and_backlog(journal: Journal) -> None:
    for _ in range(3):
        journal.append("t1/devices/wheel", builder("wheel"))
        journal.append("t1", builder("t1"))
    journal.append("t2", builder("t2"))
    streams = ["t1", "t1/devices/wheel"]
    keys = [(s, q) for s, q, _ in journal.unpublished(streams)]
    assert keys == [("t1", 1), ("t1", 2), ("t1", 3)] + [("t1/devices/wheel", i) for i in (1, 2, 3)]
    assert [(s, q) for s, q, _ in journal.unpublished(streams, limit=2)] == keys[:2]
    assert journal.backlog(streams) == 6
    assert journal.backlog(["t2"]) == 1
    assert journal.unpublished([]) == []

    journal.mark_published("t1", [1, 2])
    assert [(s, q) for s, q, _ in journal.unpublished(streams)] == keys[2:]
    assert journal.backlog(streams) == 4
    journal.mark_published("t1/devices/wheel", [1, 2, 3])
    journal.mark_published("t1", [3])
    assert journal.backlog(streams) == 0
    assert journal.unpublished(streams) == []
    # Published events are still in the record.
    assert len(journal.read_range("t1", 1, 3)) == 3


def test_read_range_is_inclusive_and_checks_its_bounds(journal: Journal) -> None:
    bodies = [journal.append("t1", builder("t1", str(i))).to_json() for i in range(5)]
    assert journal.read_range("t1", 2, 4) == bodies[1:4]
    assert journal.read_range("t1", 4, 100) == bodies[3:]
    assert journal.read_range("t1", 6, 9) == []
    with pytest.raises(ValueError):
        journal.read_range("t1", 3, 2)
    with pytest.raises(ValueError):
        journal.read_range("t1", 0, 2)


def test_a_second_connection_reads_while_the_journal_writes(tmp_path: Path) -> None:
    path = tmp_path / "floord.db"
    journal = Journal(path)
    reader = sqlite3.connect(path, isolation_level=None)
    try:
        journal.append("t1", builder("t1"))
        reader.execute("BEGIN")
        assert reader.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 1
        # An open read transaction does not block the writer (WAL) and sees its snapshot.
        journal.append("t1", builder("t1"))
        assert reader.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 1
        reader.execute("COMMIT")
        assert reader.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 2

        seen_gaps: list[list[int]] = []
        failed: list[BaseException] = []
        done = threading.Event()

        def read_loop() -> None:
            # A reader beside the writer, as `floord status` is (one writer per journal).
            try:
                other = Journal.open_readonly(path)
            except BaseException as exc:
                failed.append(exc)
                raise
            try:
                while not done.is_set():
                    seqs = [json.loads(b)["seq"] for b in other.read_range("t1", 1, 10_000)]
                    if seqs != list(range(1, len(seqs) + 1)):
                        seen_gaps.append(seqs)
            finally:
                other.close()

        thread = threading.Thread(target=read_loop)
        thread.start()
        try:
            for _ in range(200):
                journal.append("t1", builder("t1"))
        finally:
            done.set()
            thread.join(timeout=30)
        assert not thread.is_alive()
        assert failed == []
        assert seen_gaps == []
        assert journal.last_seq("t1") == 202
    finally:
        reader.close()
        journal.close()


def test_command_ids_are_remembered_across_reopen(tmp_path: Path) -> None:
    path = tmp_path / "floord.db"
    j = Journal(path)
    assert not j.command_id_used("abc")
    assert j.record_command_id("abc", "2024-05-01T12:00:00.000000Z") is True
    assert j.record_command_id("abc", "2024-05-01T12:00:01.000000Z") is False
    assert j.command_id_used("abc")
    j.close()
    j = Journal(path)
    try:
        assert j.command_id_used("abc")
        assert not j.command_id_used("abd")
    finally:
        j.close()


def test_a_closed_journal_raises_journal_error(tmp_path: Path) -> None:
    j = Journal(tmp_path / "floord.db")
    j.close()
    with pytest.raises(JournalError, match=r"floord\.db"):
        j.append("t1", builder("t1"))
    with pytest.raises(JournalError):
        j.last_seq("t1")


def test_a_file_that_is_not_a_database_raises_journal_error(tmp_path: Path) -> None:
    path = tmp_path / "floord.db"
    path.write_bytes(b"this is not sqlite, " * 100)
    with pytest.raises(JournalError, match="cannot"):
        Journal(path)


def test_append_many_is_all_or_nothing(tmp_path: Path) -> None:
    """A table's input and the decisions it caused go on the record together or not at all."""
    journal = Journal(tmp_path / "j.db")

    def make(kind: str):
        return lambda seq: Envelope(
            site="s", table="T", seq=seq, ts="2026-01-01T00:00:00.000000Z", type=kind, source="x"
        )

    written = journal.append_many("T", [make("a"), make("b")], snapshot=("T", {"n": 2}))
    assert [e.seq for e in written] == [1, 2]

    def broken(seq: int):
        raise ValueError("boom")

    with pytest.raises(JournalError):
        journal.append_many("T", [make("c"), broken], snapshot=("T", {"n": 3}))
    assert journal.last_seq("T") == 2
    assert journal.load_snapshot("T") == {"n": 2}
    assert [e.seq for e in journal.append_many("T", [make("d")])] == [3]
    journal.close()
