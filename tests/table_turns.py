"""Driving a table's runner from a synchronous test, through the daemon's own path.

A runner records only through its one async path (`TableRunner.take`, the run loop's;
`Daemon.restore` of a table; `TableRunner.finish`). These run each of them to its end
on a loop of their own, so a test reads like the inputs it feeds.
"""

from __future__ import annotations

import asyncio
from datetime import datetime

from floord.processes.daemon import Daemon
from floord.table.bus import BusItem
from floord.table.runner import TableRunner


def restore(daemon: Daemon) -> None:
    """Every table of `daemon` restored and its start recorded, as `floord run` does."""

    async def all_tables() -> None:
        for unit in daemon.tables.values():
            await daemon.restore(unit)

    asyncio.run(all_tables())


def take(runner: TableRunner, *items: BusItem) -> None:
    """`items` taken by the runner as one group, as its loop takes what waits on its bus."""
    asyncio.run(runner.take(items))


def finish(runner: TableRunner, now: datetime, reason: str = "clean stop") -> None:
    """`daemon.stopped` recorded, the table's last event."""
    asyncio.run(runner.finish(now, reason))
