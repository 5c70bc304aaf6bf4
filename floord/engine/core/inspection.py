"""Pre-opening inspections: a game's checklist, and checking what an operator submitted.

Each game names the items its regulation requires before a table opens (for Roulette,
58 Pa. Code § 531.3(a)(1)-(5)). The `inspect` command must answer every item with true
or false and nothing else, so that the inspection log (§ 531.3(e)) never holds a guess.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from floord.engine.core.copies import Fixed


@dataclass(frozen=True)
class InspectionSpec(Fixed):
    """A game's pre-opening checklist: item key -> the citation that requires it."""

    items: dict[str, str]
    rule: str  # the citation of the inspection requirement as a whole
    # The citation under which a closing uses up the inspection (Roulette: the wheel is
    # covered and locked when closed, § 531.3(f), and every opening is preceded by an
    # inspection, § 531.3(a)); None: one passed inspection serves every opening of its
    # gaming day.
    per_opening: str | None = None


class InspectionInputError(ValueError):
    """`inspect` arguments that cannot go on the log; the message says what is wrong."""


def read_inspection_args(spec: InspectionSpec, args: dict[str, Any]) -> tuple[dict[str, bool], str]:
    """Validate `{"checklist": {...}, "note": str}` against the checklist; return both."""
    unknown_args = sorted(set(args) - {"checklist", "note"})
    if unknown_args:
        raise InspectionInputError(
            f"unknown argument(s) {', '.join(unknown_args)}: inspect takes checklist and note"
        )
    note = args.get("note", "")
    if not isinstance(note, str):
        raise InspectionInputError(f"note must be text, found {type(note).__name__}")
    checklist = args.get("checklist")
    if not isinstance(checklist, dict):
        raise InspectionInputError(
            "checklist must be an object with the items "
            f"{', '.join(spec.items)}, found {type(checklist).__name__}"
        )
    missing = [k for k in spec.items if k not in checklist]
    unknown = sorted(k for k in checklist if k not in spec.items)
    problems = []
    if missing:
        problems.append(f"missing item(s): {', '.join(missing)}")
    if unknown:
        problems.append(f"unknown item(s) for this table: {', '.join(map(str, unknown))}")
    not_bool = [k for k in spec.items if k in checklist and not isinstance(checklist[k], bool)]
    if not_bool:
        problems.append(f"item(s) not true or false: {', '.join(not_bool)}")
    if problems:
        raise InspectionInputError("checklist refused: " + "; ".join(problems))
    return {k: checklist[k] for k in spec.items}, note
