"""The pure game engine: device events and operator commands in, cited decisions out.

`RouletteEngine`, `BlackjackEngine` (Blackjack and Spanish 21) and `BaccaratEngine`
(Minibaccarat, Midibaccarat, Baccarat) and `StudEngine` (Mississippi Stud) are the games;
`TableState` is the game-neutral table
(states, halts, inspections, devices) later games build on. Nothing in this package
does I/O or reads a clock: every input carries its time.

The names below are imported when first asked for, not with the package: a module of
`floord.engine.core` (which the daemon needs for every table) must not load every game's
engine, and a box runs only the games its config names.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from floord.engine.baccarat.engine import BaccaratEngine
    from floord.engine.blackjack.engine import BlackjackEngine
    from floord.engine.core.snapshots import SnapshotError
    from floord.engine.core.table_state import PrimaryDevice, TableState
    from floord.engine.roulette.engine import RouletteEngine
    from floord.engine.roulette.inspection import roulette_inspection
    from floord.engine.stud.engine import StudEngine

# Each public name, and the module that defines it.
_HOMES = {
    "BaccaratEngine": "floord.engine.baccarat.engine",
    "BlackjackEngine": "floord.engine.blackjack.engine",
    "PrimaryDevice": "floord.engine.core.table_state",
    "RouletteEngine": "floord.engine.roulette.engine",
    "SnapshotError": "floord.engine.core.snapshots",
    "StudEngine": "floord.engine.stud.engine",
    "TableState": "floord.engine.core.table_state",
    "roulette_inspection": "floord.engine.roulette.inspection",
}

__all__ = [
    "BaccaratEngine",
    "BlackjackEngine",
    "PrimaryDevice",
    "RouletteEngine",
    "SnapshotError",
    "StudEngine",
    "TableState",
    "roulette_inspection",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(home), name)
