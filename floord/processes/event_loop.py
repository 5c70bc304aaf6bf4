"""The daemon's event loop: the timers it sets half a second or more ahead fall together.

A floor's daemon is idle most of the time. Its tables' clocks tick, each table's MQTT
client keeps its connection (aiomqtt's housekeeping, once a second), each device's
silence is watched, each retained body's pace is kept: every one of them a timer, set
at an instant of its own. A timer that falls alone wakes the loop's thread alone, and a
thread woken from idle, its caches cold, costs far more than the callback it runs: a
task's one-second wake-up took about 100 µs on its own and 7 µs among two hundred woken
together, and the grid below takes about a quarter of an idle roulette table's CPU
(docs/benchmarks.md, "Timers on a shared grid"). So this loop rounds the deadline of every timer set
`COALESCE_FROM_S` or more ahead up to the next multiple of `GRID_S` on the loop's clock:
those timers fall on the same few instants each second, and one wake-up serves them all.
It is the kernel's own timer slack, for the loop's timers.

A timer so rounded fires at most `GRID_S` late, never early. Everything floord sets that
far ahead is a pace or a watchdog (the clock's ticks every 0.5 s, the retained bodies'
pace, a device's silence, MQTT keepalives and acknowledgement timeouts, reconnection
back-offs), and what runs at one reads the clock when it runs: a ruling at a tick is
taken at the tick's own instant, never ahead of it. Timers set closer (a batch's window,
a retry a moment later) are left as they are, and nothing read from a device or the
broker waits for the grid: the loop wakes for I/O when it comes. `floord run` and
`floord adapter` both run on it.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Coroutine
from contextvars import Context
from typing import Any, TypeVar, TypeVarTuple

T = TypeVar("T")
Ts = TypeVarTuple("Ts")

# The grid timers fall on (seconds of the loop's clock), and how far ahead a timer must
# be set to be put on it: 0.1 s is a fifth of the shortest such timer, the clock's tick.
GRID_S = 0.1
COALESCE_FROM_S = 0.5
# A tenth of a microsecond, in grid steps: closer to a grid point than this is on it.
_SAME_POINT = 1e-6


def on_grid(when: float) -> float:
    """The first instant on the grid at or after `when`. An instant on it already, but
    for the float's last digits (a timer set a whole number of steps after a grid point),
    stays there, so a timer that keeps its own pace keeps it exactly."""
    return max(when, math.ceil(when / GRID_S - _SAME_POINT) * GRID_S)


class CoalescingLoop(asyncio.SelectorEventLoop):
    """asyncio's selector loop, its far timers on the grid (`call_later` and
    `asyncio.sleep` come through `call_at`)."""

    def call_at(
        self,
        when: float,
        callback: Callable[[*Ts], object],
        *args: *Ts,
        context: Context | None = None,
    ) -> asyncio.TimerHandle:
        if when - self.time() >= COALESCE_FROM_S:
            when = on_grid(when)
        return super().call_at(when, callback, *args, context=context)


def run(main: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(main)`, on a `CoalescingLoop`."""
    with asyncio.Runner(loop_factory=CoalescingLoop) as runner:
        return runner.run(main)
