"""The in-process event bus between a table's adapters, its operators and its engine.

One queue per table, drained by one task (the table's runner), so the engine sees
device events, operator commands and clock ticks one at a time in arrival order (and,
last, the daemon's stop).
The journal and MQTT meet the engine only here: nothing else calls into it.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import datetime

from floord.adapters.local import Received
from floord.journal.batches import INPUTS_PER_COMMIT


@dataclass(frozen=True)
class CommandArrived:
    """Raw bytes published on `P/cmd` (or, `replay_only`, on `P/replay/request`); not yet
    verified."""

    payload: bytes
    replay_only: bool = False


@dataclass(frozen=True)
class Tick:
    """The clock moved on; the engine may have time-based decisions to take."""

    now: datetime


@dataclass(frozen=True)
class Finish:
    """The daemon's stop: the runner records `daemon.stopped` once every input queued
    before this is taken, stamped by its own clock then (`floord.table.stopping`)."""

    reason: str = "clean stop"


BusItem = Received | CommandArrived | Tick | Finish

# The most inputs the runner takes through the engine as one group, and so commits as one
# transaction (floord's own policy, no regulation). A burst the daemon reads in one go (a
# whole pty buffer: thousands of frames) would otherwise be one commit of several thousand
# rows: nothing of it is published until that commit ends, and its rows overflow the
# journal's feed (`floord.journal.feed.FEED_LIMIT`), so the link re-reads them from disk.
# A few hundred inputs keep the fsyncs per input small and every commit's rows in the feed:
# `INPUTS_PER_COMMIT` is derived from the feed's size there.
GROUP_LIMIT = INPUTS_PER_COMMIT


class TableBus:
    """An unbounded FIFO: a device event is never dropped because the engine is busy."""

    def __init__(self) -> None:
        self._queue: asyncio.Queue[BusItem] = asyncio.Queue()

    def put(self, item: BusItem) -> None:
        self._queue.put_nowait(item)

    async def get(self) -> BusItem:
        return await self._queue.get()

    def take_group(self, first: BusItem, limit: int = GROUP_LIMIT) -> list[BusItem]:
        """`first` (the item the runner waited for) and the items waiting now behind it,
        at most `limit` in all, in order, without waiting for more: the runner takes them
        through the engine together and commits them once. The rest stay queued, in
        order, for the next group."""
        items: list[BusItem] = [first]
        queue = self._queue
        while len(items) < limit and not queue.empty():
            items.append(queue.get_nowait())
        return items

    def pending(self) -> int:
        return self._queue.qsize()
