"""A device stream's appends, off the event loop and in order.

An adapter (in-process, or the daemon's follower of a remote one) records each of its
device's events on the device's stream BEFORE the table hears of it. The append runs on
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
handed on at once, as before.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from floord.contract import Envelope
from floord.journal.append import Build
from floord.journal.store import Journal, JournalError

Then = Callable[[int], None]

# How many items one append takes at most: what came while the last one was under way
# (the events of one read, of a burst), in one transaction.
BATCH = 500


class StreamAppends:
    """The pending appends of one stream and the one task that settles them."""

    def __init__(self, journal: Journal, stream: str, log: Any, *, published: bool = False) -> None:
        self._journal = journal
        self._stream = stream
        self._log = log
        # A copy of a stream someone else already published (a remote adapter's).
        self._published = published
        self._pending: list[tuple[Build | None, Then]] = []
        self._task: asyncio.Task[None] | None = None

    def add(self, build: Build | None, then: Then) -> None:
        """Append `build`'s event (if any), then call `then(seq)`; seq 0: not recorded."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._settle([(build, then)], self._append_now([build]))
            return
        self._pending.append((build, then))
        if self._task is None or self._task.done():
            self._task = loop.create_task(self._drain())

    async def settled(self) -> None:
        """Until everything added so far is appended and handed on (even if cancelled)."""
        while self._task is not None and not self._task.done():
            with contextlib.suppress(Exception):
                await asyncio.shield(self._task)

    async def _drain(self) -> None:
        while self._pending:
            batch, self._pending = self._pending[:BATCH], self._pending[BATCH:]
            builds = [build for build, _ in batch]
            todo = [b for b in builds if b is not None]
            try:
                written = (
                    await self._journal.append_many_async(
                        self._stream, todo, published=self._published
                    )
                    if todo
                    else []
                )
            except JournalError as exc:
                self._failed(exc, builds)
                written = None
            self._settle(batch, _seqs(builds, written))

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
