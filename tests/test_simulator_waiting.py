"""A simulator's timed wait on an event: set, timed out, and cancelled as it is set.

The last is the SS2 twin's interruption by the control channel: the status frame sets
the event in the same turn of the loop in which the step waiting on it is cancelled.
"""

from __future__ import annotations

import asyncio

import pytest

from simulators.waiting import wait_set

pytestmark = pytest.mark.unit


def test_true_once_set_false_when_the_time_is_up() -> None:
    async def scenario() -> tuple[bool, bool]:
        event = asyncio.Event()
        asyncio.get_running_loop().call_later(0.01, event.set)
        was_set = await wait_set(event, 5.0)
        timed_out = await wait_set(asyncio.Event(), 0.01)
        return was_set, timed_out

    assert asyncio.run(scenario()) == (True, False)


def test_a_cancellation_that_comes_as_the_event_is_set_is_not_lost() -> None:
    async def scenario() -> bool:
        event = asyncio.Event()
        waits_again = asyncio.Event()

        async def step() -> None:
            # A step that waits again after each nudge, as the twin's does: a lost
            # cancellation would leave it waiting for good.
            while True:
                event.clear()
                await wait_set(event, 60.0)
                waits_again.set()

        task = asyncio.create_task(step())
        for _ in range(3):
            await asyncio.sleep(0)  # the step is waiting on the event
        event.set()
        task.cancel()  # in the same turn of the loop as the event
        done, _ = await asyncio.wait({task}, timeout=1.0)
        if not done:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        return task.cancelled() and not waits_again.is_set()

    assert asyncio.run(scenario())
