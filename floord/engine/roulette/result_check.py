"""A roulette table's second source for its numbers (floord policy, `docs/rules.md`).

With a `second_source` the wheel's number does not settle the round by itself: the
number goes to the table's check (`floord/engine/core/checked_results.py`), and the round
settles once the second source (another roulette wheel family device's `wheel.number`,
or the dealer's `call_result`: the dealer announces the number, § 531.6(c)) agrees, when
a silent second source is only a warning, or on a floorperson's `rule_result`. While a
result is awaited or held the round stays in play and the wheel's next spin opens no
round. `RouletteEngine` mixes this class in; it keeps the round book and the results.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from floord.contract import EventType
from floord.engine.core.checked_results import RESULT_COMMANDS, CheckedResults, Invalid
from floord.engine.core.second_source import SecondSource
from floord.engine.core.types import EngineOutput
from floord.engine.roulette.irregularities import DOUBLE_ZERO_ON_SINGLE

if TYPE_CHECKING:
    from floord.engine.roulette.layout import WheelSpec

__all__ = ["RESULT_COMMANDS", "CheckedNumbers", "SecondSource"]


class CheckedNumbers(CheckedResults):
    """The second source of a roulette table's numbers; see the module docstring."""

    # The wheel's events that would begin or decide another spin.
    HELD_EVENTS = frozenset(
        {EventType.WHEEL_GAME_STARTED, EventType.WHEEL_BALL_LAUNCHED, EventType.WHEEL_NUMBER}
    )

    wheel: WheelSpec

    def _checked_number(self, number: str, data: dict[str, Any], now: datetime) -> EngineOutput:
        """A number of the round in play: settled now, or once the second source agrees."""
        return self._checked(number, {"spin": data.get("spin"), "origin": data.get("origin")}, now)

    def _result_values(self) -> set[str]:
        return set(self.wheel.order)

    def _second_value(self, type: str, data: dict[str, Any]) -> str | None:
        if type != EventType.WHEEL_NUMBER:
            return None
        number = data.get("number")
        if not isinstance(number, str) or number not in self.wheel.order:
            return Invalid(f"the second source reported {number!r}, no pocket of the wheel")
        return number

    def _settle(self, value: str, carried: dict[str, Any], now: datetime) -> EngineOutput:
        """The number's result, or "no spin" for a 00 ruled on a double zero wheel used
        as a single zero wheel (§ 531.5(c)(2))."""
        if value == "00" and self.wheel.kind == "double_zero_as_single":
            no_spin: EngineOutput = self._no_spin(  # type: ignore[attr-defined]
                DOUBLE_ZERO_ON_SINGLE, carried.get("spin"), number=value
            )
            return no_spin
        result: EngineOutput = self._result(value, carried, now)  # type: ignore[attr-defined]
        return result
