"""The dealer's `cut` and the floorperson's `recut` at Blackjack and Spanish 21
(§ 549.6(b)-(d), (f); § 551.5(b)-(d), (f)), and `round_end {cutting_card_at}`.

What the paragraphs say and what is kept is `cuts`'s; the order and the size are
`cut_offer`'s. Mixed into the table's commands.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from floord.contract import EventType
from floord.engine.blackjack import cut_counts
from floord.engine.blackjack.cuts import FARTHEST_RIGHT, next_offer
from floord.engine.blackjack.rules import GameRules
from floord.engine.cards.cut_offer import CUT_ARGS, CutRefused, CutRules, offer, read_cut
from floord.engine.core.base import TableEngineBase
from floord.engine.core.command_checks import accepted, needs_reason, unknown_args, whole
from floord.engine.core.rulings import ruled
from floord.engine.core.types import CommandOutcome, VerifiedCommand

if TYPE_CHECKING:
    from floord.engine.blackjack.shoe import ShoeBook

ABOVE_FLOOR = ("floorperson", "supervisor")


class CutCommands(TableEngineBase):
    """The dealer's `cut` and the floorperson's `recut` (mixed into the commands)."""

    rules: GameRules
    shoe: ShoeBook

    def _cut_rules(self) -> CutRules:
        return CutRules(
            positions=self.rules.boxes,
            order="up",
            card="cutting card",
            offer_key="offer",
            declined_key="cut_declined",
            cards_key="cut_cards",
            recut_key="recut",
        )

    def _side_arg(self, command: VerifiedCommand) -> str | CommandOutcome:
        side = command.args.get("side")
        if not self.shoe.double:
            if side is not None:
                return CommandOutcome(False, "side is given only on a double shoe")
            return "shoe"
        if side not in ("left", "right"):
            return CommandOutcome(False, f"side must be left or right, found {side!r}")
        return str(side)

    def _cmd_cut(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        """§ 549.6(b)-(d), § 551.5(b)-(d): the cut of the next stack of a side."""
        if problem := unknown_args(command, (*CUT_ARGS, "side")):
            return CommandOutcome(False, problem)
        if self.shoe.continuous:
            why = "a continuous shuffling shoe has no cut"
            return CommandOutcome(False, why, self.rules.cite("continuous"))
        side = self._side_arg(command)
        if isinstance(side, CommandOutcome):
            return side
        cuts = self.shoe.cuts
        if cuts.pending[side] is not None:
            why = "the stack is already cut; a floorperson may require a recut"
            return CommandOutcome(False, why, self.rules.cite("recut"))
        stack = cut_counts.expected_stack(
            self.rules, self.shoe.decks, self.shoe.double, self.shoe.shuffler
        )
        try:
            cut = read_cut(command.args, stack, cuts.offer, self._cut_rules())
        except CutRefused as exc:
            return CommandOutcome(False, str(exc), self.rules.cite(exc.key))
        cuts.pending[side] = cut
        key = "recut" if cuts.offer["why"] == "recut" else "cut_cards"
        data = {**cut, "side": None if side == "shoe" else side, "recut": key == "recut"}
        if cut["by"] == "dealer":
            data["also"] = self.rules.cite("cut_declined")
        return accepted([ruled(self.rules, EventType.CARDS_CUT, key, self.current_round, **data)])

    def _cmd_recut(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        """§ 549.6(f), § 551.5(f): after the cut and before any card is dealt."""
        if problem := unknown_args(command, ("reason", "side")):
            return CommandOutcome(False, problem)
        if problem := needs_reason(command):
            return CommandOutcome(False, problem)
        rule = self.rules.cite("recut")
        if command.role not in ABOVE_FLOOR:
            return CommandOutcome(False, "a floorperson or above requires a recut", rule)
        side = self._side_arg(command)
        if isinstance(side, CommandOutcome):
            return side
        cuts, state = self.shoe.cuts, self.shoe.sides[side]
        cut = cuts.pending[side]
        last = cuts.last
        undealt = last is not None and last["side"] == side and state["loaded"]
        undealt = undealt and state["drawn"] == 0
        if cut is None and not undealt:
            why = "no cut is on record of which no card has been dealt"
            return CommandOutcome(False, why, rule)
        if cut is None:  # in the shoe, nothing dealt: the stack comes out to be cut again
            assert last is not None
            cut = last
            state["loaded"] = False
            self.shoe.burn_due = None
        cuts.pending[side] = None
        after = cut["box"] if cut["by"] == "player" else None
        if self.rules.spanish21:  # "by the next player entitled ... (c)"
            to = "the next player entitled to cut the cards"
        else:  # the certificate holder's option: the last cutter or the (b)(4) player
            to = f"the player who last cut the cards or {FARTHEST_RIGHT}"
            after = None
        cuts.offer = offer("recut", to, rule, None, after)
        return accepted([])

    def _cutting_card_offer(
        self, command: VerifiedCommand, boxes: list[int]
    ) -> dict[str, Any] | str | None:
        """`round_end {cutting_card_at}`: the box, or the dealer's hand, on which the
        cutting card appeared (§ 549.6(b)(2), (3)): whom the next cut is offered to, or
        why the argument is refused (None: not given)."""
        at = command.args.get("cutting_card_at")
        if at is None:
            return None
        if not any(s["cutting_pending"] for s in self.shoe.sides.values()):
            return "the shoe reported no cutting card in this round"
        if not (at == "dealer" or (whole(at) and at in boxes)):
            return (
                f"cutting_card_at names the box the cutting card appeared on ({boxes}) or "
                f"'dealer', found {at!r}"
            )
        if at == "dealer":
            return next_offer(self.rules, "cutting_card_dealer")
        return next_offer(self.rules, "cutting_card_box", int(at))
