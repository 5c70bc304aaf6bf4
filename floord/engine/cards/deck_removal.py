"""A floorperson's `remove_deck` at a table of named decks (Poker, the carnival games).

The deck named (or, with none named, every deck) is removed under floord's policy: a
round dealt from it is void first, and the removal is recorded with the floorperson and
the reason given. What else the game keeps of a removed deck (its stack, how it was
shuffled) the game clears itself. Pure.
"""

from __future__ import annotations

from collections.abc import Callable

from floord.contract import EventType
from floord.engine.cards.deck_book import DeckBook
from floord.engine.core.rounds import RoundBook
from floord.engine.core.rulings import policy_decision
from floord.engine.core.types import CommandOutcome, Decision, VerifiedCommand


def remove_decks(
    command: VerifiedCommand,
    decks: DeckBook,
    rounds: RoundBook,
    void: Callable[[str, str, str], list[Decision]],
    policy: str,
) -> tuple[list[str], list[Decision]] | CommandOutcome:
    """(the decks removed, the events) for a valid command; its refusal otherwise.

    `void(reason, policy, detail)` voids the round in play; `policy` is the floorperson's."""
    deck = command.args.get("deck")
    if deck is not None and deck not in decks.decks:
        return CommandOutcome(
            False, f"deck must be one of {', '.join(decks.decks)}, found {deck!r}"
        )
    targets = [deck] if deck is not None else list(decks.decks)
    out: list[Decision] = []
    rnd = rounds.current
    if rnd is not None and rnd["deck"] in targets:
        out += void("deck_removed", policy, f"deck removed by {command.by}")
    decks.remove(targets, None)
    data = {"decks": targets, "reason": "floorperson", "by": command.by}
    data["note"] = command.args["reason"]
    return targets, [*out, policy_decision(EventType.CARDS_DECK_REMOVED, policy, None, **data)]
