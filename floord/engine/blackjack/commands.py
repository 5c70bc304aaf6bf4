"""The operator commands of a Blackjack or Spanish 21 table, checked against the rules.

The dealer tells floord what no device sees: a new dealer at the table (`dealer_in`,
a burn card is due, § 549.7(c)), the boxes with a wager (`round_start`), each player's
decision, the dealer's turn and the end of the round. A floorperson orders a reshuffle
(§ 549.6(g)), records new decks (§ 549.3(e), § 551.3(c)) and covers a broken shuffler.
New decks are a receipt (`decks_received`, or `change_decks`): the dealer inspects them
(§ 549.5(a), § 551.4(a)) and a floorperson verifies (§ 551.4(b); on Blackjack floord's
policy) before a shoe loaded with them counts, unless received preinspected and
preshuffled (§ 549.5(f), § 551.4(d)), which the receipt says; then the dealer's
`decks_spread` records the spread for the first player, the washing and the stacking
(§ 549.5(b)-(e), § 551.4(b), (c)).
The table commands (inspect, open, close, resume) are `TableState`'s; only the
floorperson assigned to the table inspects the card reader (§ 549.2(e), § 551.2(e)).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from floord.contract import EventType, format_ts
from floord.engine.blackjack.corrections import OPTIONS
from floord.engine.blackjack.cut_commands import CutCommands
from floord.engine.blackjack.decisions import Round
from floord.engine.blackjack.play import ACTIONS, Step, new_round
from floord.engine.blackjack.rules import MAX_BOXES
from floord.engine.cards.deck_receipt import (
    VERIFY_POLICY,
    ReceiptRefused,
    inspect_step,
    new_receipt,
    received_data,
)
from floord.engine.cards.deck_spread import WashRefused, spread_step
from floord.engine.cards.shuffler_cover import cover_shuffler
from floord.engine.core.base import TableEngineBase
from floord.engine.core.command_checks import (
    accepted,
    deal_refusal,
    distinct_boxes,
    floor_reshuffle,
    needs_reason,
    players_problem,
    unknown_args,
    whole,
)
from floord.engine.core.rulings import ruled
from floord.engine.core.types import CommandOutcome, Decision, VerifiedCommand

if TYPE_CHECKING:
    from floord.engine.blackjack.rules import GameRules
    from floord.engine.blackjack.shoe import ShoeBook

CARD_COMMANDS = (
    "dealer_in",
    "round_start",
    "decision",
    "dealer_turn",
    "round_end",
    "card_to",
    "hand_option",
    "reshuffle",
    "change_decks",
    "cover_shuffler",
    "decks_received",
    "decks_inspected",
    "decks_spread",
    "cut",
    "recut",
)


def _refused(step: Step) -> CommandOutcome:
    return CommandOutcome(False, step.error, step.rule)


class BlackjackCommands(CutCommands, TableEngineBase):
    """Command handling for `BlackjackEngine` (which supplies the attributes below)."""

    rules: GameRules
    shoe: ShoeBook
    recognition: bool
    _play: Callable[[], Round | None]
    reader_cleared: Callable[[datetime], str | None]

    def on_command(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        now = self._touch(now)
        refused = self._card_table_command(
            command,
            now,
            CARD_COMMANDS,
            "the card reader is inspected by the floorperson assigned to the table",
            self.rules.cite("reader_inspection"),
        )
        if refused is not None:
            return refused
        return self._own_command(command, now)

    # ----- dealer -----------------------------------------------------------------

    def _cmd_dealer_in(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        if problem := unknown_args(command, ()):
            return CommandOutcome(False, problem)
        if self.rounds.current is not None:
            return CommandOutcome(
                False, "a new dealer comes in between rounds", self.rules.cite("burn")
            )
        if self.shoe.has_burn:
            self.shoe.burn_due = "new_dealer"
        return CommandOutcome(True)

    def _cmd_round_start(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        if problem := unknown_args(command, ("boxes", "players")):
            return CommandOutcome(False, problem)
        boxes = command.args.get("boxes")
        limit = self.rules.boxes
        if not distinct_boxes(boxes, limit):
            # Box 8 or 9 is no betting area of any Blackjack layout (§ 549.2(b)(2)).
            beyond = isinstance(boxes, list) and any(whole(b) and b > MAX_BOXES for b in boxes)
            return CommandOutcome(
                False,
                f"boxes must be a non-empty list of distinct box numbers 1..{limit}",
                self.rules.cite("betting_areas") if beyond else None,
            )
        if problem := self._boxes_per_player(boxes, command.args.get("players")):
            return CommandOutcome(False, problem, self.rules.cite("boxes_per_player"))
        if (refused := self._start_refusal()) is not None:
            return refused
        if (why := self.reader_cleared(now)) is not None:
            return CommandOutcome(False, f"no dealing: {why}", self.rules.cite("reader_inspection"))
        problems = self.shoe.deal_problems(now)
        if problems:
            return deal_refusal(problems, "no dealing")
        assert self.gaming_day is not None
        fields = new_round(boxes, recognition=self.recognition, double=self.shoe.double)
        rnd = self.rounds.start(self.gaming_day, now, fields)
        body = {
            "n": rnd["n"],
            "gaming_day": rnd["gaming_day"],
            "game": self.rules.game,
            "boxes": rnd["boxes"],
            "shoe": "double" if self.shoe.double else "single",
            "recognition": self.recognition,
        }
        return accepted([Decision(EventType.ROUND_STARTED, body, None, rnd["id"])])

    def _boxes_per_player(self, boxes: list[int], players: Any) -> str | None:
        """§ 549.14: a player wagers on at most `max_adjacent_boxes` boxes, side by side.

        `players` (optional) maps a player to the boxes they play, as the dealer sees it;
        without it the dealer vouches for the rule and the engine cannot check it.
        """
        if players is None:
            return None
        most = self.rules.max_adjacent_boxes
        if problem := players_problem(boxes, players):
            return problem
        for player, played in players.items():
            ordered = sorted(played)
            if len(ordered) > most:
                return f"player {player} plays {len(ordered)} boxes; the limit is {most}"
            if ordered != list(range(ordered[0], ordered[0] + len(ordered))):
                return f"player {player} plays boxes {ordered}, which are not adjacent"
        return None

    def _cmd_decision(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        if problem := unknown_args(command, ("box", "hand", "action")):
            return CommandOutcome(False, problem)
        box, hand, action = (command.args.get(k) for k in ("box", "hand", "action"))
        if not whole(box) or not whole(hand) or action not in ACTIONS:
            return CommandOutcome(
                False, f"decision needs box and hand numbers and an action ({', '.join(ACTIONS)})"
            )
        play = self._play()
        if play is None:
            return CommandOutcome(False, "no round is in play")
        step = play.decision(box, hand, action)
        return _refused(step) if step.error else accepted(step.decisions)

    def _cmd_card_to(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        """Where the last card drawn was really dealt: `{"box", "hand"}` or `{"dealer":
        true}` (§ 549.16(e), (g), (i); `corrections.py`)."""
        if problem := unknown_args(command, ("box", "hand", "dealer")):
            return CommandOutcome(False, problem)
        args = command.args
        if args.get("dealer") is True and "box" not in args and "hand" not in args:
            to: dict[str, Any] = {"dealer": True}
        elif "dealer" not in args and whole(args.get("box")) and whole(args.get("hand")):
            to = {"box": args["box"], "hand": args["hand"]}
        else:
            return CommandOutcome(
                False, "card_to needs box and hand numbers, or dealer: true (not both)"
            )
        play = self._play()
        if play is None:
            return CommandOutcome(False, "no round is in play")
        step = play.card_to(to, command.by, command.role)
        return _refused(step) if step.error else accepted(step.decisions)

    def _cmd_hand_option(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        """The player's option after a dealer's error (§ 549.16(g), (i))."""
        if problem := unknown_args(command, ("box", "hand", "option")):
            return CommandOutcome(False, problem)
        box, hand, option = (command.args.get(k) for k in ("box", "hand", "option"))
        if not whole(box) or not whole(hand) or option not in OPTIONS:
            return CommandOutcome(
                False,
                f"hand_option needs box and hand numbers and an option ({', '.join(OPTIONS)})",
            )
        play = self._play()
        if play is None:
            return CommandOutcome(False, "no round is in play")
        step = play.hand_option(box, hand, option, command.by, command.role)
        return _refused(step) if step.error else accepted(step.decisions)

    def _cmd_dealer_turn(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        if problem := unknown_args(command, ()):
            return CommandOutcome(False, problem)
        play = self._play()
        if play is None:
            return CommandOutcome(False, "no round is in play")
        step = play.dealer_turn()
        return _refused(step) if step.error else accepted(step.decisions)

    def _cmd_round_end(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        if problem := unknown_args(command, ("cutting_card_at",)):
            return CommandOutcome(False, problem)
        play = self._play()
        if play is None:
            return CommandOutcome(False, "no round is in play")
        next_cut = self._cutting_card_offer(command, play.r["boxes"])
        if isinstance(next_cut, str):
            return CommandOutcome(False, next_cut, self.rules.cite("offer"))
        if play.r["reload"]:
            return CommandOutcome(
                False,
                "the shoe ran out: the discards are shuffled and the round completed first",
                self.rules.cite("insufficient_cards"),
            )
        step = play.finish()
        if step.error:
            return _refused(step)
        rnd = self.rounds.finish()
        outcome = (
            "result"
            if any(d.type == EventType.BLACKJACK_RESULT for d in step.decisions)
            else "not_called"
        )
        ended = {"outcome": outcome, "boxes": rnd["boxes"]}
        if outcome == "not_called":
            ended["detail"] = "the shoe does not read cards: floord counted them only"
        if next_cut is not None:
            self.shoe.cuts.offer = next_cut
            ended |= {"cutting_card_at": command.args["cutting_card_at"], "next_cut": next_cut}
        events = [*step.decisions, Decision(EventType.ROUND_ENDED, ended, None, rnd["id"])]
        events += self.shoe.round_finished(rnd["id"])
        return accepted(events)

    # ----- floorperson ------------------------------------------------------------

    def _cmd_reshuffle(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        if problem := unknown_args(command, ("reason",)):
            return CommandOutcome(False, problem)
        if problem := needs_reason(command):
            return CommandOutcome(False, problem)
        if self.shoe.continuous:
            return CommandOutcome(
                False, "a continuous shuffler reshuffles by itself", self.rules.cite("continuous")
            )
        if self.rounds.current is not None:
            return CommandOutcome(
                False, "a reshuffle is ordered after a round of play", self.rules.cite("reshuffle")
            )
        self.shoe.reshuffle_ordered()
        return accepted([floor_reshuffle(self.rules, command)])

    def _cmd_change_decks(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        """New decks for the 24-hour change (§ 549.3(e), § 551.3(c)): a receipt like
        `decks_received`, as at Mississippi Stud and Baccarat, whose declaration may be
        left out (the decks are then inspected: the exemption of § 549.5(f), § 551.4(d)
        is never assumed)."""
        receipt = self._receive(command, now, declared=False)
        if isinstance(receipt, CommandOutcome):
            return receipt
        due = self.shoe.deck_due_at()
        assert due is not None
        event = ruled(
            self.rules,
            EventType.CARDS_DECKS_CHANGED,
            "deck_change",
            None,
            by=command.by,
            opened_at=format_ts(now),
            due_at=format_ts(due),
            inspection=received_data(receipt)["inspection"],
            preinspected_preshuffled=receipt["preinspected_preshuffled"],
        )
        return accepted([event])

    def _cmd_decks_received(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        """New decks at the table (§ 549.5(a)): the 24-hour clock starts (§ 549.3(e)) and
        they are used only once inspected and verified, or received preinspected and
        preshuffled (§ 549.5(f)), as the command must say."""
        receipt = self._receive(command, now, declared=True)
        if isinstance(receipt, CommandOutcome):
            return receipt
        due = self.shoe.deck_due_at()
        assert due is not None
        pre = receipt["preinspected_preshuffled"]
        event = ruled(
            self.rules,
            EventType.CARDS_DECKS_RECEIVED,
            "preinspected" if pre else "cards_inspected",
            None,
            **received_data(receipt),
            opened_at=format_ts(now),
            due_at=format_ts(due),
            deck_rule=self.rules.cite("deck_change"),
        )
        return accepted([event])

    def _receive(
        self, command: VerifiedCommand, now: datetime, *, declared: bool
    ) -> dict[str, Any] | CommandOutcome:
        """The receipt on the record (the decks opened now, the shoe to be loaded with
        them), or the refusal."""
        try:
            spread = self.shoe.spread_plan().record()
            receipt = new_receipt(command, now, declared=declared, spread=spread)
        except ReceiptRefused as exc:
            return CommandOutcome(False, str(exc), self.rules.cite("cards_inspected"))
        if self.rounds.current is not None:
            return CommandOutcome(False, "the decks are changed between rounds")
        self.shoe.decks_changed(now)
        self.shoe.receipt = receipt
        return receipt

    def _cmd_decks_inspected(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        """The dealer's inspection of the decks received, then a floorperson's check."""
        try:
            data = inspect_step(self.shoe.receipt, command, now)
        except ReceiptRefused as exc:
            return CommandOutcome(False, str(exc), self.rules.cite("cards_inspected"))
        if data["step"] == "verified" and not self.rules.spanish21:
            event = Decision(EventType.CARDS_DECKS_INSPECTED, {**data, "policy": VERIFY_POLICY})
        else:
            key = "cards_verified" if data["step"] == "verified" else "cards_inspected"
            event = ruled(self.rules, EventType.CARDS_DECKS_INSPECTED, key, None, **data)
        return accepted([event])

    def _cmd_decks_spread(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        """The dealer's spread of the decks received, face up for the first player, then
        turned face down, washed and stacked, one part at a time where the text spreads
        them apart (`ShoeBook.spread_plan`)."""
        key = self.shoe.spread_key
        try:
            data = spread_step(self.shoe.receipt, command, now)
        except WashRefused as exc:
            return CommandOutcome(False, str(exc), self.rules.cite("cards_washed"))
        except ReceiptRefused as exc:
            return CommandOutcome(False, str(exc), self.rules.cite(key))
        wash = self.rules.cite("cards_washed") if self.shoe.spread_plan().washed else None
        event = ruled(self.rules, EventType.CARDS_DECKS_SPREAD, key, None, **data, wash_rule=wash)
        return accepted([event])

    def _cmd_cover_shuffler(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        return cover_shuffler(command, self.shoe.shuffler, self.shoe.batch)
