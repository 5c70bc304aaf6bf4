"""A local device's stream, written in its table's commit: one fsync a frame.

An adapter in the daemon's own process (`floord.adapters.local`, `in_table_commit`) does
not append its device's events itself: each goes to the table at once as a `Received`
carrying its `Row`, and the table's recorder writes the row on the device's stream in
the SAME transaction as the table's record of it (`floord.table.recorder`), device rows
first. So a frame costs one commit, not two in a row, and nothing of it is published,
nor acted on outside the engine, before that commit: the engine is pure, and a commit
that fails puts it back (docs/journal.md, "When the journal cannot be written").

The journal numbers each row inside that transaction, and the recorder reports the
number back on the row (`seq`; 0 while it is on no stream). A remote adapter's events
come with their own journal's numbers and are copied by the daemon's follower
(`floord.adapters.remote`), unchanged.
"""

from __future__ import annotations

import asyncio
from typing import Any

from floord.journal.append import Build


class Row:
    """One event of a device's stream, to be written in its table's next commit."""

    __slots__ = ("build", "rows", "seq")

    def __init__(self, rows: DeviceRows, build: Build) -> None:
        self.rows = rows
        self.build = build
        # Its number on the stream, reported back once it is on the record.
        self.seq = 0


class DeviceRows:
    """The rows of one device stream its table's commits write: how many are still to
    be committed, so the adapter can wait until what its device said is on the record."""

    def __init__(self, stream: str, log: Any) -> None:
        self.stream = stream
        self._log = log
        self._waiting = 0
        self._idle: list[asyncio.Future[None]] = []

    def row(self, build: Build) -> Row:
        """The row of one event, handed to the table with it."""
        self._waiting += 1
        return Row(self, build)

    def written(self, count: int) -> None:
        """`count` rows are committed."""
        self._settle(count)

    def refused(self, count: int, error: str) -> None:
        """The commit that held `count` rows failed: they are not on the record."""
        self._log.critical("cannot journal device event", error=error, events=count)
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
