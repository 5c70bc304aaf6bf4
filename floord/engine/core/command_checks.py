"""The checks every card game's operator commands share, worded once.

An operator command names its arguments; one the command does not take is refused,
never ignored (the operator meant something floord would not do). A floorperson's
reshuffle or deck removal says why. A round opens on boxes the layout has, each named
once, and not while the devices' or decks' books say it may not (`deal_refusal`).
"""

from __future__ import annotations

from typing import Any, TypeGuard

from floord.contract import EventType
from floord.engine.core.rulings import CitingRules, ruled
from floord.engine.core.types import CommandOutcome, Decision, EngineOutput, VerifiedCommand


def whole(value: Any) -> TypeGuard[int]:
    """A whole number (JSON's true and false are not numbers here)."""
    return isinstance(value, int) and not isinstance(value, bool)


def unknown_args(command: VerifiedCommand, allowed: tuple[str, ...]) -> str | None:
    """Why `command` is refused for an argument it does not take; None when it takes all."""
    unknown = sorted(set(map(str, command.args)) - set(allowed))
    if unknown:
        takes = ", ".join(allowed) if allowed else "no arguments"
        return f"unknown argument(s) {', '.join(unknown)}: {command.name} takes {takes}"
    return None


def needs_reason(command: VerifiedCommand) -> str | None:
    """Why `command` is refused for want of a `reason` text; None when it has one."""
    reason = command.args.get("reason")
    if not isinstance(reason, str) or not reason.strip():
        return f"{command.name} needs a non-empty reason (text)"
    return None


def floor_reshuffle(rules: CitingRules, command: VerifiedCommand) -> Decision:
    """The floorperson's reshuffle order (its `reason` already checked), under the
    game's reshuffle rule."""
    return ruled(
        rules,
        EventType.CARDS_SHUFFLE_REQUIRED,
        "reshuffle",
        None,
        reason="floorperson",
        by=command.by,
        note=command.args["reason"],
    )


def distinct_boxes(boxes: Any, limit: int) -> TypeGuard[list[int]]:
    """A non-empty list of distinct box numbers 1..`limit`."""
    return (
        isinstance(boxes, list)
        and bool(boxes)
        and all(whole(b) and 1 <= b <= limit for b in boxes)
        and len(set(boxes)) == len(boxes)
    )


def deal_refusal(problems: list[tuple[str | None, str]], prefix: str) -> CommandOutcome:
    """A round refused for `problems` ((citation or None, sentence), strongest first):
    every sentence said, the first citation given."""
    rule = next((r for r, _ in problems if r), None)
    return CommandOutcome(False, f"{prefix}: " + "; ".join(t for _, t in problems), rule)


def accepted(decisions: list[Decision]) -> CommandOutcome:
    """A command done, with the decisions it caused."""
    return CommandOutcome(True, output=EngineOutput(decisions))


def players_problem(boxes: list[int], players: Any) -> str | None:
    """Why a round's `players` (a player -> the boxes they play, as the dealer sees the
    layout) cannot be read against its boxes; None when every box in play is named
    exactly once. Whether a player may play more than one box is each game's rule."""
    if not isinstance(players, dict) or not all(
        isinstance(v, list) and v and all(whole(b) for b in v) for v in players.values()
    ):
        return "players must map each player to a non-empty list of box numbers"
    seen: list[int] = [b for played in players.values() for b in played]
    if sorted(seen) != sorted(boxes):
        return "players must name every box in play exactly once"
    return None
