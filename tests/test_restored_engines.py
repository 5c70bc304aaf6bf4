"""A refused turn puts the engine back by restoring the committed snapshot into a copy of
the engine as it was built (`floord.table.engine_state`), as a restart restores it: so
every game's snapshot must hold everything its engine decides by, and must not change
once taken (the runner keeps it as the committed state while the engine goes on).

Every game's own engine tests run again with each engine input followed by both checks:
the engine restored from its snapshot (through JSON, as the journal stores it) is alike
the live engine, field by field; the snapshot taken after the input before is still what
it was then.
"""

from __future__ import annotations

import json
import weakref
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from test_committed_copy import (
    ENGINE_TESTS,
    GAMES,
    engines_checked,
    run_engine_tests,
    wrap_engine_inputs,
)

from floord.engine.core.copies import deep_copy

pytestmark = pytest.mark.unit


def assert_alike(restored: Any, live: Any, path: str = "engine") -> None:
    """The same types and values, field by field (which objects are shared aside: a
    text reached twice is one object in the engine and two after JSON)."""
    assert type(restored) is type(live), f"{path}: {type(restored)} against {type(live)}"
    if restored is live:
        return
    if isinstance(live, dict):
        assert list(restored) == list(live), f"{path}: keys"
        for key in live:
            assert_alike(restored[key], live[key], f"{path}[{key!r}]")
    elif isinstance(live, list | tuple | deque):
        assert len(restored) == len(live), f"{path}: length"
        for n, (a, b) in enumerate(zip(restored, live, strict=True)):
            assert_alike(a, b, f"{path}[{n}]")
    elif callable(live):
        return  # a bound method of the engine (its table's callback): no state of its own
    elif hasattr(live, "__dict__"):
        assert list(vars(restored)) == list(vars(live)), f"{path}: attributes"
        for name, value in vars(live).items():
            assert_alike(vars(restored)[name], value, f"{path}.{name}")
    else:
        assert restored == live, f"{path}: {restored!r} against {live!r}"


@pytest.fixture
def restored_alike(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every engine input of every game followed by both checks; yields the engines'
    class names, one for each input checked."""
    seen: list[str] = []
    built: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()
    taken: weakref.WeakKeyDictionary[Any, tuple[dict[str, Any], str]] = weakref.WeakKeyDictionary()
    depth = [0]

    def checked(method: Callable[..., Any]) -> Callable[..., Any]:
        def run(self: Any, *args: Any, **kwargs: Any) -> Any:
            if self not in built:
                built[self] = deep_copy(self)
            depth[0] += 1
            try:
                out = method(self, *args, **kwargs)
            finally:
                depth[0] -= 1
            if depth[0] == 0:
                before = taken.get(self)
                if before is not None:
                    assert json.dumps(before[0]) == before[1], "an input changed a snapshot"
                snapshot = self.snapshot()
                text = json.dumps(snapshot)
                taken[self] = (snapshot, text)
                restored = deep_copy(built[self])
                restored.restore(json.loads(text))
                assert_alike(restored, self)
                seen.append(type(self).__name__)
            return out

        return run

    wrap_engine_inputs(monkeypatch, checked)
    yield seen


# The engine classes each module's tests showed the restore check, as this run saw them.
RESTORED: dict[str, frozenset[str]] = {}


@pytest.mark.parametrize("module_name", ENGINE_TESTS)
def test_each_games_engine_restores_from_its_snapshot_after_every_input(
    module_name: str, restored_alike: list[str]
) -> None:
    run_engine_tests(module_name, restored_alike, RESTORED)


def test_every_game_is_among_the_engines_restored(restored_alike: list[str]) -> None:
    assert {f"{g}Engine" for g in GAMES} <= engines_checked(restored_alike, RESTORED)
