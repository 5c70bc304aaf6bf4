"""A Craps table's second source for the sum of the dice (58 Pa. Code § 537.10).

With a `second_source` the tracker's roll is not called at once: its total goes to the
table's check (`floord/engine/core/checked_results.py`) and the roll is called once the
second source agrees: the stickperson's `call_result` (the Craps stickperson, or the
Mini-Craps dealer or stickperson, "shall at once call out the sum", § 537.10(a)), or a
second dice tracker's `dice.throw`. A dispute is ruled as § 537.10(c) says a disputed face
is: by the Craps boxperson or the Mini-Craps floorperson (`rule_result {round, faces:
[A, B], note}`), who may also order the throw void. A throw the tracker already holds for
a person's call (`craps.throw_held`) is called as the game calls it, not checked again. That the
tracker's read waits for a second source at all is floord's policy.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from floord.contract import EventType
from floord.engine.core.checked_results import RESULT_COMMANDS, CheckedResults, Invalid
from floord.engine.core.second_source import SecondSource
from floord.engine.core.types import CommandOutcome, EngineOutput, VerifiedCommand
from floord.engine.craps.roles import caller_refusal
from floord.engine.craps.throws import judge

__all__ = ["RESULT_COMMANDS", "CheckedRolls", "SecondSource"]
TOTALS = frozenset(str(n) for n in range(2, 13))
# Who calls and who rules, as the calls they stand for (`roles.py`).
STANDS_FOR = {"call_result": "call_roll", "rule_result": "face_ruling"}


def _faces(value: Any) -> list[int] | None:
    if not isinstance(value, list) or len(value) != 2:
        return None
    if not all(isinstance(f, int) and not isinstance(f, bool) and 1 <= f <= 6 for f in value):
        return None
    return [int(f) for f in value]


class CheckedRolls(CheckedResults):
    """The second source of a Craps table's rolls; see the module docstring."""

    HELD_EVENTS = frozenset({EventType.DICE_THROW})

    game: str

    def _checked_roll(self, faces: list[int], now: datetime) -> EngineOutput:
        """A roll floord would call at once: called now, or once the second source agrees."""
        return self._checked(str(sum(faces)), {"faces": faces, "called_by": None}, now)

    def on_command(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        """The second source's commands here; the game's own calls unchanged."""
        if command.name in RESULT_COMMANDS:
            return self._result_command(command, self._touch(now))  # type: ignore[attr-defined]
        outcome: CommandOutcome = super().on_command(command, now)  # type: ignore[misc]
        return outcome

    def _role_refusal(self, command: VerifiedCommand) -> CommandOutcome | None:
        refused = caller_refusal(STANDS_FOR[command.name], self.game, command.role)
        if refused is None:
            return None
        why, paragraph = refused
        return CommandOutcome(False, why, f"58 Pa. Code § {paragraph}" if paragraph else None)

    def _result_values(self) -> set[str]:
        return set(TOTALS)

    def _second_value(self, type: str, data: dict[str, Any]) -> str | None:
        if type != EventType.DICE_THROW:
            return None
        j = judge(data)
        if j.void is not None or j.total is None:
            return Invalid(f"the second tracker read no total ({j.void or 'faces not read'})")
        return str(j.total)

    def _ruling_args(self, args: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]] | Invalid:
        if args.get("void") is True:
            return args, {}
        if "value" in args:
            return Invalid("a Craps ruling names the faces (faces: [A, B]), not a value")
        faces = _faces(args.pop("faces", None))
        if faces is None:
            return Invalid("faces must be two faces 1 to 6, as [A, B]")
        return {**args, "value": str(sum(faces))}, {"faces": faces}

    def _settle(self, value: str, carried: dict[str, Any], now: datetime) -> EngineOutput:
        call = self._call  # type: ignore[attr-defined]
        by = carried.get("ruled_by") or carried.get("called_by")
        out: EngineOutput = call(carried["faces"], now, called_by=by)
        return out
