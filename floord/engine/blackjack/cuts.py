"""The cut of each stack before it goes into the shoe (Blackjack § 549.6(b)-(d), (f);
Spanish 21 § 551.5(b)-(d), (f)).

After the shuffle the dealer offers the stack to the player (b) designates: the first
player to the table when the game begins (b)(1), the player on whose box the cutting
card appeared in the last round (b)(2), the farthest right player when it appeared on
the dealer's hand (b)(3) or when a floorperson ordered the reshuffle (b)(4); then each
other player clockwise; if none accepts, the dealer cuts (c), the cutting card at least
10 cards from the top or the bottom (d). The dealer's `cut` records it, per side of a
double shoe; `round_end {cutting_card_at}` says where the cutting card appeared. A
floorperson's `recut` strikes a cut before any card of it is dealt (f): at Blackjack by
the player who last cut or the (b)(4) player, the certificate holder's option; at
Spanish 21 by the next player entitled under (c). A stack loaded with no cut on record
is a violation and does not count. The order and the size are `cut_offer`'s.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from floord.contract import EventType
from floord.engine.blackjack import cut_counts
from floord.engine.blackjack.rules import CARD_DEFAULTS, GameRules
from floord.engine.cards.cut_offer import (
    CUT_ARGS,
    CutRefused,
    CutRules,
    counted_problem,
    offer,
    read_cut,
)
from floord.engine.core.base import TableEngineBase
from floord.engine.core.command_checks import accepted, needs_reason, unknown_args, whole
from floord.engine.core.rulings import ruled, violation
from floord.engine.core.snapshots import json_copy
from floord.engine.core.types import CommandOutcome, Decision, VerifiedCommand

if TYPE_CHECKING:
    from floord.engine.blackjack.shoe import ShoeBook

ABOVE_FLOOR = ("floorperson", "supervisor")
FARTHEST_RIGHT = "the player at the farthest point to the right of the dealer"
# Why the next cut is offered to whom -> (the key of its paragraph, the player in words).
OFFERS = {
    "first_player": ("offer_first", "the first player to the table"),
    "cutting_card_box": ("offer_box", "the player on whose box the cutting card appeared"),
    "cutting_card_dealer": ("offer_dealer", FARTHEST_RIGHT),
    "reshuffle": ("offer_reshuffle", FARTHEST_RIGHT),
}


def next_offer(rules: GameRules, why: str, box: int | None = None) -> dict[str, Any]:
    key, to = OFFERS[why]
    return offer(why, to, rules.cite(key), box)


class CutBook:
    """Whom the next cut is offered to, the cut of each side's next stack, the last cut."""

    FIELDS = ("offer", "pending", "last")

    def __init__(self, rules: GameRules, sides: tuple[str, ...]) -> None:
        self.rules = rules
        self.offer: dict[str, Any] = next_offer(rules, "first_player")
        self.pending: dict[str, dict[str, Any] | None] = {side: None for side in sides}
        self.last: dict[str, Any] | None = None

    def load(self, side: str, cards: object, round_id: str | None) -> tuple[bool, list[Decision]]:
        """A stack placed in `side`: (whether it counts, decisions). It counts only with a
        cut on record; a shoe that counts it checks the cut again (d)."""
        cut = self.pending.get(side)
        where = None if side == "shoe" else side
        if cut is None:
            detail = "the stack is offered to the players and cut before it goes into the shoe"
            return False, [
                violation(
                    self.rules,
                    "offer",
                    "stack_not_cut",
                    round_id,
                    side=where,
                    detail=f"{detail}: the load does not count",
                )
            ]
        self.pending[side] = None
        self.last = {**cut, "side": side, "drawn": False}
        if (problem := counted_problem(cut, cards)) is None:
            return True, []
        what = problem.pop("what")
        return True, [violation(self.rules, "cut_cards", what, round_id, side=where, **problem)]

    def reset(self, why: str, box: int | None = None) -> None:
        """New decks, a floorperson's reshuffle: the cuts on record go; the offer is `why`'s."""
        self.offer = next_offer(self.rules, why, box)
        self.pending = dict.fromkeys(self.pending)

    def snapshot(self) -> dict[str, Any]:
        return {name: json_copy(getattr(self, name)) for name in self.FIELDS}

    def restore(self, body: object) -> None:
        if not isinstance(body, dict):
            return  # a snapshot from before cuts were recorded: the defaults stand
        for name in self.FIELDS:
            if name in body:
                setattr(self, name, json_copy(body[name]))


class CutCommands(TableEngineBase):
    """The dealer's `cut` and the floorperson's `recut` (mixed into the commands)."""

    rules: GameRules
    shoe: ShoeBook
    card_rules: dict[str, Any]

    def _cut_rules(self) -> CutRules:
        return CutRules(
            positions=int(self.card_rules.get("boxes", CARD_DEFAULTS["boxes"])),
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
