"""The journal's own thread (`floord.journal.writer`): the loop goes on while SQLite works,
jobs keep their order, and no thread outlives its journal."""

from __future__ import annotations

import asyncio
import gc
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from floord.contract import Envelope
from floord.journal.store import Journal

pytestmark = pytest.mark.unit


def journal_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("journal ")]


def builder(stream: str, n: int) -> Callable[[int], Envelope]:
    def build(seq: int) -> Envelope:
        return Envelope(
            site="s1", table="t1", seq=seq, ts="2026-01-01T00:00:00.000Z", type="x.y",
            source=stream, data={"n": n},
        )  # fmt: skip

    return build


def test_the_loop_goes_on_while_the_journal_works(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.db")

    async def scenario() -> tuple[int, list[int]]:
        beats = 0

        async def heartbeat() -> None:
            nonlocal beats
            while True:
                await asyncio.sleep(0.01)
                beats += 1

        beat = asyncio.create_task(heartbeat())
        # A job that holds the journal's thread for 0.3 s (a slow disk, a checkpoint),
        # then appends awaited behind it, in the order they were handed in.
        slow = asyncio.create_task(journal.call(lambda: time.sleep(0.3)))
        appends = [
            asyncio.ensure_future(journal.append_many_async("t1", [builder("t1", n)]))
            for n in range(20)
        ]
        await slow
        written = await asyncio.gather(*appends)
        beat.cancel()
        return beats, [envs[0].seq for envs in written]

    try:
        beats, seqs = asyncio.run(scenario())
    finally:
        journal.close()
    assert beats >= 10, f"the loop beat only {beats} times in 0.3 s: it waited for SQLite"
    assert seqs == list(range(1, 21))


def test_a_failed_job_raises_on_the_loop_and_the_thread_goes_on(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.db")

    async def scenario() -> int:
        try:
            await journal.call(lambda: 1 / 0)
        except ZeroDivisionError:
            pass
        else:
            raise AssertionError("the job's error was not raised")
        await journal.append_many_async("t1", [builder("t1", 1)])
        return journal.last_seq("t1")

    try:
        assert asyncio.run(scenario()) == 1
    finally:
        journal.close()


def test_an_append_handed_over_runs_whole_though_its_caller_is_cancelled(tmp_path: Path) -> None:
    """A commit ends as the journal decides, not half-way: an append queued behind a slow
    job still lands when the task awaiting it is cancelled, while a plain job cancelled
    before it started is not run (`WriterThread.hand`'s `whole`)."""
    journal = Journal(tmp_path / "j.db")
    ran: list[str] = []

    async def scenario() -> tuple[bool, bool]:
        slow = asyncio.ensure_future(journal.call(lambda: time.sleep(0.3)))
        await asyncio.sleep(0.05)  # the slow job holds the thread

        async def append() -> None:
            await journal.append_many_async("t1", [builder("t1", 1)])

        async def plain() -> None:
            await journal.call(lambda: ran.append("plain"))

        appending = asyncio.create_task(append())
        other = asyncio.create_task(plain())
        await asyncio.sleep(0)  # both handed over, behind the slow job
        appending.cancel()
        other.cancel()
        await asyncio.gather(appending, other, return_exceptions=True)
        await slow
        await journal.call(lambda: None)  # everything handed before it has run
        return appending.cancelled(), other.cancelled()

    try:
        assert asyncio.run(scenario()) == (True, True)
        assert journal.last_seq("t1") == 1, "the cancelled caller's append did not land"
        assert ran == [], "a plain job cancelled before it started still ran"
    finally:
        journal.close()


def test_close_ends_the_thread_and_a_dropped_journal_ends_its_own(tmp_path: Path) -> None:
    before = set(journal_threads())
    journal = Journal(tmp_path / "a.db")
    assert len(set(journal_threads()) - before) == 1
    journal.close()
    journal.close()  # a second close does nothing
    assert set(journal_threads()) - before == set()

    dropped = Journal(tmp_path / "b.db")
    dropped.append("t1", builder("t1", 1))
    [thread] = set(journal_threads()) - before
    del dropped
    gc.collect()
    thread.join(timeout=5)
    assert not thread.is_alive()


def test_the_thread_reports_its_changed_rows_and_when_a_job_runs(tmp_path: Path) -> None:
    """`changes()`: the connection's total_changes after each job, and an odd count of
    turns while one runs (what the checkpointer reads to know a copy was quiet)."""
    journal = Journal(tmp_path / "j.db")
    try:
        writer = journal._writer
        before = writer.changes()
        assert before.turns % 2 == 0
        running, release = threading.Event(), threading.Event()

        def job(db: object) -> None:
            running.set()
            release.wait(10)

        done = writer.submit(job)
        assert running.wait(10)
        during = writer.changes()
        assert during.turns % 2 == 1 and during.rows == before.rows
        release.set()
        done.result(10)
        journal.append("t1", _event)
        deadline = time.monotonic() + 10  # noted just after the append's caller is told
        while (after := writer.changes()).turns < before.turns + 4:
            assert time.monotonic() < deadline
            time.sleep(0.001)
        assert after.turns % 2 == 0 and after.rows > before.rows
    finally:
        journal.close()


def _event(seq: int) -> Envelope:
    return Envelope(
        site="s1", table="t1", seq=seq, ts="2026-01-01T00:00:00.000Z", type="x.y",
        source="t1", data={},
    )  # fmt: skip
