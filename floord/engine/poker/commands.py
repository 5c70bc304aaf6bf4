"""The Poker table's operator commands, checked against § 553.5 and § 553.6.

The dealer says what no device sees: a round (a hand) begun and ended (`round_start`,
`round_end`), a deck shuffled by hand (`shuffle`, § 553.6(a)) and the deck cut with the
cover card, at least 10 cards from the top (`cut`, § 553.6(b)): the deck to be dealt is
cut whether the dealer or the automated shuffler shuffled it (§ 553.5(d), (e)). A
floorperson or above requires a recut before any card is dealt (§ 553.6(c)) and removes
a deck. New decks are a receipt (`decks_received`, or `change_decks`): the dealer
inspects them (§ 553.5(a)) and a floorperson or higher verifies (b) before a shuffle of
them counts, unless they came preinspected and preshuffled (f). The table commands
(inspect, open, close, resume) are `TableState`'s.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from floord.contract import EventType, format_ts
from floord.engine.cards.deck_receipt import (
    ReceiptCommands,
    ReceiptRefused,
    inspect_step,
    new_receipt,
    receipt_event,
    receipt_problem,
)
from floord.engine.cards.deck_removal import remove_decks
from floord.engine.cards.recut import require_recut
from floord.engine.core.base import TableEngineBase
from floord.engine.core.command_checks import accepted, deal_refusal, needs_reason, unknown_args
from floord.engine.core.rulings import decision
from floord.engine.core.types import CommandOutcome, Decision, VerifiedCommand

if TYPE_CHECKING:
    from floord.engine.cards.deck_book import DeckBook
    from floord.engine.poker.rules import PokerRules

ABOVE_FLOOR = ("floorperson", "supervisor")
ACTIVITY = ("round_start", "round_end", "shuffle", "cut")  # the dealer at work
FLOOR_POLICY = "a floorperson's call (floord records it; chapter 553 names no cause)"
COMMANDS: tuple[str, ...] = ("round_start", "round_end", "shuffle", "cut", "recut")
COMMANDS += ("remove_deck", "change_decks", "decks_received", "decks_inspected")
ARGS = {
    "round_start": (),
    "round_end": (),
    "shuffle": ("deck",),
    "cut": ("cards", "deck", "by"),
    "recut": ("reason",),
    "remove_deck": ("reason", "deck"),
}


class PokerCommands(ReceiptCommands, TableEngineBase):
    """Command handling for `PokerEngine` (which supplies the attributes below)."""

    game: str
    rules: PokerRules
    decks: DeckBook
    how: dict[str, str]
    stack: dict[str, Any] | None
    _cite: Callable[[str], str]
    _void: Callable[..., list[Decision]]

    def on_command(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        now = self._touch(now)
        refused = self._card_table_command(
            command,
            now,
            COMMANDS,
            "the cards are verified by a floorperson or higher",
            self._cite("cards_verified"),
        )
        if refused is not None:
            return refused
        if command.name in ARGS and (problem := unknown_args(command, ARGS[command.name])):
            return CommandOutcome(False, problem)
        if command.name in ("recut", "remove_deck") and (problem := needs_reason(command)):
            return CommandOutcome(False, problem)
        in_play = self.current_round
        if command.name == "round_end" and in_play is None:
            return CommandOutcome(False, "no round is in play")
        if command.name not in ("round_end", "remove_deck") and in_play is not None:
            rule = self._cite("shuffle") if command.name == "shuffle" else None
            return CommandOutcome(False, f"round {in_play} is in play: wait for its end", rule)
        outcome = self._own_command(command, now)
        if outcome.ok and command.name in ACTIVITY:
            self.decks.active_at = format_ts(now)  # gaming activity (§ 553.6(d))
        return outcome

    # ----- dealer -----------------------------------------------------------------

    def _cmd_round_start(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        if (refused := self._start_refusal()) is not None:
            return refused
        problems = self.decks.deal_problems(now)
        stack = self.stack
        if stack is None:
            ready = [d for d, s in self.decks.decks.items() if s == "ready"]
            if ready:
                problems.append(
                    (self._cite("cut"), f"deck {ready[0]} is cut before it is dealt (cut)")
                )
            elif not self.decks.shuffler_in_use:
                problems.append(
                    (self._cite("shuffle"), "no deck has been shuffled since it was dealt")
                )
        elif stack["cut"] is None:
            problems.append(
                (self._cite("cut"), f"deck {stack['deck']} is cut again before it is dealt (cut)")
            )
        if problems:
            return deal_refusal(problems, "no dealing")
        assert self.gaming_day is not None and stack is not None
        deck = self.decks.take_for_round(stack["deck"])
        self.stack = None
        self.how.pop(deck, None)
        rnd = self.rounds.start(self.gaming_day, now, {"deck": deck})
        body = {"n": rnd["n"], "gaming_day": rnd["gaming_day"], "game": self.game, "deck": deck}
        body |= {"shuffled": stack["shuffled"], "cut": stack["cut"]}
        return accepted([Decision(EventType.ROUND_STARTED, body, self._cite("cut"), rnd["id"])])

    def _cmd_round_end(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        rnd = self.rounds.finish()
        self.decks.round_done(counted=True)
        body = {"outcome": "not_called", "deck": rnd["deck"], "next": "shuffle"}
        body["detail"] = "the entire deck is shuffled; floord neither reads nor pays hands"
        return accepted([Decision(EventType.ROUND_ENDED, body, self._cite("shuffle"), rnd["id"])])

    def _deck_arg(self, command: VerifiedCommand) -> str | CommandOutcome:
        deck = command.args.get("deck")
        if deck not in self.decks.decks:
            return CommandOutcome(
                False, f"deck must be one of {', '.join(self.decks.decks)}, found {deck!r}"
            )
        if self.decks.decks[deck] == "removed":
            return CommandOutcome(
                False, f"deck {deck} was removed from the table", self.decks.removed_rule
            )
        return str(deck)

    def _cmd_shuffle(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        if self.decks.shuffler_in_use:
            return CommandOutcome(
                False, "the table's automated shuffler shuffles the cards (rules.shuffler)"
            )
        deck = self._deck_arg(command)
        if isinstance(deck, CommandOutcome):
            return deck
        if (problem := receipt_problem(self.decks.receipt)) is not None:
            why = f"{problem}: the shuffle does not count"
            return CommandOutcome(False, why, self._cite("decks_received"))
        self.decks.decks[deck] = "ready"
        self.decks.idle_since = None
        self.how[deck] = "hand"
        if self.stack is not None and self.stack["deck"] == deck:
            self.stack = None
        return accepted([])

    def _cmd_cut(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        """§ 553.6(b): the dealer, using one hand, places the cover card in front of the
        deck, a stack of at least 10 cards from the top on it, the rest on top."""
        stack = self.stack
        if stack is not None and stack["cut"] is not None:
            return CommandOutcome(
                False,
                "the deck is already cut; a floorperson may require a recut",
                self._cite("recut"),
            )
        if command.args.get("by", "dealer") != "dealer":
            return CommandOutcome(
                False,
                f"the dealer cuts the deck, found by {command.args['by']!r}",
                self._cite("cut"),
            )
        if stack is None:
            deck: str | CommandOutcome
            if "deck" in command.args:
                deck = self._deck_arg(command)
            else:
                ready = [d for d, s in self.decks.decks.items() if s == "ready"]
                deck = ready[0] if ready else CommandOutcome(False, "no deck is shuffled")
            if isinstance(deck, CommandOutcome):
                return deck
            if self.decks.decks[deck] != "ready":
                return CommandOutcome(
                    False,
                    f"deck {deck} has not been shuffled since it was dealt",
                    self._cite("shuffle"),
                )
            stack = {"deck": deck, "shuffled": self.how.get(deck, "device"), "cut": None}
        elif command.args.get("deck", stack["deck"]) != stack["deck"]:
            return CommandOutcome(False, f"deck {stack['deck']} is the one to cut")
        cards, (low, high) = command.args.get("cards"), self.rules.cut_bounds()
        if not isinstance(cards, int) or isinstance(cards, bool) or not low <= cards <= high:
            return CommandOutcome(
                False,
                f"cards must be {low}..{high} (at least {low} from the top), found {cards!r}",
                self._cite("cut"),
            )
        stack["cut"] = {"cards": cards, "by": "dealer"}
        self.stack = stack
        return accepted([])

    # ----- floorperson ------------------------------------------------------------

    def _cmd_recut(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        """§ 553.6(c): after the cut and before any card is dealt, a floorperson or
        above may require the cards to be recut."""
        return require_recut(
            command.role, ABOVE_FLOOR, self.stack, self._cite("recut"), "the deck was shuffled"
        )

    def _cmd_remove_deck(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        removed = remove_decks(command, self.decks, self.rounds, self._void, FLOOR_POLICY)
        if isinstance(removed, CommandOutcome):
            return removed
        targets, out = removed
        for d in targets:
            self.how.pop(d, None)
        if self.stack is not None and self.stack["deck"] in targets:
            self.stack = None
        return accepted(out)

    # ----- decks received -----------------------------------------------------------

    def _receive(
        self, command: VerifiedCommand, now: datetime, *, declared: bool, type: EventType
    ) -> CommandOutcome:
        """The two decks received at the table (§ 553.5(a)), preinspected and preshuffled
        (§ 553.5(f)) or not; `ReceiptCommands`' `change_decks` and `decks_received`."""
        try:
            receipt = new_receipt(command, now, table_decks=(self.rules.decks,), declared=declared)
        except ReceiptRefused as exc:
            return CommandOutcome(False, str(exc), self._cite("decks_received"))
        self.decks.decks_changed(now)
        self.decks.receipt = receipt
        self.stack = None
        self.how = {}
        pre = bool(receipt["preinspected_preshuffled"])
        if pre:
            for d in self.decks.decks:
                self.decks.decks[d] = "ready"
                self.how[d] = "preshuffled"
        # The deck-change rules (§ 553.3) are not in our seeds: no clock, no due time.
        rule = self._cite("preinspected" if pre else "decks_received")
        inspect = "the dealer inspects both decks and a floorperson or higher verifies"
        return accepted([receipt_event(type, receipt, now, rule, inspect, list(self.decks.decks))])

    def _cmd_decks_inspected(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        """The dealer's inspection (§ 553.5(a)), then the verification by a floorperson or
        higher (§ 553.5(b))."""
        try:
            data = inspect_step(self.decks.receipt, command, now)
        except ReceiptRefused as exc:
            return CommandOutcome(False, str(exc), self._cite("cards_inspected"))
        key = "cards_verified" if data["step"] == "verified" else "cards_inspected"
        return accepted([decision(EventType.CARDS_DECKS_INSPECTED, self._cite(key), None, **data)])
