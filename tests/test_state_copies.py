"""The runner's copy of the committed state (`floord.table.engine_state`) shares only what
never changes (`floord.engine.core.copies`): a copy and its original go their own ways."""

from __future__ import annotations

import copy
import random

import pytest

from floord.analytics.report import WheelSetup
from floord.analytics.sliding_chi_square import Category, RunningTest
from floord.analytics.wheel_watch import roulette_order
from floord.contract import EventType
from floord.engine.core.copies import Fixed, copy_sharing
from floord.engine.core.types import Decision
from floord.table.surveillance import TableSurveillance

pytestmark = pytest.mark.unit


def _spins(seed: int, count: int, every: int) -> list[Decision]:
    """`count` spins, every `every`-th one a 17, the same dealer's."""
    rng = random.Random(seed)
    pockets = list(roulette_order("single_zero"))
    return [
        Decision(
            EventType.ROULETTE_RESULT,
            {
                "number": "17" if n % every == 0 else rng.choice(pockets),
                "dealer": "DL-1",
                "release_pocket": rng.choice(pockets),
            },
            None,
            f"R-{n}",
        )
        for n in range(count)
    ]


def _watcher() -> TableSurveillance:
    setup = WheelSetup(
        "single_zero", tuple(roulette_order("single_zero")), 185, 0.001, 8, None, 60, 4
    )
    return TableSurveillance(setup)


def _state(watcher: TableSurveillance) -> object:
    dealers = watcher.dealers
    assert dealers is not None
    tests = [watcher.watch.pocket, watcher.watch.sector, *dealers._tests.values()]
    return (
        watcher.snapshot(),
        watcher.watch.spins,
        watcher.watch.statistics(),
        dealers.statistics("DL-1"),
        [(list(t._recent), list(t.counts), t.armed, t.last) for t in tests if t is not None],
    )


def test_a_copied_watcher_decides_as_its_original_and_leaves_it_untouched() -> None:
    original = _watcher()
    for spin in _spins(1, 200, 1000):
        original.on_decisions([spin])
    before = copy.deepcopy(_state(original))
    clone = copy.deepcopy(original)
    assert _state(clone) == before
    later = _spins(2, 300, 3)
    raised = [clone.on_decisions([spin]) for spin in later]
    assert any(raised), "the spins raise alerts, so the copy's alarm state is exercised"
    assert _state(original) == before, "the original saw none of the copy's spins"
    assert [original.on_decisions([spin]) for spin in later] == raised
    assert _state(original) == _state(clone)


def test_only_what_never_changes_is_shared() -> None:
    test = RunningTest("pocket", [Category("a", ("a",), 0.5), Category("b", ("b",), 0.5)], 10, 0.1)
    test.push(0)
    clone = copy.deepcopy(test)
    assert clone.categories is test.categories
    assert clone._recent is not test._recent and clone.counts is not test.counts
    clone.push(1)
    assert list(test._recent) == [0] and test.counts == [1, 0]
    setup = _watcher().setup
    assert isinstance(setup, Fixed) and copy.deepcopy(setup) is setup


class _Holder:
    def __init__(self) -> None:
        self.fixed = [1, 2]
        self.live = {"n": [1]}


def test_copy_sharing_deep_copies_every_attribute_it_is_not_told_to_share() -> None:
    holder = _Holder()
    clone = copy_sharing(holder, {}, frozenset({"fixed"}))
    assert type(clone) is _Holder and clone.fixed is holder.fixed
    assert clone.live == holder.live and clone.live["n"] is not holder.live["n"]
