"""A recut required by a floorperson or above after the cut, before any card is dealt.

Poker (§ 553.6(c)) and the carnival games (§ 55x.5(e), § 561.5(f)) let a floorperson or
above require the cards cut again: the cut on record is struck and the dealer cuts anew.
Only a cut since the last shuffle can be recut. The games differ in their citation and
in how they name what was shuffled, which they pass in. Pure.
"""

from __future__ import annotations

from typing import Any

from floord.engine.core.command_checks import accepted
from floord.engine.core.types import CommandOutcome


def require_recut(
    role: str, allowed: tuple[str, ...], stack: dict[str, Any] | None, rule: str, shuffled: str
) -> CommandOutcome:
    """Strike the cut of `stack` if `role` is one of `allowed` and a cut is on record since
    `shuffled` (as the refusal says it); refuse under `rule` otherwise."""
    if role not in allowed:
        return CommandOutcome(False, "a floorperson or above requires a recut", rule)
    if stack is None or stack["cut"] is None:
        return CommandOutcome(False, f"no cut is on record since {shuffled}", rule)
    stack["cut"] = None  # the command is on the record; the deck is cut again
    return accepted([])
