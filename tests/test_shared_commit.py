"""Appends queued together share one transaction (`floord.journal.shared_commit`): one
COMMIT for all of them, each failure its own caller's, nothing told before the COMMIT,
and the order they were handed in kept."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from floord.contract import Envelope
from floord.journal.audit import verify_journal
from floord.journal.errors import DISK_FULL, INTERNAL, JournalError
from floord.journal.shared_commit import Write, commit_together
from floord.journal.store import Journal
from floord.journal.writer import OnLoop

pytestmark = pytest.mark.unit


def builder(table: str, n: int) -> Callable[[int], Envelope]:
    def build(seq: int) -> Envelope:
        return Envelope(
            site="s1", table=table, seq=seq, ts="2026-01-01T00:00:00.000Z", type="x.y",
            source="test", data={"n": n},
        )  # fmt: skip

    return build


def broken(seq: int) -> Envelope:
    raise ValueError("a bug building the event")


class Statements:
    """What the journal's connection ran, from its own thread."""

    def __init__(self, journal: Journal) -> None:
        self.seen: list[str] = []
        journal.run(lambda: journal._db.set_trace_callback(self.seen.append))

    def count(self, statement: str) -> int:
        return sum(1 for s in self.seen if s.strip().upper() == statement)


async def behind_a_held_thread(
    journal: Journal, hand: Callable[[], list[asyncio.Future[Any]]]
) -> list[Any]:
    """Hold the journal's thread, hand the jobs in behind it, release it: they are all
    queued when the thread takes the first of them. Their outcomes, errors included."""
    release = threading.Event()
    held = journal.submit(lambda: release.wait(10))
    futures = hand()
    release.set()
    held.result(10)
    return list(await asyncio.gather(*futures, return_exceptions=True))


def test_queued_appends_share_one_commit_in_the_order_they_came(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    journal = Journal(path)
    feed = journal.feeds.follow([f"t{i}" for i in range(5)])
    statements = Statements(journal)
    try:
        outcomes = asyncio.run(
            behind_a_held_thread(
                journal,
                lambda: [
                    journal.append_many_async(f"t{i % 5}", [builder(f"t{i % 5}", i)])
                    for i in range(20)
                ],
            )
        )
        assert [o[0].seq for o in outcomes] == [1] * 5 + [2] * 5 + [3] * 5 + [4] * 5
        assert [o[0].data["n"] for o in outcomes] == list(range(20))
        assert statements.count("COMMIT") == 1, statements.seen
        assert statements.count("BEGIN IMMEDIATE") == 1
        # The publishers' feed has every row, in the order the appends were handed in.
        rows = feed.take(100)
        assert [(stream, seq) for stream, seq, _ in rows] == [
            (f"t{i % 5}", i // 5 + 1) for i in range(20)
        ]
    finally:
        journal.close()
    assert verify_journal(path).broken is None


def test_a_failing_append_fails_alone_and_the_others_are_committed(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    journal = Journal(path)
    feed = journal.feeds.follow(["a", "b", "c"])
    statements = Statements(journal)
    try:
        outcomes = asyncio.run(
            behind_a_held_thread(
                journal,
                lambda: [
                    journal.append_many_async("a", [builder("a", 1)]),
                    journal.append_many_async("b", [builder("b", 1), broken]),
                    journal.append_group_async(
                        "c", [builder("c", 1)], before=[("c/devices/w", [builder("c", 2)])]
                    ),
                ],
            )
        )
        assert outcomes[0][0].seq == 1
        assert isinstance(outcomes[1], JournalError) and outcomes[1].code == INTERNAL
        assert "'b'" in str(outcomes[1])
        written, devices = outcomes[2]
        assert written[0].seq == 1 and devices[0][0].seq == 1
        assert statements.count("COMMIT") == 1
        # Nothing of `b` is on the record or in the feed; its first event was undone too.
        assert journal.last_seq("b") == 0 and journal.last_seq("a") == 1
        assert [stream for stream, _, _ in feed.take(100)] == ["a", "c"]
        # The journal goes on: `b` gets its seq 1 on the next append.
        assert journal.append_many("b", [builder("b", 3)])[0].seq == 1
    finally:
        journal.close()
    assert verify_journal(path).broken is None


def test_acknowledgements_taken_by_an_undone_append_wait_for_the_next(tmp_path: Path) -> None:
    """The first append of a group takes the link's acknowledgements; when it is undone
    they go back, and the next append of the same group writes them."""
    path = tmp_path / "j.db"
    journal = Journal(path)
    try:
        journal.append_many("a", [builder("a", 1), builder("a", 2)])
        journal.acks.add({"a": [1, 2]})
        outcomes = asyncio.run(
            behind_a_held_thread(
                journal,
                lambda: [
                    journal.append_many_async("b", [broken]),
                    journal.append_many_async("c", [builder("c", 1)]),
                ],
            )
        )
        assert isinstance(outcomes[0], JournalError) and outcomes[1][0].seq == 1
        assert not journal.acks
        assert journal.marks(["a"]) == {"a": 2}
    finally:
        journal.close()


def test_a_plain_job_between_appends_sees_the_first_commit_and_keeps_its_place(
    tmp_path: Path,
) -> None:
    journal = Journal(tmp_path / "j.db")
    statements = Statements(journal)
    try:

        def hand() -> list[asyncio.Future[Any]]:
            first = [journal.append_many_async("t", [builder("t", n)]) for n in range(3)]
            between = journal.read_range_async("t", 1, 10)  # handed in at the call
            after = [journal.append_many_async("t", [builder("t", n)]) for n in range(3, 5)]
            return [*first, between, *after]

        outcomes = asyncio.run(behind_a_held_thread(journal, hand))
        assert len(outcomes[3]) == 3  # the plain job ran after the three, before the two
        assert [o[0].seq for o in outcomes[:3] + outcomes[4:]] == [1, 2, 3, 4, 5]
        assert statements.count("COMMIT") == 2
    finally:
        journal.close()


def test_a_full_disk_fails_only_the_appends_that_do_not_fit_alone(tmp_path: Path) -> None:
    """`PRAGMA max_page_count` (as in test_journal_disk_full.py): big appends fill the
    file part way through the group, and SQLite ends the group's transaction. The
    appends then run again alone: the first ones fit, the rest are told DISK_FULL; what
    was committed is on the record, chained, and what failed is not."""
    path = tmp_path / "j.db"
    journal = Journal(path)
    try:
        journal.append_many("a", [builder("a", 0)])
        pages = journal.run(lambda: journal._db.execute("PRAGMA page_count").fetchone()[0])
        journal.run(lambda: journal._db.execute(f"PRAGMA max_page_count={pages + 8}"))

        def big(stream: str, n: int) -> Callable[[int], Envelope]:
            def build(seq: int) -> Envelope:
                return Envelope(
                    site="s1", table=stream, seq=seq, ts="2026-01-01T00:00:00.000Z",
                    type="x.y", source="test", data={"pad": "x" * 6000, "n": n},
                )  # fmt: skip

            return build

        outcomes = asyncio.run(
            behind_a_held_thread(
                journal,
                lambda: [journal.append_many_async(f"s{i}", [big(f"s{i}", i)]) for i in range(12)],
            )
        )
        failed = [o for o in outcomes if isinstance(o, BaseException)]
        assert failed, "the disk never filled"
        kept = len(outcomes) - len(failed)
        assert kept > 0, "nothing fitted"
        assert all(isinstance(o, list) for o in outcomes[:kept])  # those that fit, alone
        assert all(isinstance(o, JournalError) and o.code == DISK_FULL for o in failed)
        for i, outcome in enumerate(outcomes):
            expected = 0 if isinstance(outcome, BaseException) else 1
            assert journal.last_seq(f"s{i}") == expected
        journal.run(lambda: journal._db.execute("PRAGMA max_page_count=1073741823"))
        assert journal.append_many("s0", [builder("s0", 99)])[0].seq == journal.last_seq("s0")
    finally:
        journal.close()
    assert verify_journal(path).broken is None


# --- commit_together on its own, on a plain connection ---------------------------------


class Outcome:
    def __init__(self, cancelled: bool = False) -> None:
        self.cancelled = cancelled
        self.result: object = None
        self.error: BaseException | None = None
        self.settled = 0

    def set_running_or_notify_cancel(self) -> bool:
        return not self.cancelled

    def set_result(self, result: object) -> None:
        self.result, self.settled = result, self.settled + 1

    def set_exception(self, exc: BaseException) -> None:
        self.error, self.settled = exc, self.settled + 1


class Insert(Write):
    """Inserts `value`; `then` runs after the insert (to break things on purpose)."""

    def __init__(self, value: int, then: Callable[[sqlite3.Connection], None] | None = None):
        self.value, self.then = value, then
        self.undone: list[BaseException] = []
        self.told = False

    def write(self, conn: sqlite3.Connection) -> object:
        conn.execute("INSERT INTO t (v) VALUES (?)", (self.value,))
        if self.then is not None:
            self.then(conn)
        return self.value

    def failed(self, exc: BaseException) -> BaseException:
        self.undone.append(exc)
        return RuntimeError(f"{self.value}: {exc}")

    def committed(self) -> None:
        self.told = True


@pytest.fixture
def conn(tmp_path: Path) -> Any:
    db = sqlite3.connect(tmp_path / "t.db", isolation_level=None, timeout=0)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA foreign_keys=ON")
    db.execute("CREATE TABLE p (id INTEGER PRIMARY KEY)")
    db.execute(
        "CREATE TABLE t (v INTEGER, p INTEGER REFERENCES p (id) DEFERRABLE INITIALLY DEFERRED)"
    )
    yield db
    db.close()


def values(db: sqlite3.Connection) -> list[int]:
    return [v for (v,) in db.execute("SELECT v FROM t ORDER BY rowid")]


def run_alone(conn: sqlite3.Connection) -> Callable[[Write, Any], None]:
    def alone(write: Write, out: Any) -> None:
        assert out.set_running_or_notify_cancel()
        try:
            out.set_result(write(conn))
        except BaseException as exc:
            out.set_exception(exc)

    return alone


def test_a_failed_commit_runs_each_part_again_alone_and_only_the_culprit_fails(
    conn: sqlite3.Connection,
) -> None:
    def orphan(db: sqlite3.Connection) -> None:
        db.execute("INSERT INTO t (v, p) VALUES (0, 99)")  # checked only at COMMIT

    writes = [Insert(1), Insert(2, orphan), Insert(3)]
    outs = [Outcome(), Outcome(), Outcome()]
    commit_together(conn, list(zip(writes, outs, strict=True)), run_alone(conn))
    assert values(conn) == [1, 3]
    assert not conn.in_transaction
    assert [o.settled for o in outs] == [1, 1, 1]
    assert outs[0].result == 1 and outs[2].result == 3
    assert isinstance(outs[1].error, RuntimeError) and "FOREIGN KEY" in str(outs[1].error)
    assert [w.told for w in writes] == [True, False, True]
    # Each was undone with the group (what it took given back) before it ran again.
    assert [len(w.undone) for w in writes] == [1, 2, 1]


def test_a_part_that_ends_the_transaction_sends_every_part_again_alone(
    conn: sqlite3.Connection,
) -> None:
    def lose(db: sqlite3.Connection) -> None:
        db.execute("ROLLBACK")  # as SQLite does itself on some I/O and disk-full errors
        raise sqlite3.OperationalError("disk I/O error")

    writes = [Insert(1), Insert(2, lose), Insert(3), Insert(4)]
    outs = [Outcome(), Outcome(), Outcome(cancelled=True), Outcome()]
    commit_together(conn, list(zip(writes, outs, strict=True)), run_alone(conn))
    assert values(conn) == [1, 4]  # 1 again alone, 2 failed again, 3 was cancelled
    assert outs[0].result == 1 and outs[3].result == 4
    assert "disk I/O error" in str(outs[1].error)
    assert outs[2].settled == 0 and [w.told for w in writes] == [True, False, False, True]


def test_a_group_that_cannot_begin_runs_each_write_alone(
    conn: sqlite3.Connection, tmp_path: Path
) -> None:
    other = sqlite3.connect(tmp_path / "t.db", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process holds the file
    try:
        alone: list[int] = []
        inner = run_alone(conn)

        def counting(write: Write, out: Any) -> None:
            alone.append(write.value)  # type: ignore[attr-defined]
            inner(write, out)

        writes = [Insert(1), Insert(2)]
        outs = [Outcome(), Outcome()]
        commit_together(conn, list(zip(writes, outs, strict=True)), counting)
        assert alone == [1, 2]
        assert all("locked" in str(o.error) for o in outs)
    finally:
        other.execute("ROLLBACK")
        other.close()


def test_cancelled_callers_are_skipped_and_the_loop_hears_after_the_commit() -> None:
    """`OnLoop` outcomes (the daemon's): a non-whole caller that gave up is not run."""

    async def scenario() -> tuple[object, bool]:
        loop = asyncio.get_running_loop()
        db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        db.execute("CREATE TABLE t (v INTEGER)")
        given_up: asyncio.Future[object] = loop.create_future()
        given_up.cancel()
        kept: asyncio.Future[object] = loop.create_future()
        writes = [Insert(1), Insert(2)]
        outs = [OnLoop(loop, given_up, False), OnLoop(loop, kept, False)]
        await asyncio.to_thread(
            commit_together, db, list(zip(writes, outs, strict=True)), run_alone(db)
        )
        result = await kept
        return result, values(db) == [2]

    assert asyncio.run(scenario()) == (2, True)
