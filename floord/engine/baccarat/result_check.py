"""A Baccarat-family table's second source for each coup's result (floord policy).

The dealer calling the game announces which hand won (§ 545.12(a)); with `second_source:
{command: dealer_call}` that call, the dealer's `call_result {value: player | banker |
tie}`, is checked against the result floord reads from the shoe's cards at `round_end`
(`floord/engine/core/checked_results.py`). They agree: the coup settles as the cards say.
They disagree, or the call does not come and the table holds: the coup is not settled
until a floorperson rules. The result comes from the cards, so a ruling either settles
the coup as the cards were read (`value`: their winner) or voids it (`void: true`), for
the coup to be settled by hand on the record's word. A device as second source is not
taken at these tables (`floord check` refuses it).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from floord.contract import EventType
from floord.engine.core.checked_results import RESULT_COMMANDS, CheckedResults, Invalid
from floord.engine.core.second_source import SecondSource
from floord.engine.core.types import CommandOutcome, Decision, EngineOutput, VerifiedCommand

__all__ = ["RESULT_COMMANDS", "CheckedCoups", "SecondSource"]
WINNERS = frozenset({"player", "banker", "tie"})


class CheckedCoups(CheckedResults):
    """The second source of a Baccarat table's results; see the module docstring."""

    HELD_EVENTS = frozenset({EventType.SHOE_CARD_DRAWN, EventType.SHOE_CARD_FACE_UP})
    SET_ASIDE_WHILE_HELD = False

    def on_command(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        """The second source's commands here; `round_end` refused while a coup is held;
        the game's own commands unchanged."""
        if command.name in RESULT_COMMANDS:
            return self._result_command(command, self._touch(now))  # type: ignore[attr-defined]
        if command.name == "round_end" and (held := self._held_refusal()) is not None:
            return held
        outcome: CommandOutcome = super().on_command(command, now)  # type: ignore[misc]
        return outcome

    def _checked_coup(self, outcome: str, events: list[Decision], now: datetime) -> EngineOutput:
        """The coup's end: settled now, or once the dealer's call agrees (a coup with no
        result, irregular or not called, ends as the game ends it)."""
        result = next((d for d in events if d.type == EventType.BACCARAT_RESULT), None)
        if self.check is None or outcome != "result" or result is None:
            return EngineOutput(self._end_coup(outcome, events))  # type: ignore[attr-defined]
        kept = [{"type": str(d.type), "data": d.data, "rule": d.rule} for d in events]
        return self._checked(str(result.data.get("winner")), {"decisions": kept}, now)

    def _settle(self, value: str, carried: dict[str, Any], now: datetime) -> EngineOutput:
        round_id = self.rounds.current_id
        events = [
            Decision(EventType(d["type"]), d["data"], d["rule"], round_id)
            for d in carried["decisions"]
        ]
        return EngineOutput(self._end_coup("result", events))  # type: ignore[attr-defined]

    def _result_values(self) -> set[str]:
        return set(WINNERS)

    def _second_value(self, type: str, data: dict[str, Any]) -> str | None:
        return None  # no device reports a coup's result

    def _ruling_args(self, args: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]] | Invalid:
        if args.get("void") is True:
            return args, {}
        pending = (self.check.pending if self.check else None) or {}
        read = (pending.get("primary") or {}).get("value")
        if args.get("value") != read:
            return Invalid(
                f"a Baccarat ruling settles the coup as its cards were read (value: {read!r}) "
                "or voids it (void: true)"
            )
        return args, {}
