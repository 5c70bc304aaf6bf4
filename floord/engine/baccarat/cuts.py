"""The shuffle, the feathered stack and the cut of a Baccarat-family table.

- The dealer's `shuffle` records a stack shuffled by hand (§ 541.5(a), § 543.5(a),
  § 545.5(a)); decks received preinspected and preshuffled are a stack already.
- At Minibaccarat and Midibaccarat the dealer leaves the stack feathered so that the
  floorperson can verify the shuffle did not result in an uneven distribution
  (§ 541.5(b), § 543.5(b)): the floorperson's `shuffle_verified {even}` records it; an
  uneven shuffle is shuffled again. Chapter 545 has no such paragraph.
- The dealer's `cut` (§ 541.5(c), (d), § 543.5(c), (d), § 545.5(b), (c)): offered from
  the highest numbered position clockwise (at Baccarat after a reshuffle, from the last
  curator), the dealer cutting if no player accepts; the cover card at least ten cards in
  from the top or the bottom. floord knows no seat plan: it checks that no position
  offered is numbered higher than the first (`cut_offer`).
- A floorperson's `recut` before the stack is placed in the shoe (§ 541.5(f), § 543.5(f),
  § 545.5(e)), by the next person entitled to cut.
- A stack loaded with no cut on record is a violation and does not count; a shoe that
  counts it checks the cut again.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from floord.contract import EventType
from floord.engine.cards.cut_offer import (
    CUT_ARGS,
    CutRefused,
    CutRules,
    counted_problem,
    offer,
    read_cut,
)
from floord.engine.core.base import TableEngineBase
from floord.engine.core.command_checks import accepted, needs_reason, unknown_args
from floord.engine.core.rulings import decision, ruled, violation
from floord.engine.core.snapshots import restore_fields, snapshot_fields
from floord.engine.core.types import CommandOutcome, Decision, VerifiedCommand

if TYPE_CHECKING:
    from floord.engine.baccarat.rules import BaccaratRules
    from floord.engine.baccarat.shoe import BaccaratShoe

ABOVE_FLOOR = ("floorperson", "supervisor")
MAX_POSITIONS = 15  # floord's bound on a seat number: the layouts are not in the seeds
HIGHEST = "the player seated in the highest number position"
# A shuffle of cards already dealt from this shoe: at Baccarat the cut then begins with
# the last curator (§ 545.5(b)); new decks begin with the highest position.
RESHUFFLES = ("floorperson", "no_gaming_activity", "shoe_empty", "cover_card")


class CutBook:
    """The stack shuffled and its cut, whom the cut is offered to, the last cut."""

    FIELDS = ("stack", "offer", "last")

    def __init__(self, rules: BaccaratRules) -> None:
        self.rules = rules
        # {"shuffled": "hand" | "preshuffled", "verified": bool | None, "cut": {...} | None}
        self.stack: dict[str, Any] | None = None
        self.offer: dict[str, Any] = offer("highest", HIGHEST, rules.cite("cut_offer"))
        self.last: dict[str, Any] | None = None

    def shuffled(self, how: str, reshuffle: bool) -> None:
        self.stack = {"shuffled": how, "verified": None, "cut": None}
        curator = reshuffle and self.rules.game == "baccarat"
        to, why = ("the last curator", "curator") if curator else (HIGHEST, "highest")
        self.offer = offer(why, to, self.rules.cite("cut_offer"))

    def load(self, cards: object) -> tuple[bool, list[Decision]]:
        """A stack placed in the shoe: (whether it counts, decisions)."""
        stack = self.stack
        if stack is None or stack["cut"] is None:
            detail = "the stack is shuffled, offered to the players and cut before the shoe"
            return False, [
                violation(
                    self.rules,
                    "cut_offer",
                    "stack_not_cut" if stack else "stack_not_shuffled",
                    None,
                    detail=f"{detail}: the load does not count",
                )
            ]
        self.stack, self.last = None, stack["cut"]
        if (problem := counted_problem(stack["cut"], cards)) is None:
            return True, []
        what = problem.pop("what")
        return True, [violation(self.rules, "cut_cards", what, None, **problem)]

    def snapshot(self) -> dict[str, Any]:
        return snapshot_fields(self, self.FIELDS)

    def restore(self, body: object) -> None:
        if not isinstance(body, dict):
            return  # a snapshot from before cuts were recorded: the defaults stand
        restore_fields(self, self.FIELDS, body)


class CutCommands(TableEngineBase):
    """`shuffle`, `shuffle_verified`, `cut`, `recut` (mixed into the commands)."""

    rules: BaccaratRules
    shoe: BaccaratShoe
    cuts: CutBook

    def _between_coups(self) -> CommandOutcome | None:
        if self.rounds.current is not None:
            return CommandOutcome(False, "the cards are shuffled and cut between coups")
        return None

    def _cmd_shuffle(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        if problem := unknown_args(command, ()):
            return CommandOutcome(False, problem)
        if (refused := self._between_coups()) is not None:
            return refused
        self.cuts.shuffled("hand", self.shoe.shuffle_required in RESHUFFLES)
        return accepted([])

    def _cmd_shuffle_verified(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        """§ 541.5(b), § 543.5(b): the floorperson verifies the feathered stack."""
        if problem := unknown_args(command, ("even", "note")):
            return CommandOutcome(False, problem)
        rule = self.rules.feather_rule
        if rule is None:
            why = "chapter 545 has no feathered stack to verify"
            return CommandOutcome(False, why, self.rules.cite("shuffle"))
        if command.role not in ABOVE_FLOOR:
            return CommandOutcome(False, "the floorperson verifies the shuffle", rule)
        even = command.args.get("even")
        if not isinstance(even, bool):
            return CommandOutcome(False, f"even must be true or false, found {even!r}", rule)
        stack = self.cuts.stack
        if stack is None or stack["shuffled"] != "hand" or stack["cut"] is not None:
            why = "no stack shuffled by the dealer waits, feathered, to be verified"
            return CommandOutcome(False, why, rule)
        data: dict[str, Any] = {"even": even, "by": command.by}
        if even:
            stack["verified"] = True
            data["detail"] = "the floorperson verified the feathered stack"
            return accepted([decision(EventType.CARDS_SHUFFLE_VERIFIED, rule, None, **data)])
        self.cuts.stack = None
        data["detail"] = "the shuffle distributed the cards unevenly: the cards are shuffled again"
        return accepted([decision(EventType.CARDS_SHUFFLE_VERIFIED, rule, None, **data)])

    def _cmd_cut(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        if problem := unknown_args(command, CUT_ARGS):
            return CommandOutcome(False, problem)
        if (refused := self._between_coups()) is not None:
            return refused
        stack = self.cuts.stack
        if stack is None:
            return CommandOutcome(False, "no shuffled stack to cut", self.rules.cite("shuffle"))
        if stack["cut"] is not None:
            why = "the stack is already cut; a floorperson may require a recut"
            return CommandOutcome(False, why, self.rules.cite("recut"))
        feather = self.rules.feather_rule
        if feather is not None and stack["shuffled"] == "hand" and not stack["verified"]:
            why = "the floorperson verifies the feathered stack first (shuffle_verified)"
            return CommandOutcome(False, why, feather)
        rules = CutRules(
            positions=MAX_POSITIONS,
            # From the last curator, or on a recut, floord knows neither whom the offer
            # begins with nor the table's direction: only distinct positions are checked.
            order="highest_first" if self.cuts.offer["why"] == "highest" else "any",
            card="cover card",
            offer_key="cut_offer",
            declined_key="cut_offer",
            cards_key="cut_cards",
            recut_key="recut",
        )
        try:
            cut = read_cut(command.args, self.rules.decks * 52, self.cuts.offer, rules)
        except CutRefused as exc:
            return CommandOutcome(False, str(exc), self.rules.cite(exc.key))
        stack["cut"] = cut
        key = "recut" if self.cuts.offer["why"] == "recut" else "cut_cards"
        data = {**cut, "shuffled": stack["shuffled"], "recut": key == "recut"}
        return accepted([ruled(self.rules, EventType.CARDS_CUT, key, None, **data)])

    def _cmd_recut(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        if problem := unknown_args(command, ("reason",)):
            return CommandOutcome(False, problem)
        if problem := needs_reason(command):
            return CommandOutcome(False, problem)
        rule = self.rules.cite("recut")
        if command.role not in ABOVE_FLOOR:
            return CommandOutcome(False, "a floorperson or above requires a recut", rule)
        stack = self.cuts.stack
        if stack is None or stack["cut"] is None:
            why = "no cut is on record that is not yet in the dealing shoe"
            return CommandOutcome(False, why, rule)
        cut, stack["cut"] = stack["cut"], None
        after = cut["box"] if cut["by"] == "player" else None
        self.cuts.offer = offer("recut", "the next person entitled to cut", rule, None, after)
        return accepted([])
