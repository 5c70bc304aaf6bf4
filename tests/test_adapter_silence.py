"""The session's silence timeout (`floord.adapters.silence`): one timer a silence period,
and the same outcome as a timeout around each read.

On a loop whose clock jumps to each timer (`virtual_clock`): a read of 40 ms against a
limit of 50 ms is never taken for silence however loaded the machine, and the moment a
session ends is exact."""

from __future__ import annotations

import asyncio

import pytest
from virtual_clock import run

from floord.adapters.silence import Silence

pytestmark = pytest.mark.unit


async def _reads(delays: list[float], limit: float, *, work: float = 0.0) -> int:
    """Reads that take `delays` seconds each, `work` seconds of other waiting between
    them; the number of reads that returned before the scope expired."""
    done = 0
    async with asyncio.timeout(None) as scope:
        silence = Silence(scope)
        try:
            for delay in delays:
                silence.reading(limit)
                try:
                    await asyncio.sleep(delay)
                finally:
                    silence.done()
                done += 1
                await asyncio.sleep(work)
        finally:
            silence.close()
    return done


def test_chatty_reads_never_time_out_however_long_the_session() -> None:
    # 600 reads of 40 ms: 24 s in all, 480 limits, but none waits its 50 ms.
    assert run(_reads([0.04] * 600, 0.05)) == 600


def test_a_read_that_waits_its_limit_ends_the_session() -> None:
    async def session() -> float:
        loop = asyncio.get_running_loop()
        with pytest.raises(TimeoutError):
            await _reads([0.01, 0.01, 0.5], 0.1)
        return loop.time()

    # Two reads of 10 ms, then the third waits its 100 ms and no more.
    assert run(session()) == pytest.approx(0.12)


def test_time_between_reads_is_not_silence() -> None:
    # 0.6 s of work after each quick read (a slow write, say): longer than the limit.
    assert run(_reads([0.01, 0.01, 0.01], 0.5, work=0.6)) == 3


def test_a_shorter_limit_takes_effect_at_once() -> None:
    async def session() -> float:
        loop = asyncio.get_running_loop()
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(None) as scope:
                silence = Silence(scope)
                silence.reading(5.0)  # the first wait (power-on quiet) ...
                silence.done()
                silence.reading(0.1)  # ... then the profile's silence
                try:
                    await asyncio.sleep(2.0)
                finally:
                    silence.close()
        return loop.time()

    assert run(session()) == pytest.approx(0.1)


def test_a_closed_silence_leaves_no_timer() -> None:
    async def session() -> None:
        async with asyncio.timeout(None) as scope:
            silence = Silence(scope)
            silence.reading(0.05)
            silence.done()
            silence.close()
            await asyncio.sleep(0.15)  # the scope outlives the limit: nothing expires it

    run(session())
