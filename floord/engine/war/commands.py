"""The War table's operator commands, checked against § 567.4 and § 567.5.

The dealer says what no device sees: a round opened on its boxes and ended
(`round_start`, `round_end`; the end names the betting area, or the dealer's hand, where
the cover card appeared, which says who is offered the next cut, § 567.5(b)(2), (3)), the
cards shuffled by hand (`shuffle`, § 567.5(a)) and cut by a player or, if none accepts,
the dealer (`cut`, § 567.5(b)-(d)). A floorperson or above requires a recut before the
stack is placed in the shoe (§ 567.5(f)) or directs a reshuffle (§ 567.5(a), (b)(4)).
New decks are a receipt (`decks_received`, or `change_decks`): the dealer sorts and
inspects each deck separately and the floorperson verifies (§ 567.4(a)), unless they
came preinspected and preshuffled (e). The table commands are `TableState`'s.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from floord.contract import EventType, format_ts
from floord.engine.cards.deck_receipt import (
    ReceiptCommands,
    ReceiptRefused,
    inspect_step,
    new_receipt,
    receipt_event,
)
from floord.engine.core.base import TableEngineBase
from floord.engine.core.command_checks import (
    accepted,
    deal_refusal,
    distinct_boxes,
    needs_reason,
    unknown_args,
    whole,
)
from floord.engine.core.rulings import decision, policy_decision
from floord.engine.core.types import CommandOutcome, VerifiedCommand
from floord.engine.war.shoe import offer

if TYPE_CHECKING:
    from floord.engine.war.rules import WarRules
    from floord.engine.war.shoe import WarShoe

ABOVE_FLOOR = ("floorperson", "supervisor")
END_POLICY = "floord records the round's end: the dealing rules (§ 567.8) are not in our seeds"
ACTIVITY = ("round_start", "round_end", "shuffle", "cut")  # the dealer at work
COMMANDS: tuple[str, ...] = ("round_start", "round_end", "shuffle", "cut", "recut")
COMMANDS += ("reshuffle", "change_decks", "decks_received", "decks_inspected")
ARGS = {
    "round_start": ("boxes",),
    "round_end": ("cover_card_at",),
    "shuffle": (),
    "cut": ("cards", "by", "box"),
    "recut": ("reason",),
    "reshuffle": ("reason",),
}


class WarCommands(ReceiptCommands, TableEngineBase):
    """Command handling for `WarEngine` (which supplies the attributes below)."""

    game: str
    rules: WarRules
    shoe: WarShoe

    def on_command(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        now = self._touch(now)
        refused = self._card_table_command(
            command,
            now,
            COMMANDS,
            "the floorperson assigned to the table verifies the inspection",
            self.rules.cite("decks_inspected"),
        )
        if refused is not None:
            return refused
        if command.name in ARGS and (problem := unknown_args(command, ARGS[command.name])):
            return CommandOutcome(False, problem)
        if command.name in ("recut", "reshuffle") and (problem := needs_reason(command)):
            return CommandOutcome(False, problem)
        in_play = self.current_round
        if command.name == "round_end" and in_play is None:
            return CommandOutcome(False, "no round is in play")
        if command.name != "round_end" and in_play is not None:
            return CommandOutcome(False, f"round {in_play} is in play: wait for its end")
        outcome = self._own_command(command, now)
        if outcome.ok and command.name in ACTIVITY:
            self.shoe.active_at = format_ts(now)  # gaming activity (§ 567.5(h))
        return outcome

    # ----- rounds -----------------------------------------------------------------

    def _cmd_round_start(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        boxes, limit = command.args.get("boxes"), self.rules.boxes
        if not distinct_boxes(boxes, limit):
            return CommandOutcome(
                False, f"boxes must be a non-empty list of distinct box numbers 1..{limit}"
            )
        if (refused := self._start_refusal()) is not None:
            return refused
        if problems := self.shoe.start_problems():
            return deal_refusal(problems, "no dealing")
        assert self.gaming_day is not None
        rnd = self.rounds.start(self.gaming_day, now, {"boxes": sorted(boxes), "cover_card": False})
        body = {"n": rnd["n"], "gaming_day": rnd["gaming_day"], "game": self.game}
        body |= {"boxes": rnd["boxes"], "shoe": self.shoe.load_cards}
        rule = self.rules.cite("second_cover_card")  # the stack cut and placed in the shoe
        return accepted([decision(EventType.ROUND_STARTED, rule, rnd["id"], **body)])

    def _cmd_round_end(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        rnd = self.rounds.current
        assert rnd is not None
        at = command.args.get("cover_card_at")
        if rnd["cover_card"] and not (at == "dealer" or (whole(at) and at in rnd["boxes"])):
            return CommandOutcome(
                False,
                "the cover card came out in this round: cover_card_at must name the betting "
                f"area it appeared on ({rnd['boxes']}) or 'dealer', found {at!r}",
                self.rules.cite("offer_cover_box"),
            )
        if not rnd["cover_card"] and at is not None:
            return CommandOutcome(False, "the shoe reported no cover card in this round")
        self.rounds.finish()
        body: dict[str, Any] = {"outcome": "not_called", "boxes": rnd["boxes"]}
        body["detail"] = "floord neither reads nor pays War hands"
        if not rnd["cover_card"]:
            ended = policy_decision(EventType.ROUND_ENDED, END_POLICY, rnd["id"], **body)
            return accepted([ended])
        self.shoe.offer = (
            offer(self.rules, "dealer_hand") if at == "dealer" else offer(self.rules, "box", box=at)
        )
        body |= {"cover_card_at": at, "next_cut": self.shoe.offer}
        ended = decision(EventType.ROUND_ENDED, self.shoe.offer["rule"], rnd["id"], **body)
        return accepted([ended, *self.shoe.reshuffle_due("cover_card", rnd["id"])])

    # ----- the shuffle and the cut --------------------------------------------------

    def _cmd_shuffle(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        """The dealer's shuffle by hand (§ 567.5(a)); a working automated shuffler
        shuffles the cards itself."""
        if self.shoe.shuffler_in_use:
            return CommandOutcome(
                False, "the table's automated shuffler shuffles the cards (rules.shuffler)"
            )
        made = self.shoe.shuffled("hand", None, self.rules.stack_cards, None)
        if made:
            return CommandOutcome(False, str(made[0].data["detail"]), made[0].rule)
        return accepted([])

    def _cmd_cut(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        """§ 567.5(b)-(d): offered to the player (b) designates, then clockwise; if no
        player accepts, the dealer cuts (c); the cover card at least 10 cards in from the
        top or the bottom (d)."""
        stack = self.shoe.stack
        if stack is None:
            return CommandOutcome(False, "no shuffled stack to cut", self.rules.cite("shuffle"))
        if stack["cut"] is not None:
            return CommandOutcome(
                False,
                "the stack is already cut; a floorperson may require a recut",
                self.rules.cite("recut"),
            )
        by, box = command.args.get("by"), command.args.get("box")
        if by == "player" and not (whole(box) and 1 <= box <= self.rules.boxes):
            return CommandOutcome(
                False,
                f"a player's cut names the player's box 1..{self.rules.boxes}",
                self.rules.cite("offer"),
            )
        if by not in ("player", "dealer") or (by == "dealer" and box is not None):
            return CommandOutcome(
                False,
                f"by must be player (with box) or dealer (no player accepted), found {by!r}",
                self.rules.cite("cut_declined"),
            )
        if (problem := self.shoe.cut_problem(command.args.get("cards"))) is not None:
            return CommandOutcome(False, problem, self.rules.cite("cover_card"))
        offered = self.shoe.offer
        designated = None
        if offered is not None and offered["box"] is not None and by == "player":
            designated = box == offered["box"]
        cut = {"cards": command.args["cards"], "by": by, "box": box}
        stack["cut"] = cut
        data = {**cut, "shuffled": stack["shuffled"], "stack": stack["cards"]}
        data |= {"offered_to": offered, "designated": designated}
        data["detail"] = (
            "no player accepted the cut: the dealer cut the cards"
            if by == "dealer"
            else "the second cover card goes about a quarter of the way in from the bottom"
        )
        if by == "dealer":
            data["also"] = self.rules.cite("cut_declined")
        return accepted(
            [decision(EventType.CARDS_CUT, self.rules.cite("cover_card"), None, **data)]
        )

    def _cmd_recut(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        """§ 567.5(f): after the cut and before the stack is placed in the shoe, a
        floorperson or above may require a recut, by the next person entitled under (b)(4)."""
        if command.role not in ABOVE_FLOOR:
            return CommandOutcome(
                False, "a floorperson or above requires a recut", self.rules.cite("recut")
            )
        stack = self.shoe.stack
        if stack is None or stack["cut"] is None:
            return CommandOutcome(
                False,
                "no cut is on record since the cards were shuffled (or it is in the shoe)",
                self.rules.cite("recut"),
            )
        self.shoe.recut()
        return accepted([])

    def _cmd_reshuffle(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        """§ 567.5(a): the cards are shuffled "when directed by a floorperson or above";
        the cut is then offered to the farthest right player (b)(4)."""
        self.shoe.stack = None
        self.shoe.offer = offer(self.rules, "reshuffle")
        out = self.shoe.reshuffle_due(
            "floorperson", None, by=command.by, note=command.args["reason"]
        )
        return accepted(out)

    # ----- decks received -----------------------------------------------------------

    def _receive(
        self, command: VerifiedCommand, now: datetime, *, declared: bool, type: EventType
    ) -> CommandOutcome:
        """Six or more decks received at the table (§ 567.4(a)), preinspected and
        preshuffled (§ 567.4(e)) or not; `ReceiptCommands`' `change_decks` and
        `decks_received`."""
        try:
            receipt = new_receipt(command, now, table_decks=(self.rules.decks,), declared=declared)
        except ReceiptRefused as exc:
            return CommandOutcome(False, str(exc), self.rules.cite("decks_inspected"))
        shoe = self.shoe
        shoe.receipt = receipt
        shoe.stack, shoe.loaded = None, False
        shoe.offer = offer(self.rules, "first_player")
        pre = bool(receipt["preinspected_preshuffled"])
        if pre:
            shoe.due = None
            shoe.stack = {"shuffled": "preshuffled", "batch": None, "cards": None, "cut": None}
        else:
            shoe.due = "new_decks"
        # The deck rules (§ 567.3) are not in our seeds: no deck-change clock.
        rule = self.rules.cite("preinspected" if pre else "decks_inspected")
        inspect = "the dealer sorts and inspects each deck separately; the floorperson verifies"
        return accepted([receipt_event(type, receipt, now, rule, inspect)])

    def _cmd_decks_inspected(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        """The dealer sorts and inspects each deck separately (saying how many), then the
        floorperson assigned to the table verifies (§ 567.4(a))."""
        try:
            data = inspect_step(self.shoe.receipt, command, now, separately=True)
        except ReceiptRefused as exc:
            return CommandOutcome(False, str(exc), self.rules.cite("decks_inspected"))
        rule = self.rules.cite("decks_inspected")
        return accepted([decision(EventType.CARDS_DECKS_INSPECTED, rule, None, **data)])
