"""An automated shuffler out of order, and the cover put on it: one state, two card books.

A shuffler that reports itself out of order is covered before the cards are shuffled any
other way (§ 571.13(g); floord's policy at Blackjack, after it). Blackjack's batches
(`ShufflerBook`) and the Mississippi Stud and carnival decks (`DeckBook`) keep the same
two flags and take the same floorperson's `cover_shuffler` command; each book words its
own decision. Both also report an open shuffler door, each under its own policy.
"""

from __future__ import annotations

from typing import Any, Protocol

from floord.contract import EventType
from floord.engine.core.command_checks import unknown_args
from floord.engine.core.rulings import policy_decision
from floord.engine.core.types import CommandOutcome, Decision, VerifiedCommand


class CoverableShuffler(Protocol):
    """A book that knows whether its shuffler is out of order and covered."""

    out_of_order: bool
    covered: bool


def order_reported(book: CoverableShuffler, data: dict[str, Any]) -> str:
    """Take a `shuffler.out_of_order` report (code 0: back in order, the cover off);
    return what it says, `shuffler_in_order` or `shuffler_out_of_order`."""
    if data.get("code") == 0:
        book.out_of_order = book.covered = False
        return "shuffler_in_order"
    book.out_of_order = True
    return "shuffler_out_of_order"


def cover_shuffler(
    command: VerifiedCommand, shuffler: str, book: CoverableShuffler
) -> CommandOutcome:
    """The floorperson's `cover_shuffler`: only a table's automated shuffler, only when
    it is out of order."""
    if problem := unknown_args(command, ()):
        return CommandOutcome(False, problem)
    if shuffler == "none":
        return CommandOutcome(False, "the table has no automated shuffler")
    if not book.out_of_order:
        return CommandOutcome(False, "the shuffler is not out of order")
    book.covered = True
    return CommandOutcome(True)


def door_reported(data: dict[str, Any], round_id: str | None, policy: str) -> list[Decision]:
    """A `shuffler.door` report: an open door is a table warning under `policy` (no
    regulation asks for it); a closed door says nothing."""
    if data.get("open") is not True:
        return []
    return [policy_decision(EventType.TABLE_WARNING, policy, round_id, what="shuffler_door_open")]
