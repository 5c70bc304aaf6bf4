"""A device stream's appends, off the event loop and in order.

An adapter that writes its device's stream itself (a `floord adapter` process's, the
daemon's follower of a remote one; not the daemon's own, whose rows go in the table's
commit: `floord.adapters.device_rows`) records each event there BEFORE the table hears
of it. The append runs on
the journal's own thread (`floord.journal.writer`), so the loop that reads every device
goes on meanwhile; what arrives while an append is under way waits, and goes in the next
append, all of it in ONE transaction (a read of several frames costs one commit). Each
item is handed on (`then(seq)`) only once its append is settled, in the order the items
came: nothing reaches the table before it is durable, and the table hears the device in
the device's order.

An item may carry no event (`build` None): something the adapter observed about the
device that is not on its stream (a remote adapter gone silent); it is handed on in its
place in the order, after what came before it is durable.

Without a running loop (a synchronous caller: a test, a tool) an item is appended and
handed on at once.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from floord.contract import Envelope
from floord.journal.append import Build
from floord.journal.store import Journal, JournalError

Then = Callable[[int], None]

# How many items one append takes at most: what came while the last one was under way
# (the events of one read, of a burst), in one transaction.
BATCH = 500


class StreamAppends:
    """The pending appends of one stream, and the one append under way.

    No task: the append under way is a job on the journal's thread whose completion is
    handed back to the loop (`call_soon_threadsafe`), so a loop that ends with an append
    under way leaves nothing pending behind it."""

    def __init__(self, journal: Journal, stream: str, log: Any, *, published: bool = False) -> None:
        self._journal = journal
        self._stream = stream
        self._log = log
        # A copy of a stream someone else already published (a remote adapter's).
        self._published = published
        self._pending: list[tuple[Build | None, Then]] = []
        self._busy = False
        self._idle: list[asyncio.Future[None]] = []

    def add(self, build: Build | None, then: Then) -> None:
        """Append `build`'s event (if any), then call `then(seq)`; seq 0: not recorded."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._settle([(build, then)], self._append_now([build]))
            return
        self._pending.append((build, then))
        if not self._busy:
            # On the loop's next turn: what the rest of this read gives goes along.
            self._busy = True
            loop.call_soon(self._next, loop)

    async def settled(self) -> None:
        """Until everything added so far is appended and handed on."""
        if self._busy:
            waiter = asyncio.get_running_loop().create_future()
            self._idle.append(waiter)
            await waiter

    def _next(self, loop: asyncio.AbstractEventLoop) -> None:
        """Start the next append: what waits, up to BATCH items, in one transaction."""
        if not self._pending:
            self._busy = False
            for waiter in self._idle:
                if not waiter.done():
                    waiter.set_result(None)
            self._idle = []
            return
        self._busy = True
        batch, self._pending = self._pending[:BATCH], self._pending[BATCH:]
        builds = [build for build, _ in batch]
        todo = [b for b in builds if b is not None]
        if not todo:
            loop.call_soon(self._done, loop, batch, builds, [])
            return
        published = self._published
        # Handed in now; it shares its commit with the appends queued beside it.
        job = self._journal.append_many_soon(self._stream, todo, published=published)

        def back_on_the_loop(_: object) -> None:
            with contextlib.suppress(RuntimeError):  # the loop is gone: nobody to tell
                loop.call_soon_threadsafe(self._done, loop, batch, builds, job)

        job.add_done_callback(back_on_the_loop)

    def _done(
        self,
        loop: asyncio.AbstractEventLoop,
        batch: list[tuple[Build | None, Then]],
        builds: list[Build | None],
        job: Future[list[Envelope]] | list[Envelope],
    ) -> None:
        written: list[Envelope] | None
        try:
            written = job if isinstance(job, list) else job.result()
        except JournalError as exc:
            self._failed(exc, builds)
            written = None
        try:
            self._settle(batch, _seqs(builds, written))
        finally:
            self._next(loop)

    def _append_now(self, builds: list[Build | None]) -> list[int]:
        todo = [b for b in builds if b is not None]
        try:
            written = (
                self._journal.append_many(self._stream, todo, published=self._published)
                if todo
                else []
            )
        except JournalError as exc:
            self._failed(exc, builds)
            return _seqs(builds, None)
        return _seqs(builds, written)

    def _failed(self, exc: JournalError, builds: list[Build | None]) -> None:
        # The table's runner will fail to record them too and halt the table; the events
        # still go to the engine so the halt names what happened.
        count = sum(1 for b in builds if b is not None)
        if count:
            self._log.critical("cannot journal device event", error=str(exc), events=count)

    def _settle(self, batch: list[tuple[Build | None, Then]], seqs: list[int]) -> None:
        for (_, then), seq in zip(batch, seqs, strict=True):
            try:
                then(seq)
            except Exception:
                # One hand-over failing (a bug) must not keep the others from the table.
                self._log.exception("handing a device event on failed")


def _seqs(builds: list[Build | None], written: list[Envelope] | None) -> list[int]:
    """Each item's seq on the stream; 0 for an item with no event, or not recorded."""
    if written is None:
        return [0] * len(builds)
    seqs = iter(env.seq for env in written)
    return [next(seqs) if b is not None else 0 for b in builds]
