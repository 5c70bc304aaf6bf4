"""The carnival poker table's operator commands, checked against § 55x.4 and § 55x.5.

The dealer says what no device sees: a round opened with its `boxes` and closed
(`round_start`, `round_end`), the cards shuffled by hand (`shuffle`) and cut (`cut`:
not after an automated shuffle, § 55x.5(c)(1); at least 10 cards, § 55x.5(d), § 561.5(e)).
A floorperson or above orders a recut (§ 55x.5(e), § 561.5(f)) or a reshuffle and removes a
deck. New decks are a receipt (`decks_received`, or the floorperson's `change_decks`,
`deck_receipt` as at Mississippi Stud and Baccarat): the dealer inspects them (§ 55x.4(a);
two decks each on its own, (d)) and the floorperson verifies (b) before they are shuffled
(§ 55x.4(c)), unless received preinspected and preshuffled (e), which the receipt says;
such decks are not shuffled but cut (§ 55x.5(a), (c)(2)). No chapter in the seeds gives
these games a deck-change period (§ 55x.3 is referred to, not contained): no clock runs.
Table commands are `TableState`'s.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from floord.contract import EventType, format_ts
from floord.engine.cards.cut_offer import CUT_MIN, CutRefused, CutRules, offer, read_cut
from floord.engine.cards.deck_receipt import (
    ReceiptRefused,
    inspect_step,
    new_receipt,
    receipt_problem,
    received_data,
)
from floord.engine.cards.deck_removal import remove_decks
from floord.engine.cards.recut import require_recut
from floord.engine.core.base import TableEngineBase
from floord.engine.core.command_checks import accepted, deal_refusal, distinct_boxes, needs_reason
from floord.engine.core.rulings import decision
from floord.engine.core.types import CommandOutcome, Decision, VerifiedCommand

if TYPE_CHECKING:
    from floord.engine.cards.deck_book import DeckBook
    from floord.engine.carnival.rules import CarnivalRules

ABOVE_FLOOR = ("floorperson", "supervisor")
ACTIVITY = ("round_start", "round_end", "shuffle", "cut")  # the dealer at work
FLOOR_POLICY = "a floorperson's call (floord records it; the chapter names no cause)"
COMMANDS: tuple[str, ...] = ("round_start", "round_end", "shuffle", "cut", "recut", "reshuffle")
COMMANDS += ("remove_deck", "change_decks", "decks_received", "decks_inspected")
RECEIPT_ARGS = ("preinspected_preshuffled", "decks", "note")  # `deck_receipt` checks them
ARGS = {
    "round_start": ("boxes",),
    "cut": ("cards", "by", "box", "declined"),
    "shuffle": ("deck",),
    "recut": ("reason",),
    "reshuffle": ("reason",),
    "remove_deck": ("reason", "deck"),
    # `preshuffled`: change_decks' argument before the receipt, still taken (see there).
    "change_decks": ("preshuffled", *RECEIPT_ARGS),
    "decks_received": RECEIPT_ARGS,
    "decks_inspected": ("defects_found", "decks", "note"),
}


class CarnivalCommands(TableEngineBase):
    """Command handling for `CarnivalEngine` (which supplies the attributes below)."""

    game: str
    rules: CarnivalRules
    decks: DeckBook
    stack: dict[str, Any] | None
    _cite: Callable[[str], str]
    _void: Callable[..., list[Decision]]

    def on_command(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        now = self._touch(now)
        refused = self._card_table_command(
            command,
            now,
            COMMANDS,
            "the cards are verified by the floorperson assigned to the table",
            self._cite("cards_verified"),
        )
        if refused is not None:
            return refused
        unknown = sorted(set(map(str, command.args)) - set(ARGS.get(command.name, ())))
        if unknown:
            return CommandOutcome(
                False, f"unknown argument(s) {', '.join(unknown)} for {command.name}"
            )
        if command.name in ("recut", "reshuffle", "remove_deck") and (
            problem := needs_reason(command)
        ):
            return CommandOutcome(False, problem)
        in_play = self.current_round
        if command.name == "round_end" and in_play is None:
            return CommandOutcome(False, "no round is in play")
        if command.name not in ("round_end", "remove_deck") and in_play is not None:
            rule = self._cite("shuffle") if command.name in ("shuffle", "reshuffle") else None
            return CommandOutcome(False, f"round {in_play} is in play: wait for its end", rule)
        outcome = self._own_command(command, now)
        if outcome.ok and command.name in ACTIVITY:
            self.decks.active_at = format_ts(now)  # gaming activity (§ 55x.5(f))
        return outcome

    def _cmd_round_start(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        boxes, limit = command.args.get("boxes"), self.rules.boxes
        if not distinct_boxes(boxes, limit):
            return CommandOutcome(
                False, f"boxes must be a non-empty list of distinct box numbers 1..{limit}"
            )
        if (refused := self._start_refusal()) is not None:
            return refused
        problems = self.decks.deal_problems(now)
        stack = self.stack
        if stack is None and not self.decks.shuffler_in_use:
            problems.append(
                (
                    self._cite("shuffle"),
                    "the cards have not been shuffled since the last round (shuffle)",
                )
            )
        if stack is not None and stack["cut"] is None:
            problems.append(
                (
                    self._cite("cut_required"),
                    f"cards {stack['shuffled']} are cut before they are dealt (cut)",
                )
            )
        if problems:
            return deal_refusal(problems, "no dealing")
        assert self.gaming_day is not None
        deck = self.decks.take_for_round(stack["deck"] if stack else None)
        self.stack = None
        rnd = self.rounds.start(self.gaming_day, now, {"boxes": sorted(boxes), "deck": deck})
        body = {
            "n": rnd["n"],
            "gaming_day": rnd["gaming_day"],
            "game": self.game,
            "boxes": rnd["boxes"],
            "deck": deck,
        }
        body |= {
            "shuffled": stack["shuffled"] if stack else "device",
            "cut": stack["cut"] if stack else None,
        }
        rule = self._cite("cut_required" if stack else "no_cut_after_device")
        return accepted([Decision(EventType.ROUND_STARTED, body, rule, rnd["id"])])

    def _cmd_round_end(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        rnd = self.rounds.finish()
        self.decks.round_done(counted=True)
        body = {"outcome": "not_called", "boxes": rnd["boxes"], "next": "shuffle"}
        body["detail"] = "floord neither evaluates nor pays carnival poker hands"
        return accepted([Decision(EventType.ROUND_ENDED, body, self._cite("shuffle"), rnd["id"])])

    def _cmd_shuffle(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        if self.decks.shuffler_in_use:
            return CommandOutcome(
                False, "the table's automated shuffler shuffles the cards (rules.shuffler)"
            )
        deck = command.args.get("deck", "deck" if self.rules.decks == 1 else None)
        if deck not in self.decks.decks:
            return CommandOutcome(
                False, f"deck must be one of {', '.join(self.decks.decks)}, found {deck!r}"
            )
        if self.decks.decks[deck] == "removed":
            return CommandOutcome(
                False, f"deck {deck} was removed from the table", self.decks.removed_rule
            )
        if (problem := receipt_problem(self.decks.receipt)) is not None:
            # § 55x.4(c): the cards are shuffled once inspected, verified, spread, washed.
            return CommandOutcome(
                False, f"{problem}: they are shuffled after that", self._cite("cards_inspected")
            )
        self.decks.decks[deck] = "ready"
        self.decks.idle_since = None
        self.stack = {"shuffled": "hand", "deck": deck, "cut": None}
        return accepted([])

    def _cmd_cut(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        stack = self.stack
        if stack is None:
            why = "cards shuffled by the automated shuffler are dealt without a cut"
            return CommandOutcome(False, why, self._cite("no_cut_after_device"))
        if stack["cut"] is not None:
            return CommandOutcome(
                False,
                "the cards are already cut; a floorperson may order a recut",
                self._cite("recut"),
            )
        cards, (low, high) = command.args.get("cards"), self.rules.cut_bounds()
        if not isinstance(cards, int) or isinstance(cards, bool) or not low <= cards <= high:
            where = "from the top or the bottom" if self.game == "pai_gow_poker" else "from the top"
            return CommandOutcome(
                False,
                f"cards must be {low}..{high} (at least {low} {where}), found {cards!r}",
                self.rules.cut_rule,
            )
        by = command.args.get("by")
        if self.game == "pai_gow_poker":
            return self._offered_cut(command, stack)
        if by not in (None, "dealer") or "box" in command.args or "declined" in command.args:
            return CommandOutcome(
                False, f"the dealer cuts the deck, found by {by!r}", self.rules.cut_rule
            )
        stack["cut"] = {"cards": cards, "by": "dealer"}
        data = {"cards": cards, "by": "dealer", "box": None, "shuffled": stack["shuffled"]}
        data["detail"] = "with one hand: the cover card, at least 10 cards onto it, the rest on top"
        return accepted([decision(EventType.CARDS_CUT, self.rules.cut_rule, None, **data)])

    def _offered_cut(self, command: VerifiedCommand, stack: dict[str, Any]) -> CommandOutcome:
        """§ 561.5(c)-(e): offered to the first player arriving if the game is just
        beginning (d)(1), else from the farthest right player counterclockwise (d)(2); if
        no player accepts, the dealer cuts (c); at least 10 from the top or the bottom (e)."""
        beginning = self.decks.last_dealt is None and self.decks.in_play is None
        key = "offer_first_player" if beginning else "offer_farthest_right"
        to = (
            "the first player arriving at the table"
            if beginning
            else ("the player at the farthest position to the right of the dealer")
        )
        first: dict[str, Any] | None = offer(key, to, self._cite(key))
        rules = CutRules(
            positions=self.rules.boxes,
            order="any" if beginning else "down",
            card="second cover card",
            offer_key="cut_offer",
            declined_key="cut_offer",
            cards_key="cut",
            recut_key="recut",
        )
        args = dict(command.args)
        if args.get("by") == "player" and "box" not in args and "declined" not in args:
            # A player's cut that names no box (this command's form before it named one):
            # recorded, the order of the offer unchecked.
            args["box"], first = 1, None
        try:
            cut = read_cut(args, self.rules.cut_bounds()[1] + CUT_MIN, first, rules)
        except CutRefused as exc:
            return CommandOutcome(False, str(exc), self._cite(exc.key))
        if first is None:
            cut["box"] = None
        stack["cut"] = {"cards": cut["cards"], "by": cut["by"]}
        data = {**cut, "shuffled": stack["shuffled"]}
        if cut["by"] == "dealer":
            data["also"] = self._cite("cut_offer")
        return accepted([decision(EventType.CARDS_CUT, self.rules.cut_rule, None, **data)])

    def _cmd_recut(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        return require_recut(
            command.role, ABOVE_FLOOR, self.stack, self._cite("recut"), "the cards were shuffled"
        )

    def _cmd_reshuffle(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        self.decks.reshuffle_all()
        self.stack = None
        data = {"reason": "floorperson", "by": command.by, "note": command.args["reason"]}
        return accepted(
            [decision(EventType.CARDS_SHUFFLE_REQUIRED, self._cite("shuffle"), None, **data)]
        )

    def _cmd_remove_deck(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        removed = remove_decks(command, self.decks, self.rounds, self._void, FLOOR_POLICY)
        if isinstance(removed, CommandOutcome):
            return removed
        targets, out = removed
        if self.stack is not None and self.stack["deck"] in (None, *targets):
            self.stack = None
        return accepted(out)

    def _cmd_change_decks(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        """New decks recorded by a floorperson (after a removal, say): a receipt like
        `decks_received`, whose declaration may be left out (the decks are then inspected:
        the exemption of § 55x.4(e) is never assumed). `preshuffled`, this command's
        argument before it was a receipt, is that declaration: § 55x.4(e) and § 55x.5(a)
        both name decks preshuffled "in accordance with § 523.16(u) or (v)", which the
        seeds do not contain; given with `preinspected_preshuffled`, the two must agree."""
        args = dict(command.args)
        old = args.pop("preshuffled", None)
        if old is not None and not isinstance(old, bool):
            return CommandOutcome(False, "preshuffled must be true or false")
        if old is not None and args.setdefault("preinspected_preshuffled", old) != old:
            return CommandOutcome(
                False, "preshuffled and preinspected_preshuffled say different things"
            )
        receipt = self._receive(replace(command, args=args), now, declared=False)
        if isinstance(receipt, CommandOutcome):
            return receipt
        pre = receipt["preinspected_preshuffled"]
        data = {
            "by": command.by,
            "decks": list(self.decks.decks),
            "preshuffled": bool(pre),
            "opened_at": format_ts(now),
            "due_at": None,
            "inspection": received_data(receipt)["inspection"],
            "preinspected_preshuffled": pre,
            "detail": "preshuffled decks are not shuffled before play, but cut"
            if pre
            else "the dealer inspects the decks and the floorperson verifies them before "
            "they are shuffled",
        }
        key = "preinspected" if pre else "cards_inspected"
        return accepted([decision(EventType.CARDS_DECKS_CHANGED, self._cite(key), None, **data)])

    def _cmd_decks_received(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        """Decks received at the table (§ 55x.4(a)); whether preinspected and preshuffled
        (§ 55x.4(e)) the command must say."""
        receipt = self._receive(command, now, declared=True)
        if isinstance(receipt, CommandOutcome):
            return receipt
        key = "preinspected" if receipt["preinspected_preshuffled"] else "cards_inspected"
        event = decision(
            EventType.CARDS_DECKS_RECEIVED,
            self._cite(key),
            None,
            **received_data(receipt),
            opened_at=format_ts(now),
            # No deck-change period for these games is in the seeds: no clock runs.
            due_at=None,
            deck_rule=None,
        )
        return accepted([event])

    def _receive(
        self, command: VerifiedCommand, now: datetime, *, declared: bool
    ) -> dict[str, Any] | CommandOutcome:
        """The receipt on the record (the decks replace the table's), or the refusal.
        Preinspected and preshuffled decks are ready to be cut (§ 55x.5(a), (c)(2))."""
        try:
            receipt = new_receipt(command, now, table_decks=(self.rules.decks,), declared=declared)
        except ReceiptRefused as exc:
            return CommandOutcome(False, str(exc), self._cite("cards_inspected"))
        self.decks.decks_changed(now)
        self.decks.receipt = receipt
        self.stack = None
        if receipt["preinspected_preshuffled"]:
            for d in self.decks.decks:
                self.decks.decks[d] = "ready"
            self.stack = {"shuffled": "preshuffled", "deck": None, "cut": None}
        return receipt

    def _cmd_decks_inspected(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        """The dealer's inspection (§ 55x.4(a); two decks each on its own, (d)), then the
        verification by the floorperson assigned to the table (b)."""
        separately = self.rules.decks == 2
        try:
            data = inspect_step(self.decks.receipt, command, now, separately=separately)
        except ReceiptRefused as exc:
            return CommandOutcome(False, str(exc), self._cite("cards_inspected"))
        key = "cards_verified" if data["step"] == "verified" else "cards_inspected"
        if separately and data["step"] == "inspected":
            key = "decks_inspected_separately"
        return accepted([decision(EventType.CARDS_DECKS_INSPECTED, self._cite(key), None, **data)])
