"""Reading one shake of the Pai Gow shaker: three faces, or why they are no shake.

The shaker reports what it saw (`dice.throw`, `docs/protocols/dice-tracker.md`); what
the faces mean is the engine's. § 535.2(d) shakes three dice before each hand; a throw
of another number of dice, or one whose faces were not all read, determines nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from floord.engine.core.command_checks import whole
from floord.engine.pai_gow.rules import DICE, FACES


@dataclass(frozen=True)
class Shake:
    """A readable shake: the driver's throw number and the three faces, in its order."""

    throw: int | None
    faces: tuple[int, ...]

    @property
    def total(self) -> int:
        return sum(self.faces)


def read_shake(data: dict[str, Any]) -> tuple[Shake | None, str, str]:
    """The shake of a `dice.throw` body, or None with the violation's `what` and detail."""
    throw = data.get("throw") if whole(data.get("throw")) else None
    dice = data.get("dice")
    if not isinstance(dice, list) or len(dice) != DICE:
        count = len(dice) if isinstance(dice, list) else None
        return None, "not_three_dice", f"a shake of {DICE} dice expected, found {count!r}"
    faces = [d.get("face") if isinstance(d, dict) else None for d in dice]
    read = [f for f in faces if whole(f) and f in FACES]
    if len(read) != DICE:
        return None, "faces_not_read", f"three faces 1 to 6 expected, found {faces!r}"
    return Shake(throw, tuple(read)), "", ""
