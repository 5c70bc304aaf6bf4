"""A local device's stream, written in its table's commit: one fsync a frame.

An adapter in the daemon's own process (`floord.adapters.local`, `in_table_commit`) does
not append its device's events itself: each goes to the table at once as a `Received`
carrying its `Row`, and the table's runner writes the row on the device's stream in the
SAME transaction as the table's record of it (`floord.table.recorder`), device rows
first. So a frame costs one commit, not two in a row, and nothing of it is published,
nor acted on outside the engine, before that commit: the engine is pure, and a commit
that fails puts it back (docs/journal.md, "When the journal cannot be written").

The runner numbers the rows in the order it takes them from the bus, which is the
device's order, ahead of the commit (`number`): the table's `named` inputs carry their
`device_seq`. Only the runner writes the stream, one commit at a time, so the
number is the journal's; a failed commit numbers again from the stream's head.

A remote adapter's events come with their own journal's numbers and are copied by the
daemon's follower (`floord.adapters.remote`), unchanged.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from floord.journal.append import Build
from floord.journal.store import Journal


@dataclass(frozen=True)
class Row:
    """One event of a device's stream, to be written in its table's next commit."""

    rows: DeviceRows
    build: Build


class DeviceRows:
    """The numbering of one device stream whose rows its table's commits write."""

    def __init__(self, journal: Journal, stream: str, log: Any) -> None:
        self.stream = stream
        self._log = log
        # The stream's last committed seq (read once, before anything is served).
        self._head = journal.last_seq(stream)
        self._next = self._head + 1
        self._waiting = 0
        self._idle: list[asyncio.Future[None]] = []

    def row(self, build: Build) -> Row:
        """The row of one event, handed to the table with it."""
        self._waiting += 1
        return Row(self, build)

    def number(self) -> int:
        """The seq the next row taken by the runner will get (rows go in that order)."""
        seq = self._next
        self._next += 1
        return seq

    def written(self, seqs: list[int], numbered: list[int]) -> None:
        """These rows are committed, with the journal's `seqs` (the ones `numbered`)."""
        if seqs != numbered:
            # Cannot happen while the runner alone writes the stream; say so if it does.
            self._log.error(
                "device rows numbered apart from the journal", stream=self.stream, seqs=seqs
            )
        if seqs:
            self._head = seqs[-1]
        self._next = max(self._next, self._head + 1)
        self._settle(len(seqs))

    def refused(self, count: int, error: str) -> None:
        """The commit that held `count` rows failed: they are not on the record."""
        self._log.critical("cannot journal device event", error=error, events=count)
        self._next = self._head + 1
        self._settle(count)

    def _settle(self, count: int) -> None:
        self._waiting = max(0, self._waiting - count)
        if self._waiting:
            return
        for waiter in self._idle:
            if not waiter.done():
                waiter.set_result(None)
        self._idle = []

    async def settled(self) -> None:
        """Until every row handed to the table so far is committed (or refused)."""
        if self._waiting:
            waiter = asyncio.get_running_loop().create_future()
            self._idle.append(waiter)
            await waiter
