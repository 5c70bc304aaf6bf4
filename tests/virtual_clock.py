"""An asyncio event loop whose clock moves only when it would otherwise wait.

For unit tests of code that times things on the loop's own clock (`loop.time()`,
`call_at`, `asyncio.sleep`, `asyncio.timeout`) and nothing else: a test of a one-second
limit takes no second of the wall clock, and a loaded machine's late wake-up can never be
taken for a timeout, so the test asserts exact outcomes. Built from public parts only: a
`SelectorEventLoop` given a selector that, when nothing is ready and the loop would wait
`timeout` seconds for its next timer, moves the clock on by exactly that instead.

Not for code that waits on another thread or a process: their time is the wall clock's.
"""

from __future__ import annotations

import asyncio
import selectors
from collections.abc import Coroutine, Mapping
from typing import Any, TypeVar

T = TypeVar("T")


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0


class _SkippingSelector(selectors.BaseSelector):
    """A real selector for the loop's own file descriptors (its self-pipe), whose waits
    for a timer are skipped: the clock is moved to the timer's moment at once."""

    def __init__(self, clock: _Clock) -> None:
        self._real = selectors.DefaultSelector()
        self._clock = clock

    def register(self, fileobj: Any, events: int, data: Any = None) -> selectors.SelectorKey:
        return self._real.register(fileobj, events, data)

    def unregister(self, fileobj: Any) -> selectors.SelectorKey:
        return self._real.unregister(fileobj)

    def modify(self, fileobj: Any, events: int, data: Any = None) -> selectors.SelectorKey:
        return self._real.modify(fileobj, events, data)

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        ready = self._real.select(0)
        if ready or timeout is None:
            # Something to do now, or no timer at all: only a descriptor can wake the loop.
            return ready or self._real.select(None)
        self._clock.now += max(timeout, 0.0)
        return []

    def get_map(self) -> Mapping[Any, selectors.SelectorKey]:
        return self._real.get_map()

    def close(self) -> None:
        self._real.close()


class VirtualClockLoop(asyncio.SelectorEventLoop):
    """`asyncio.SelectorEventLoop` on a clock that starts at 0 and jumps to each timer."""

    def __init__(self) -> None:
        self._clock = _Clock()
        super().__init__(_SkippingSelector(self._clock))

    def time(self) -> float:
        return self._clock.now


def run(coro: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(coro)` on a `VirtualClockLoop`."""
    with asyncio.Runner(loop_factory=VirtualClockLoop) as runner:
        return runner.run(coro)
