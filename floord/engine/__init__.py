"""The pure game engine: device events and operator commands in, cited decisions out.

`RouletteEngine`, `BlackjackEngine` (Blackjack and Spanish 21) and `BaccaratEngine`
(Minibaccarat, Midibaccarat, Baccarat) and `StudEngine` (Mississippi Stud) are the games;
`TableState` is the game-neutral table
(states, halts, inspections, devices) later games build on. Nothing in this package
does I/O or reads a clock: every input carries its time.
"""

from floord.engine.baccarat.engine import BaccaratEngine
from floord.engine.blackjack.engine import BlackjackEngine
from floord.engine.core.snapshots import SnapshotError
from floord.engine.core.table_state import PrimaryDevice, TableState
from floord.engine.roulette.engine import RouletteEngine
from floord.engine.roulette.inspection import roulette_inspection
from floord.engine.stud.engine import StudEngine

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
