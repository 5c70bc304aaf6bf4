"""The journal's own thread: the one place its SQLite connection is used.

A commit with `synchronous=FULL` waits for the disk (a fraction of a millisecond on a
fast SSD, milliseconds to tens of them on a table box's eMMC or SD card), a WAL
checkpoint runs inside whichever commit crosses the threshold, and a busy file waits up
to the busy timeout. None of that may hold up the event loop that reads every device and
keeps the broker alive, so each journal owns one thread and every job on its connection
runs there, one at a time, in the order it was handed in.

`run(job)` waits for the job in the calling thread (the command-line tools, the tests,
start-up before anything is served); `call(job)` is awaited on the event loop (and
`hand(job)` gives its future at once), whose future is settled from the thread through
`loop.call_soon_threadsafe`: directly, not through a `concurrent.futures.Future` and
`asyncio.wrap_future` (a lock, a condition and a chained future a call, some 20 to 40 µs
of CPU on every frame's commit). A job whose caller gave up before it started
is not run, either way. A job handed in from the thread itself runs at once.

The publishers' feeds a job fed (`wakes`, `floord.journal.feed.Wake`) are woken in that
same callback, right after the waiter is settled: in the loop's next turn the committer
goes on first (a table's runner hands its next turn to this thread, so the disk is not
left idle while rows go out), then the publisher sends the rows; not a turn later, on
the committer's word, and for one self-pipe write. The wakes of a job that settles
elsewhere (`run`, `submit`) are sent on their own once it ends.

A job that is a `floord.journal.shared_commit.Write` (an append) shares one transaction,
one COMMIT and one fsync, with the writes queued right behind it: see that module.

The thread notes the rows its connection has changed so far and when a job begins and
ends (`changes`): the journal's checkpointer reads them to know when the WAL has grown
by a threshold's frames and whether a commit landed during its copy
(`floord.journal.checkpointer`), without touching the WAL's files.

The thread ends on `close()`, and also when its journal is garbage collected without
one (`weakref.finalize` in the store), so no test or tool leaves a thread behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import sqlite3
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from typing import NamedTuple, TypeVar

from floord.journal.feed import Wake
from floord.journal.shared_commit import MOST, Settles, Write, commit_together

T = TypeVar("T")

Job = Callable[[sqlite3.Connection], T]
# The wakes due of the feeds the jobs so far fed, taken (`floord.journal.feed.Feeds.due`).
Wakes = Callable[[], list[Wake]]


def _no_wakes() -> list[Wake]:
    return []


class WriterThread:
    """One thread owning one SQLite connection; its jobs run in submission order."""

    def __init__(
        self, name: str, connect: Callable[[], sqlite3.Connection], wakes: Wakes = _no_wakes
    ) -> None:
        self._wakes = wakes
        self._jobs: queue.SimpleQueue[tuple[Job[object], Outcome] | None] = queue.SimpleQueue()
        opened: Future[sqlite3.Connection] = Future()
        self._changed = _Changed()
        self._timed = _Timed()
        serving = (self._jobs, connect, opened, self._changed, self._timed, wakes)
        self._thread = threading.Thread(target=_serve, args=serving, name=name, daemon=True)
        self._closed = False
        self._thread.start()
        try:
            self.db = opened.result()
        except BaseException:
            self._thread.join()
            raise

    @property
    def closed(self) -> bool:
        return self._closed

    def changes(self) -> Changes:
        """What the connection has done so far (see `Changes`); read from any thread."""
        return self._changed.now

    def queued(self) -> int:
        """How many jobs wait for the thread (the one running not counted); any thread."""
        return self._jobs.qsize()

    def time_commits(self, observe: Callable[[float], None] | None) -> None:
        """Have each commit of appends (alone or shared) report its duration in seconds,
        from its start to its COMMIT's return, to `observe`, called on the thread."""
        self._timed.observe = observe

    def submit(self, job: Job[T]) -> Future[T]:
        """Hand `job` to the thread; its future holds what it returned or raised."""
        future: Future[T] = Future()
        if self._closed:
            # Runs here on the closed connection and fails at once (see `run`).
            _settle(self.db, job, future)  # type: ignore[arg-type]
            return future
        self._jobs.put((job, future))  # type: ignore[arg-type]
        return future

    def run(self, job: Job[T]) -> T:
        """Run `job` on the thread and wait for it here (never on the event loop).

        Once closed, the job runs here on the closed connection, which fails at once
        with SQLite's own error (the journal names it), as a closed file always did."""
        if self._closed or threading.current_thread() is self._thread:
            return job(self.db)
        return self.submit(job).result()

    async def call(self, job: Job[T]) -> T:
        """Run `job` on the thread; the event loop goes on meanwhile."""
        return await self.hand(job)

    def hand(self, job: Job[T], *, whole: bool = False) -> asyncio.Future[T]:
        """Hand `job` to the thread now (on the loop); the future its outcome settles.

        Cancelling the future (its awaiting task cancelled) before the job starts keeps
        it from running, as for `call`; with `whole`, the job runs all the same, its
        outcome dropped: what a commit needs, to end as the journal decides and not
        half-way: what `asyncio.shield` would give, at two more turns of the loop on
        every frame's commit (a task, then a callback)."""
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[T] = loop.create_future()
        if self._closed:
            try:  # fails at once: the connection is closed
                waiter.set_result(job(self.db))
            except Exception as exc:
                waiter.set_exception(exc)
            return waiter
        self._jobs.put((job, OnLoop(loop, waiter, whole, self._wakes)))  # type: ignore[arg-type]
        return waiter

    def close(self, last: Job[object] | None = None) -> None:
        """Run `last` (closing the connection), then end the thread and wait for it."""
        if self._closed:
            return
        try:
            if last is not None:
                self.run(last)
        finally:
            self._closed = True
            self._jobs.put(None)
            if threading.current_thread() is not self._thread:
                self._thread.join()

    def end_with(self, owner: object) -> None:
        """End the thread when `owner` is garbage collected unclosed."""
        weakref.finalize(owner, self._jobs.put, None)


class OnLoop:
    """Where a job's outcome goes for `call` and `hand`: its waiter on the event loop,
    settled there (the thread never touches the waiter but to see whether it was
    cancelled)."""

    __slots__ = ("_loop", "_waiter", "_wakes", "_whole")

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        waiter: asyncio.Future[object],
        whole: bool,
        wakes: Wakes = _no_wakes,
    ) -> None:
        self._loop = loop
        self._waiter = waiter
        self._whole = whole
        self._wakes = wakes

    def set_running_or_notify_cancel(self) -> bool:
        """False if the caller gave up before the job started: it is not run (unless
        it is to run whole)."""
        return self._whole or not self._waiter.cancelled()

    def set_result(self, result: object) -> None:
        self._settle(result, None)

    def set_exception(self, exc: BaseException) -> None:
        self._settle(None, exc)

    def _settle(self, result: object, exc: BaseException | None) -> None:
        then: list[Callable[[], None]] = []
        for wake in self._wakes():
            if wake.loop is self._loop:
                then.append(wake.call)
            else:
                _send(wake)
        with contextlib.suppress(RuntimeError):  # the loop is closed: no one waits
            self._loop.call_soon_threadsafe(_deliver, self._waiter, result, exc, then)


def _send(wake: Wake) -> None:
    """Run `wake` on its loop (from the journal's thread)."""
    with contextlib.suppress(RuntimeError):  # its loop is closed: no one publishes there
        wake.loop.call_soon_threadsafe(wake.call)


def _deliver(
    waiter: asyncio.Future[object],
    result: object,
    exc: BaseException | None,
    then: list[Callable[[], None]],
) -> None:
    """The waiter settled, then the publishers woken: their tasks run after its caller's
    in the loop's next turn (each wake-up is queued behind the ones before it)."""
    _settle_waiter(waiter, result, exc)
    for wake in then:
        wake()


def _settle_waiter(
    waiter: asyncio.Future[object], result: object, exc: BaseException | None
) -> None:
    if waiter.done():
        return  # cancelled while the job ran: its caller no longer waits
    if exc is not None:
        waiter.set_exception(exc)
    else:
        waiter.set_result(result)


# A job's outcome: a future for `run` and `submit`, the loop's waiter for `call`.
Outcome = Future[object] | OnLoop


class Changes(NamedTuple):
    """What the thread's connection has done so far (`WriterThread.changes`)."""

    rows: int  # the rows it had changed (SQLite's `total_changes`) when its last job ended
    turns: int  # jobs begun plus jobs ended: odd while one runs


class _Timed:
    """Where the thread reports its commits' durations (`WriterThread.time_commits`)."""

    __slots__ = ("observe",)

    def __init__(self) -> None:
        self.observe: Callable[[float], None] | None = None


class _Changed:
    """The thread's `Changes`, replaced whole by the thread only, so that another
    thread reads both of its numbers from the same moment."""

    __slots__ = ("now",)

    def __init__(self) -> None:
        self.now = Changes(0, 0)


def _serve(
    jobs: queue.SimpleQueue[tuple[Job[object], Outcome] | None],
    connect: Callable[[], sqlite3.Connection],
    opened: Future[sqlite3.Connection],
    changed: _Changed,
    timed: _Timed,
    wakes: Wakes,
) -> None:
    try:
        conn = connect()
    except BaseException as exc:
        opened.set_exception(exc)
        return
    opened.set_result(conn)
    held: deque[tuple[Job[object], Outcome] | None] = deque()
    while True:
        item = held.popleft() if held else jobs.get()
        if item is None:
            conn.close()  # a second close is harmless
            return
        changed.now = Changes(changed.now.rows, changed.now.turns + 1)
        if isinstance(item[0], Write):
            began = time.perf_counter()
            group = _queued_behind(item, jobs, held)  # type: ignore[arg-type]
            if len(group) > 1:
                commit_together(conn, group, lambda w, out: _settle(conn, w, out))
            else:
                _settle(conn, *item)
            del group
            if (observe := timed.observe) is not None:
                observe(time.perf_counter() - began)
        else:
            _settle(conn, *item)
        rows = changed.now.rows
        with contextlib.suppress(sqlite3.ProgrammingError):  # the job closed it
            rows = conn.total_changes
        changed.now = Changes(rows, changed.now.turns + 1)
        for wake in wakes():  # what no waiter on a loop took with its outcome
            _send(wake)
        # Hold nothing of a finished job while waiting: a job may hold its journal, which
        # must stay collectable (see `end_with`).
        del item


def _queued_behind(
    first: tuple[Write, Outcome],
    jobs: queue.SimpleQueue[tuple[Job[object], Outcome] | None],
    held: deque[tuple[Job[object], Outcome] | None],
) -> list[tuple[Write, Outcome]]:
    """`first` and the writes queued right behind it, up to the first other job (held
    for after them: order is kept) or `shared_commit.MOST` writes."""
    group = [first]
    while len(group) < MOST:
        try:
            item = jobs.get_nowait()
        except queue.Empty:
            break
        if item is None or not isinstance(item[0], Write):
            held.append(item)
            break
        group.append(item)  # type: ignore[arg-type]
    return group


def _settle(conn: sqlite3.Connection, job: Job[object], future: Settles) -> None:
    if not future.set_running_or_notify_cancel():
        return  # its caller gave up before it started: nothing was done
    try:
        result = job(conn)
    except BaseException as exc:
        future.set_exception(exc)
    else:
        future.set_result(result)
