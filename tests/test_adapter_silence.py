"""The session's silence timeout (`floord.adapters.silence`): one timer a silence period,
and the same outcome as a timeout around each read."""

from __future__ import annotations

import asyncio
import time

import pytest

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
    # 60 reads of 40 ms: 2.4 s in all, over twice the limit, but none waits 1 s (a limit
    # wide enough that a loaded machine's late wake-up is not taken for silence).
    assert asyncio.run(_reads([0.04] * 60, 1.0)) == 60


def test_a_read_that_waits_its_limit_ends_the_session() -> None:
    with pytest.raises(TimeoutError):
        asyncio.run(_reads([0.01, 0.01, 0.5], 0.1))


def test_time_between_reads_is_not_silence() -> None:
    # 0.6 s of work after each quick read (a slow write, say): longer than the limit.
    assert asyncio.run(_reads([0.01, 0.01, 0.01], 0.5, work=0.6)) == 3


def test_a_shorter_limit_takes_effect_at_once() -> None:
    async def run() -> None:
        async with asyncio.timeout(None) as scope:
            silence = Silence(scope)
            silence.reading(5.0)  # the first wait (power-on quiet) ...
            silence.done()
            silence.reading(0.1)  # ... then the profile's silence
            try:
                await asyncio.sleep(2.0)
            finally:
                silence.close()

    start = time.monotonic()
    with pytest.raises(TimeoutError):
        asyncio.run(run())
    assert time.monotonic() - start < 1.0


def test_a_closed_silence_leaves_no_timer() -> None:
    async def run() -> None:
        async with asyncio.timeout(None) as scope:
            silence = Silence(scope)
            silence.reading(0.05)
            silence.done()
            silence.close()
            await asyncio.sleep(0.15)  # the scope outlives the limit: nothing expires it

    asyncio.run(run())
