"""The operator commands of a Mississippi Stud table, checked against chapter 571.

The dealer tells floord what no device sees: the boxes with an Ante Wager
(`round_start`), "no more bets" (§ 571.8(b)), each player's 3rd, 4th and 5th Street
decision (`decision`, § 571.11), each community card turned (`reveal`), the stub's count
(`stub_count`, § 571.8(f)-(h)) and the end of the round. A floorperson orders a reshuffle,
removes a deck, records new decks (§ 571.3(c)) and covers a broken shuffler or automated
shoe (§ 571.13(g); the shoe's commands are `StudShoeCommands`').
New decks are a receipt (`decks_received`, or `change_decks`): the dealer inspects them
(§ 571.4(a); two decks each on its own, (d)) and the floorperson verifies (b) before a
shuffle or a shoe load of them counts, unless they came preinspected and preshuffled (e);
the 4 or 8 hours of § 571.3(c) run from the receipt.
The table commands (inspect, open, close, resume) are `TableState`'s; the cards are
verified by the floorperson assigned to the table (§ 571.4(b)).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from floord.contract import EventType, cite, format_ts
from floord.engine.cards.card import CardError, parse_card
from floord.engine.cards.deck_receipt import (
    ReceiptRefused,
    inspect_step,
    new_receipt,
    received_data,
)
from floord.engine.cards.deck_spread import SpreadPlan, WashRefused, spread_step
from floord.engine.cards.shuffler_cover import cover_shuffler
from floord.engine.core.base import TableEngineBase
from floord.engine.core.command_checks import (
    accepted,
    deal_refusal,
    distinct_boxes,
    needs_reason,
    players_problem,
    unknown_args,
    whole,
)
from floord.engine.core.rulings import decision
from floord.engine.core.types import CommandOutcome, Decision, VerifiedCommand
from floord.engine.stud.cuts import StudCutCommands
from floord.engine.stud.play import Step, StudPlay, new_round
from floord.engine.stud.rules import ACTIONS, DECK_SIZE, StudRules
from floord.engine.stud.settle import settle
from floord.engine.stud.shoe_cover import StudShoeCommands

if TYPE_CHECKING:
    from floord.engine.cards.deck_book import DeckBook

CARD_COMMANDS = (
    "round_start",
    "no_more_bets",
    "decision",
    "reveal",
    "stub_count",
    "round_end",
    "reshuffle",
    "remove_deck",
    "change_decks",
    "cover_shuffler",
    "cover_shoe",
    "uncover_shoe",
    "decks_received",
    "decks_inspected",
    "decks_spread",
    "cut",
    "recut",
)
FLOOR_POLICY = "a floorperson's call (floord records it; chapter 571 names no cause)"
STUB_COUNT_ROUNDS = 5  # § 571.8(f), § 571.9(d), § 571.10(d)


class StudCommands(StudCutCommands, StudShoeCommands, TableEngineBase):
    """Command handling for `StudEngine` (which supplies the attributes below)."""

    rules: StudRules
    decks: DeckBook
    _play: Callable[[], StudPlay | None]
    _void: Callable[..., list[Decision]]

    def on_command(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        now = self._touch(now)
        refused = self._card_table_command(
            command,
            now,
            CARD_COMMANDS,
            "the cards are verified by the floorperson assigned to the table",
            cite("571.4(b)"),
        )
        if refused is not None:
            return refused
        outcome = self._own_command(command, now)
        if outcome.ok and command.name in ("round_start", "round_end"):
            self.decks.active_at = format_ts(now)  # gaming activity (§ 571.5(f))
        return outcome

    def _step(self, play: StudPlay, step: Step) -> CommandOutcome:
        if step.error:
            return CommandOutcome(False, step.error, step.rule)
        out = list(step.decisions)
        if step.void is not None:
            reason, rule, detail = step.void
            out += self._void(reason, rule, detail)
        return accepted(out)

    # ----- dealer -----------------------------------------------------------------

    def _cmd_round_start(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        if problem := unknown_args(command, ("boxes", "antes", "players")):
            return CommandOutcome(False, problem)
        boxes = command.args.get("boxes")
        limit = self.rules.boxes
        if not distinct_boxes(boxes, limit):
            return CommandOutcome(
                False,
                f"boxes must be a non-empty list of distinct box numbers 1..{limit}, "
                "those with an Ante Wager",
                cite("571.7(c)"),
            )
        antes = command.args.get("antes")
        if antes is not None and (
            not isinstance(antes, dict)
            or sorted(map(str, antes)) != sorted(str(b) for b in boxes)
            or not all(whole(v) and v > 0 for v in antes.values())
        ):
            return CommandOutcome(
                False, "antes must give each box in play its Ante Wager in whole dollars"
            )
        players = command.args.get("players")
        if players is not None and (problem := one_position_each(boxes, players)):
            return CommandOutcome(False, problem, cite("571.7(e)"))
        if (refused := self._start_refusal()) is not None:
            return refused
        problems = self.decks.deal_problems(now)
        if (uncovered := self.shoe_cover_problem()) is not None:
            problems.insert(0, uncovered)
        if (uncut := self.cut_problem()) is not None:
            problems.append(uncut)
        if problems:
            return deal_refusal(problems, "no dealing")
        assert self.gaming_day is not None
        deck = self.decks.take_for_round()
        cut = self.take_cut()
        antes_by_box = {str(k): v for k, v in antes.items()} if antes else None
        rnd = self.rounds.start(self.gaming_day, now, new_round(boxes, antes_by_box, deck))
        body = {
            "n": rnd["n"],
            "gaming_day": rnd["gaming_day"],
            "game": "mississippi_stud",
            "boxes": rnd["boxes"],
            "dealing": self.rules.dealing,
            "deck": deck,
            "cut": cut,
        }
        if players is not None:
            body["players"] = {str(p): b for p, b in players.items()}
        return accepted([Decision(EventType.ROUND_STARTED, body, cite("571.7(c)"), rnd["id"])])

    def _in_play(self, command: VerifiedCommand, allowed: tuple[str, ...]) -> StudPlay | str:
        if problem := unknown_args(command, allowed):
            return problem
        play = self._play()
        return play if play is not None else "no round is in play"

    def _cmd_no_more_bets(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        play = self._in_play(command, ())
        if isinstance(play, str):
            return CommandOutcome(False, play)
        return self._step(play, play.no_more_bets())

    def _cmd_decision(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        play = self._in_play(command, ("box", "action"))
        if isinstance(play, str):
            return CommandOutcome(False, play)
        box, action = command.args.get("box"), command.args.get("action")
        if not whole(box) or action not in ACTIONS:
            return CommandOutcome(
                False, f"decision needs a box number and an action ({', '.join(ACTIONS)})"
            )
        outcome = self._step(play, play.decide(box, action))
        if outcome.ok and self.rounds.current is not None:
            outcome.output.events[:0] = self._discard_rack(play)
        return outcome

    def _discard_rack(self, play: StudPlay) -> list[Decision]:
        """§ 571.3(b)(5): "The cards from only one deck shall be placed in the discard rack
        at any given time." The dealing procedures end with the stub in the discard rack
        (§ 571.8(e), § 571.9(c), § 571.10(e)) before any player decides (§ 571.11(a)); a
        deck dealt last round that has not gone into the shuffler since is still in the
        rack then. Checked once a round, at its first decision or its end."""
        r = play.r
        other = self.decks.last_dealt
        if self.rules.decks != 2 or r.get("rack_checked") or other in (None, r["deck"]):
            return []
        r["rack_checked"] = True
        if self.decks.decks.get(other or "") != "unshuffled":
            return []
        return [
            decision(
                EventType.PROCEDURE_VIOLATION,
                cite("571.3(b)(5)"),
                play.id,
                what="two_decks_in_discard_rack",
                deck=r["deck"],
                other_deck=other,
                detail=f"deck {other}, dealt last round, has not gone into the shuffler: its "
                f"cards are in the discard rack with deck {r['deck']}'s stub",
            )
        ]

    def _cmd_reveal(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        play = self._in_play(command, ("card", "face"))
        if isinstance(play, str):
            return CommandOutcome(False, play)
        card, face = command.args.get("card"), command.args.get("face")
        if card not in (1, 2, 3) or isinstance(card, bool):
            return CommandOutcome(
                False, f"card must be the community card 1, 2 or 3, found {card!r}"
            )
        if face is not None:
            try:
                face = parse_card(face)
            except CardError as exc:
                return CommandOutcome(False, f"face: {exc}")
        return self._step(play, play.reveal(card, face))

    def _cmd_stub_count(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        play = self._in_play(command, ("cards", "misdealt"))
        if isinstance(play, str):
            return CommandOutcome(False, play)
        cards, misdealt = command.args.get("cards"), command.args.get("misdealt")
        if not whole(cards) or cards < 0:
            return CommandOutcome(False, f"cards must be the stub's card count, found {cards!r}")
        if misdealt is not None and not isinstance(misdealt, bool):
            return CommandOutcome(False, "misdealt must be true or false")
        r = play.r
        if r["phase"] == "betting" or (r["phase"] == "dealing" and not play.dealt):
            return CommandOutcome(
                False,
                "the stub is counted after the cards are dealt",
                self.rules.cite("stub_count"),
            )
        expected = DECK_SIZE - 2 * len(r["boxes"]) - 3
        if cards == expected:
            r["stub_counted"] = True
            return accepted([])
        rule = self.rules.cite("stub_wrong")
        if misdealt is None:
            return CommandOutcome(
                False,
                f"the stub holds {cards} cards, {expected} expected: the dealer determines "
                "whether the cards were misdealt and says so (misdealt: true or false)",
                rule,
            )
        detail = f"stub of {cards} cards, {expected} expected"
        if misdealt:
            return accepted(
                self._void("stub_count_misdeal", rule, detail + ": misdealt, 52 remain")
            )
        return accepted(
            self._void("stub_count_wrong", rule, detail + ": not misdealt", remove=True)
        )

    def _cmd_round_end(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        play = self._in_play(command, ())
        if isinstance(play, str):
            return CommandOutcome(False, play)
        if (why := play.may_end()) is not None:
            return CommandOutcome(False, why)
        r = play.r
        if (
            not self.decks.counting_in_use
            and not r["stub_counted"]
            and self.decks.rounds_uncounted + 1 >= STUB_COUNT_ROUNDS
        ):
            return CommandOutcome(
                False,
                f"the stub was not counted in {self.decks.rounds_uncounted} rounds: it is "
                f"counted at least once every {STUB_COUNT_ROUNDS} rounds (stub_count)",
                self.rules.cite("stub_count"),
            )
        rack = self._discard_rack(play)
        decisions, called = settle(self.rules, r)
        decisions[:0] = rack
        rnd = self.rounds.finish()
        self.decks.round_done(counted=rnd["stub_counted"])
        ended = {"outcome": "result" if called else "not_called", "boxes": rnd["boxes"]}
        if not called:
            ended["detail"] = "not every hand's cards are known: floord did not call them all"
        return accepted([*decisions, Decision(EventType.ROUND_ENDED, ended, None, rnd["id"])])

    # ----- floorperson ------------------------------------------------------------

    def _reason(self, command: VerifiedCommand, allowed: tuple[str, ...]) -> str | None:
        return unknown_args(command, allowed) or needs_reason(command)

    def _cmd_reshuffle(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        if problem := self._reason(command, ("reason",)):
            return CommandOutcome(False, problem)
        if self.rounds.current is not None:
            return CommandOutcome(False, "a reshuffle is ordered between rounds", cite("571.5(a)"))
        self.decks.reshuffle_all()
        return accepted(
            [
                decision(
                    EventType.CARDS_SHUFFLE_REQUIRED,
                    cite("571.5(a)"),
                    None,
                    reason="floorperson",
                    by=command.by,
                    note=command.args["reason"],
                )
            ]
        )

    def _cmd_remove_deck(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        if problem := self._reason(command, ("reason", "deck")):
            return CommandOutcome(False, problem)
        deck = command.args.get("deck")
        if deck is not None and deck not in self.decks.decks:
            known = ", ".join(self.decks.decks)
            return CommandOutcome(False, f"deck must be one of {known}, found {deck!r}")
        out: list[Decision] = []
        targets = [deck] if deck is not None else list(self.decks.decks)
        play = self._play()
        if play is not None and play.r["deck"] in targets:
            out += self._void("deck_removed", None, f"deck removed by {command.by}")
        self.decks.remove(targets, None)
        out.append(
            decision(
                EventType.CARDS_DECK_REMOVED,
                None,
                None,
                decks=targets,
                reason="floorperson",
                by=command.by,
                note=command.args["reason"],
                policy=FLOOR_POLICY,
            )
        )
        return accepted(out)

    def _cmd_change_decks(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        """New decks for the 4 or 8 hour change (§ 571.3(c)): a receipt like
        `decks_received`, whose declaration may be left out (the decks are then inspected:
        the exemption of § 571.4(e) is never assumed)."""
        receipt = self._receive(command, now, declared=False)
        if isinstance(receipt, CommandOutcome):
            return receipt
        due = self.decks.deck_due_at()
        assert due is not None
        event = decision(
            EventType.CARDS_DECKS_CHANGED,
            self.rules.deck_change_rule,
            None,
            by=command.by,
            decks=list(self.decks.decks),
            opened_at=format_ts(now),
            due_at=format_ts(due),
            inspection=received_data(receipt)["inspection"],
            preinspected_preshuffled=receipt["preinspected_preshuffled"],
        )
        return accepted([event])

    def _cmd_decks_received(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        """Decks received at the table (§ 571.4(a)); whether preinspected and preshuffled
        (§ 571.4(e)) the command must say. The deck-change clock starts (§ 571.3(c))."""
        receipt = self._receive(command, now, declared=True)
        if isinstance(receipt, CommandOutcome):
            return receipt
        due = self.decks.deck_due_at()
        assert due is not None
        pre = receipt["preinspected_preshuffled"]
        event = decision(
            EventType.CARDS_DECKS_RECEIVED,
            cite("571.4(e)" if pre else "571.4(a)"),
            None,
            **received_data(receipt),
            opened_at=format_ts(now),
            due_at=format_ts(due),
            deck_rule=self.rules.deck_change_rule,
        )
        return accepted([event])

    def _receive(
        self, command: VerifiedCommand, now: datetime, *, declared: bool
    ) -> dict[str, Any] | CommandOutcome:
        """The receipt on the record (the decks opened now), or the refusal. The spread
        follows the verification (§ 571.4(b)); two decks are each spread apart (d)."""
        parts = (("deck", self.rules.deck_names),) if self.rules.decks == 2 else ()
        spread = SpreadPlan(parts).record()
        if self.rounds.current is not None:
            return CommandOutcome(False, "the decks are changed between rounds")
        try:
            receipt = new_receipt(
                command, now, table_decks=(self.rules.decks,), declared=declared, spread=spread
            )
        except ReceiptRefused as exc:
            return CommandOutcome(False, str(exc), cite("571.4(a)"))
        self.decks.decks_changed(now)
        self.decks.receipt = receipt
        return receipt

    def _cmd_decks_inspected(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        """The dealer's inspection (§ 571.4(a); two decks each separately, (d)), then the
        verification by the floorperson assigned to the table (b)."""
        separately = self.rules.decks == 2
        try:
            data = inspect_step(self.decks.receipt, command, now, separately=separately)
        except ReceiptRefused as exc:
            return CommandOutcome(False, str(exc), cite("571.4(a)"))
        para = (
            "571.4(b)" if data["step"] == "verified" else "571.4(d)" if separately else "571.4(a)"
        )
        return accepted([decision(EventType.CARDS_DECKS_INSPECTED, cite(para), None, **data)])

    def _cmd_decks_spread(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        """After the verification, the dealer's spread for the first player, then the
        cards turned face down, washed and stacked (§ 571.4(b), (c)); each of two decks
        apart (d). The shuffle follows "Once the cards have been stacked" (c)."""
        rule = self.rules.deck_rule("spread")
        try:
            data = spread_step(self.decks.receipt, command, now)
        except WashRefused as exc:
            return CommandOutcome(False, str(exc), cite("571.4(c)"))
        except ReceiptRefused as exc:
            return CommandOutcome(False, str(exc), rule)
        data["wash_rule"] = cite("571.4(c)")
        return accepted([decision(EventType.CARDS_DECKS_SPREAD, rule, None, **data)])

    def _cmd_cover_shuffler(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        return cover_shuffler(command, self.rules.shuffler, self.decks)


def one_position_each(boxes: list[int], players: Any) -> str | None:
    """§ 571.7(e): "A player may not simultaneously play and wager on more than one player
    position at a Mississippi Stud table." Checked where the dealer names the players."""
    if problem := players_problem(boxes, players):
        return problem
    for player, played in players.items():
        if len(played) > 1:
            return (
                f"player {player} plays boxes {sorted(played)}; a player plays one position "
                "at Mississippi Stud"
            )
    return None
