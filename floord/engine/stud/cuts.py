"""The cut of a Mississippi Stud deck shuffled by hand or received preshuffled (§ 571.5(c)-(e)).

After the shuffle the dealer deals cards the automated shuffler shuffled (c)(1), and cuts
cards shuffled manually or preshuffled (c)(2): with one hand, a cover card on the table in
front of the deck, a stack of at least ten cards from the top onto it, the rest on top
(d)(1). A floorperson or above may require a recut after the cut and before any card is
dealt (e). floord sees no hand shuffle: a table whose shuffler is not in use (none, or out
of order and covered) deals hand-shuffled or preshuffled decks, so there the dealer's
`cut {cards}` is required before `round_start`; with the shuffler in use it is refused.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from floord.contract import EventType, cite
from floord.engine.cards.cut_offer import CUT_MIN
from floord.engine.cards.recut import require_recut
from floord.engine.core.base import TableEngineBase
from floord.engine.core.command_checks import accepted, needs_reason, unknown_args, whole
from floord.engine.core.rulings import decision
from floord.engine.core.types import CommandOutcome, VerifiedCommand

if TYPE_CHECKING:
    from floord.engine.cards.deck_book import DeckBook
    from floord.engine.stud.rules import StudRules

ABOVE_FLOOR = ("floorperson", "supervisor")


class StudCutCommands(TableEngineBase):
    """The dealer's `cut` and the floorperson's `recut` (mixed into the commands)."""

    rules: StudRules
    decks: DeckBook
    # The cut since the last round: {"cut": {"cards", "by"} | None}, or None when none
    # is on record (the shape `require_recut` strikes).
    stack: dict[str, Any] | None

    def cut_problem(self) -> tuple[str, str] | None:
        """Why no round may start for want of a cut (c)(2), or None."""
        if self.decks.shuffler_in_use or (self.stack and self.stack["cut"]):
            return None
        return (
            cite("571.5(c)(2)"),
            "cards shuffled by hand or preshuffled are cut before they are dealt (cut)",
        )

    def take_cut(self) -> dict[str, Any] | None:
        """The cut the round now starting deals (None after a device shuffle)."""
        cut = self.stack["cut"] if self.stack else None
        self.stack = None
        return cut

    def _cmd_cut(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        if problem := unknown_args(command, ("cards", "by")):
            return CommandOutcome(False, problem)
        if self.current_round is not None:
            return CommandOutcome(False, "the cards are cut before the round", cite("571.5(e)"))
        if self.decks.shuffler_in_use:
            why = "cards shuffled by the automated shuffler are dealt without a cut"
            return CommandOutcome(False, why, cite("571.5(c)(1)"))
        if self.stack and self.stack["cut"]:
            why = "the deck is already cut; a floorperson may require a recut"
            return CommandOutcome(False, why, cite("571.5(e)"))
        by, cards, high = command.args.get("by", "dealer"), command.args.get("cards"), 52 - 1
        if by != "dealer":
            return CommandOutcome(
                False, f"the dealer cuts the deck, found by {by!r}", cite("571.5(d)")
            )
        if not (whole(cards) and CUT_MIN <= cards <= high):
            return CommandOutcome(
                False,
                f"cards must be {CUT_MIN}..{high} (a stack of at least {CUT_MIN} from the "
                f"top), found {cards!r}",
                cite("571.5(d)(1)(ii)"),
            )
        recut = self.stack is not None
        self.stack = {"cut": {"cards": cards, "by": "dealer"}}
        data = {"cards": cards, "by": "dealer", "box": None, "recut": recut}
        data["detail"] = "cover card on the table, the cut stack on it, the rest on top"
        rule = cite("571.5(e)" if recut else "571.5(d)")
        return accepted([decision(EventType.CARDS_CUT, rule, None, **data)])

    def _cmd_recut(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        if problem := unknown_args(command, ("reason",)):
            return CommandOutcome(False, problem)
        if problem := needs_reason(command):
            return CommandOutcome(False, problem)
        return require_recut(
            command.role, ABOVE_FLOOR, self.stack, cite("571.5(e)"), "the last round"
        )
