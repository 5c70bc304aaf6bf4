"""`floord.processes.long_lived.settle`: what exists when a process is ready is frozen out
of the collector's later passes; what is made afterwards is not."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from floord.processes import long_lived

pytestmark = pytest.mark.unit


class _Held:
    """An object the collector tracks (an instance with a `__dict__`)."""


def _walked(target: object) -> bool:
    """Whether the collector's passes would walk `target` (it is in a generation)."""
    return any(o is target for o in gc.get_objects())


@pytest.fixture
def unfrozen() -> Iterator[None]:
    gc.unfreeze()
    yield
    gc.unfreeze()


@pytest.mark.usefixtures("unfrozen")
def test_settle_freezes_what_exists_and_leaves_what_comes_after() -> None:
    before = _Held()
    assert _walked(before)
    frozen = long_lived.settle()
    assert frozen == gc.get_freeze_count() > 0
    assert not _walked(before)
    after = _Held()
    assert _walked(after)
    # A full pass walks what came after, never what was frozen.
    gc.collect()
    assert not _walked(before) and _walked(after)


@pytest.mark.usefixtures("unfrozen")
def test_a_frozen_object_is_still_freed_when_its_last_reference_goes() -> None:
    freed: list[str] = []
    held = _Held()
    weakref.finalize(held, freed.append, "freed")
    long_lived.settle()
    del held
    assert freed == ["freed"]
