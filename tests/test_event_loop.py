"""The daemon's loop puts the timers it sets half a second or more ahead on a shared
grid (`floord.processes.event_loop`): never early, at most a grid step late, and timers
set at many phases fall on a few instants; nearer timers are left where they were set."""

from __future__ import annotations

import argparse
import asyncio
import math
import random
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import pytest

from floord.cli.adapter import run_adapter
from floord.cli.main import run_loaded
from floord.config.load import load_config
from floord.processes import event_loop
from floord.processes.event_loop import COALESCE_FROM_S, GRID_S, CoalescingLoop, on_grid

pytestmark = pytest.mark.unit
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "box.yaml"


def test_an_instant_goes_to_the_first_grid_point_at_or_after_it() -> None:
    rng = random.Random(7)
    for when in [0.0, GRID_S, 1.3, 12345.6, *(rng.uniform(0, 1e6) for _ in range(10_000))]:
        moved = on_grid(when)
        assert when <= moved < when + GRID_S + 1e-9
        assert math.isclose(moved / GRID_S, round(moved / GRID_S), abs_tol=1e-6)
        # A pace set from a grid point keeps its length: no step lost to the float.
        for pace in (COALESCE_FROM_S, 1.0, 2.0, 5.0):
            assert on_grid(moved + pace) - moved == pytest.approx(pace, abs=1e-6)


def test_far_timers_share_instants_and_near_ones_keep_theirs() -> None:
    async def timers() -> tuple[set[float], list[float], list[float]]:
        loop = asyncio.get_running_loop()
        assert isinstance(loop, CoalescingLoop)
        far: list[asyncio.TimerHandle] = []
        asked: list[float] = []
        for phase in range(50):  # fifty clients' one-second timers, set at fifty phases
            delay = 1.0 + phase / 50
            asked.append(loop.time() + delay)
            far.append(loop.call_later(delay, lambda: None))
        near = loop.call_later(COALESCE_FROM_S / 2, lambda: None)
        near_at = loop.time() + COALESCE_FROM_S / 2
        for handle in [*far, near]:
            handle.cancel()
        return (
            {h.when() for h in far},
            [h.when() - a for h, a in zip(far, asked, strict=True)],
            [near.when() - near_at],
        )

    instants, far_late, near_late = event_loop.run(timers())
    # A second of phases falls on the grid's ten or eleven points in it.
    assert len(instants) <= math.ceil(1 / GRID_S) + 1
    assert all(-1e-3 <= late <= GRID_S + 1e-3 for late in far_late)
    assert max(far_late) > GRID_S / 2  # moved, not merely asked again
    assert all(abs(late) < 1e-3 for late in near_late)


def test_a_sleep_on_the_grid_never_ends_early() -> None:
    async def slept() -> float:
        loop = asyncio.get_running_loop()
        began = loop.time()
        await asyncio.sleep(COALESCE_FROM_S)
        return loop.time() - began

    assert event_loop.run(slept()) >= COALESCE_FROM_S


def test_the_daemon_and_a_remote_adapter_both_run_on_the_grid(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`floord run` and `floord adapter` hand their main coroutine to `event_loop.run`
    (here a stand-in that records it and closes it unrun), not to `asyncio.run`."""
    handed: list[str] = []

    def run(main: Coroutine[Any, Any, int | None]) -> int:
        handed.append(main.__qualname__)
        main.close()
        return 0

    monkeypatch.setattr(event_loop, "run", run)
    monkeypatch.setattr(asyncio, "run", lambda main: pytest.fail("ran on asyncio.run"))
    loaded = load_config(EXAMPLE)
    assert run_loaded(loaded) == 0
    adapter = argparse.Namespace(
        config=EXAMPLE,
        table="RL-01",
        device="wheel",
        port=None,
        journal=tmp_path / "adapter.db",
        metrics_listen=None,
        argv=[],
    )
    assert run_adapter(adapter) == 0
    assert handed == ["run_loaded.<locals>.main", "run_adapter.<locals>.main"]
