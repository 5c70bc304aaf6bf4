"""A Big Six table's second source for where the clapper rests (floord policy).

Chapter 533 settles each wager by the section the clapper rests in (the first § 533.2(c))
and says nothing of a second source or of the dealer announcing it, so checking the
wheel's report is floord's policy (`floord/engine/core/checked_results.py`). The value
compared is the section's symbol, which decides every wager: the dealer's `call_result`
names it (`value: "$5"`, or a themed symbol), a second Big Six wheel device reports its
own rest (a section, read as its symbol; a rest between two sections is the value
`between_sections`, which disputes any symbol). A ruling names the section (`section:
12`), as the result records the section; or voids the spin.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from floord.contract import EventType
from floord.engine.core.checked_results import RESULT_COMMANDS, CheckedResults, Invalid
from floord.engine.core.second_source import SecondSource
from floord.engine.core.types import EngineOutput

if TYPE_CHECKING:
    from floord.engine.big_six.layout import BigSixLayout

__all__ = ["RESULT_COMMANDS", "CheckedRests", "SecondSource"]
BETWEEN = "between_sections"


class CheckedRests(CheckedResults):
    """The second source of a Big Six table's results; see the module docstring."""

    HELD_EVENTS = frozenset(
        {
            EventType.BIGSIX_SPIN_STARTED,
            EventType.BIGSIX_AT_REST,
            EventType.BIGSIX_BETWEEN_SECTIONS,
        }
    )

    layout: BigSixLayout

    def _checked_rest(self, index: int, now: datetime) -> EngineOutput:
        """The clapper at rest in section `index`: settled now, or once the second agrees."""
        return self._checked(self.layout.section(index).symbol, {"section": index}, now)

    def _result_values(self) -> set[str]:
        return {s.symbol for s in self.layout.sections}

    def _second_value(self, type: str, data: dict[str, Any]) -> str | None:
        if type == EventType.BIGSIX_BETWEEN_SECTIONS:
            return BETWEEN
        if type != EventType.BIGSIX_AT_REST:
            return None
        index = data.get("section")
        if not isinstance(index, int) or isinstance(index, bool):
            return Invalid(f"the second source reported section {index!r}")
        if not 0 <= index < len(self.layout.sections):
            return Invalid(f"the second source reported section {index}, no section of the wheel")
        return self.layout.section(index).symbol

    def _ruling_args(self, args: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]] | Invalid:
        if args.get("void") is True:
            return args, {}
        index = args.pop("section", None)
        if "value" in args:
            return Invalid("a Big Six ruling names the section (section: N), not a value")
        if not isinstance(index, int) or isinstance(index, bool):
            return Invalid(f"section must be a section of the wheel, found {index!r}")
        if not 0 <= index < len(self.layout.sections):
            return Invalid(f"section must be 0 to {len(self.layout.sections) - 1}, found {index}")
        return {**args, "value": self.layout.section(index).symbol}, {"section": index}

    def _settle(self, value: str, carried: dict[str, Any], now: datetime) -> EngineOutput:
        result: EngineOutput = self._result(carried["section"], now)  # type: ignore[attr-defined]
        return result
