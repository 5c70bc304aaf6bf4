"""An event awaited for at most a while, whose waiter can always be cancelled.

A simulator's step waits on events its other tasks set many times a second (the SS2
twin's nudge is set by every status frame) and is cancelled when the control channel
interrupts it. On Python 3.11, `asyncio.wait_for` returns normally when its inner wait
completes in the same turn of the loop as the cancellation, and the cancellation is
lost (CPython gh-86296): the interrupted step went on, and the injected fault never
came. `asyncio.timeout` does not lose it.
"""

from __future__ import annotations

import asyncio


async def wait_set(event: asyncio.Event, seconds: float) -> bool:
    """Wait until `event` is set or `seconds` have passed; True if it was set. A
    cancellation of the waiting task is raised, whenever it comes."""
    try:
        async with asyncio.timeout(seconds):
            await event.wait()
    except TimeoutError:
        return event.is_set()
    return True
