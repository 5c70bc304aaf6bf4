"""The operator commands of a Baccarat-family table, checked against the rules.

The dealer starts a coup (`round_start`) and ends it (`round_end`), and says when a new
dealer comes in (`dealer_in`: recorded; floord's sources tie no Baccarat rule to it). A
floorperson orders a reshuffle (§ 54x.5(c)) and records new decks (`change_decks`,
required after the cover card's last hand at Midibaccarat and Baccarat, § 543.10(e),
§ 545.10(e)). Decks received at the table (`decks_received`, or `change_decks`) are
sorted and inspected deck by deck by the dealer and verified by the floorperson
(`decks_inspected`, § 541.4(a), § 543.4(a), § 545.4(a)) and the dealer spreads them for the
first player, washed and stacked (`decks_spread`, § 54x.4(b), (c)) before a stack of them counts,
unless received preinspected and preshuffled (§ 541.4(e), § 543.4(d), § 545.4(d)), which
the receipt says. The table commands (inspect, open, close, resume) are `TableState`'s;
the floorperson assigned to the table verifies the inspection of the cards (§ 54x.4(a)).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from floord.contract import EventType, format_ts
from floord.engine.baccarat.coup import Coup, new_coup
from floord.engine.baccarat.cuts import CutBook, CutCommands
from floord.engine.cards.deck_receipt import (
    ReceiptRefused,
    inspect_step,
    new_receipt,
    received_data,
)
from floord.engine.cards.deck_spread import SpreadPlan, WashRefused, spread_step
from floord.engine.core.base import TableEngineBase
from floord.engine.core.command_checks import (
    accepted,
    deal_refusal,
    needs_reason,
    unknown_args,
)
from floord.engine.core.rulings import policy_decision, ruled
from floord.engine.core.types import CommandOutcome, Decision, EngineOutput, VerifiedCommand

if TYPE_CHECKING:
    from floord.engine.baccarat.rules import BaccaratRules
    from floord.engine.baccarat.shoe import BaccaratShoe
    from floord.engine.baccarat.vigorish import VigorishBook

# §§ 541.5(c), 543.5(c) and 545.5(b) say who cuts the cards after a reshuffle; no
# paragraph of chapters 541, 543 or 545 in the seeds lets a floorperson order one.
FLOOR_RESHUFFLE_POLICY = (
    "floord policy, not a regulation: a floorperson may order a reshuffle between coups; "
    "the cards are then shuffled, cut and burned as after any shuffle"
)
CARD_COMMANDS = (
    "dealer_in",
    "round_start",
    "no_more_bets",
    "round_end",
    "vigorish_collected",
    "reshuffle",
    "change_decks",
    "decks_received",
    "decks_inspected",
    "decks_spread",
    "shuffle",
    "shuffle_verified",
    "cut",
    "recut",
)
# The commands whose arguments their handler checks; the others take none but `reason`.
OWN_ARGS: tuple[str, ...] = ("change_decks", "decks_received", "decks_inspected", "decks_spread")
OWN_ARGS += ("shuffle", "shuffle_verified", "cut", "recut")


class BaccaratCommands(CutCommands, TableEngineBase):
    """Command handling for `BaccaratEngine` (which supplies the attributes below)."""

    rules: BaccaratRules
    shoe: BaccaratShoe
    vigorish: VigorishBook
    cuts: CutBook
    recognition: bool
    _coup: Callable[[], Coup | None]

    def on_command(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        now = self._touch(now)
        refused = self._card_table_command(
            command,
            now,
            CARD_COMMANDS,
            "the floorperson assigned to the table verifies the inspection of the cards",
            self.rules.cite("inspection"),
        )
        if refused is not None:
            return refused
        allowed = ("reason",) if command.name == "reshuffle" else ()
        if command.name not in OWN_ARGS and (problem := unknown_args(command, allowed)):
            return CommandOutcome(False, problem)
        return self._own_command(command, now)

    # ----- dealer -----------------------------------------------------------------

    def _cmd_dealer_in(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        if self.rounds.current is not None:
            return CommandOutcome(False, "a new dealer comes in between coups")
        return CommandOutcome(True)

    def _cmd_round_start(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        if (refused := self._start_refusal()) is not None:
            return refused
        problems = self.shoe.start_problems()
        if (owed := self.vigorish.start_problem()) is not None:
            problems.append(owed)
        if problems:
            return deal_refusal(problems, "no coup")
        assert self.gaming_day is not None
        rnd = self.rounds.start(self.gaming_day, now, new_coup(recognition=self.recognition))
        self.shoe.round_started(rnd)
        body = {
            "n": rnd["n"],
            "gaming_day": rnd["gaming_day"],
            "game": self.rules.game,
            "recognition": self.recognition,
            "cover_card": rnd["cover_card"],
            "last_hand": rnd["last_hand"],
            "rules": self.rules.to_dict(),
        }
        return accepted([Decision(EventType.ROUND_STARTED, body, None, rnd["id"])])

    def _cmd_round_end(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        coup = self._coup()
        if coup is None:
            return CommandOutcome(False, "no round is in play")
        outcome, events = coup.finish()
        return CommandOutcome(True, output=self._checked_coup(outcome, events, now))

    def _checked_coup(self, outcome: str, events: list[Decision], now: datetime) -> EngineOutput:
        """The coup's end, checked against a second source (`result_check.py`)."""
        return EngineOutput(self._end_coup(outcome, events))

    def _end_coup(self, outcome: str, events: list[Decision]) -> list[Decision]:
        """The coup's result (if any) settled, the round ended, the shoe told."""
        for decision in events:
            if decision.type == EventType.BACCARAT_RESULT:
                self.vigorish.settled(decision.data)
        rnd = self.rounds.finish()
        ended: dict[str, Any] = {"outcome": outcome, "cards": rnd["dealt"]}
        if outcome == "not_called":
            ended["detail"] = "the shoe did not read every card: floord counted them only"
        events.append(Decision(EventType.ROUND_ENDED, ended, None, rnd["id"]))
        events += self.shoe.round_finished(rnd)
        return events

    def _cmd_no_more_bets(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        """The dealer calling the game announces "no more bets" before any card is dealt
        (§ 543.9(b), § 545.8(c)); the accepted command is the record of it."""
        coup = self._coup()
        if coup is None:
            return CommandOutcome(False, "no coup is in play (round_start first)")
        problem = coup.no_more_bets(command.by, format_ts(now))
        if problem is not None:
            return CommandOutcome(False, problem, self.rules.cite("no_more_bets"))
        return CommandOutcome(True)

    def _cmd_vigorish_collected(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        """The dealer has collected the outstanding vigorish (§ 545.13(f))."""
        if self.rounds.current is not None:
            return CommandOutcome(
                False,
                "outstanding vigorish is recorded collected between coups",
                self.rules.cite("deferred_vigorish"),
            )
        self.vigorish.collected()
        return CommandOutcome(True)

    # ----- floorperson ------------------------------------------------------------

    def _cmd_reshuffle(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        if problem := needs_reason(command):
            return CommandOutcome(False, problem)
        if self.rounds.current is not None:
            return CommandOutcome(False, "a reshuffle is ordered between coups")
        self.shoe.reshuffle_ordered()
        self.cuts.stack = None
        order = policy_decision(
            EventType.CARDS_SHUFFLE_REQUIRED,
            FLOOR_RESHUFFLE_POLICY,
            None,
            reason="floorperson",
            by=command.by,
            note=command.args["reason"],
        )
        return accepted([order])

    def _cmd_change_decks(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        """New decks (after the cover card's last hand, § 543.10(e), § 545.10(e), or at any
        time): a receipt like `decks_received`, whose declaration may be left out (then
        they are inspected: the exemption of § 54x.4(d), (e) is never assumed)."""
        receipt = self._receipt(command, now, declared=False)
        if isinstance(receipt, CommandOutcome):
            return receipt
        answered = self.shoe.new_decks_required
        self._new_decks(receipt)
        event = ruled(
            self.rules,
            EventType.CARDS_DECKS_CHANGED,
            "cover_card" if answered else "inspection",
            None,
            by=command.by,
            opened_at=format_ts(now),
            after_cover_card=answered,
            detail="the new decks are shuffled, cut, loaded and burned before the next coup",
            inspection=received_data(receipt)["inspection"],
            preinspected_preshuffled=receipt["preinspected_preshuffled"],
        )
        return accepted([event])

    def _cmd_decks_received(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        """Six or more decks received at the table (§ 54x.4(a)); whether preinspected and
        preshuffled (§ 541.4(e), § 543.4(d), § 545.4(d)) the command must say. New decks
        also answer the cover card's "new decks" (§ 543.10(e), § 545.10(e))."""
        receipt = self._receipt(command, now, declared=True)
        if isinstance(receipt, CommandOutcome):
            return receipt
        answered = self.shoe.new_decks_required
        self._new_decks(receipt)
        pre = receipt["preinspected_preshuffled"]
        event = ruled(
            self.rules,
            EventType.CARDS_DECKS_RECEIVED,
            "preinspected" if pre else "inspection",
            None,
            **received_data(receipt),
            opened_at=format_ts(now),
            # No deck-change period is in floord's Baccarat sources: no clock runs.
            due_at=None,
            deck_rule=None,
            after_cover_card=answered,
        )
        return accepted([event])

    def _new_decks(self, receipt: dict[str, Any]) -> None:
        """New decks replace the shoe's; received preshuffled, they are a stack to cut."""
        self.shoe.decks_changed()
        self.shoe.receipt = receipt
        self.cuts.stack = None
        if receipt["preinspected_preshuffled"]:
            self.cuts.shuffled("preshuffled", reshuffle=False)

    def _receipt(
        self, command: VerifiedCommand, now: datetime, *, declared: bool
    ) -> dict[str, Any] | CommandOutcome:
        if self.rounds.current is not None:
            return CommandOutcome(False, "the decks are changed between coups")
        try:
            # § 54x.4(b), (c): spread after the verification, all together, then washed.
            spread = SpreadPlan().record()
            decks = (self.rules.decks,)
            return new_receipt(command, now, table_decks=decks, declared=declared, spread=spread)
        except ReceiptRefused as exc:
            return CommandOutcome(False, str(exc), self.rules.cite("inspection"))

    def _cmd_decks_inspected(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        """The dealer sorts and inspects each deck separately, face down, and says how many
        (`decks`); the floorperson assigned to the table verifies (§ 54x.4(a))."""
        try:
            data = inspect_step(self.shoe.receipt, command, now, separately=True)
        except ReceiptRefused as exc:
            return CommandOutcome(False, str(exc), self.rules.cite("inspection"))
        event = ruled(self.rules, EventType.CARDS_DECKS_INSPECTED, "inspection", None, **data)
        return accepted([event])

    def _cmd_decks_spread(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        """After the dealer's inspection and the floorperson's verification, the cards
        spread face up for the first player, then turned face down, washed and stacked
        (§ 54x.4(b), (c)); the dealer's signed step clears the decks."""
        try:
            data = spread_step(self.shoe.receipt, command, now)
        except WashRefused as exc:
            return CommandOutcome(False, str(exc), self.rules.cite("wash"))
        except ReceiptRefused as exc:
            return CommandOutcome(False, str(exc), self.rules.cite("spread"))
        data["wash_rule"] = self.rules.cite("wash")
        event = ruled(self.rules, EventType.CARDS_DECKS_SPREAD, "spread", None, **data)
        return accepted([event])
