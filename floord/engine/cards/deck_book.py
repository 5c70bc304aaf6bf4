"""The decks of a Mississippi Stud table: shuffled, dealt, removed, changed; the shuffler.

What this module keeps, and why:
- each deck's state ("unshuffled", "shuffling", "ready", "in_play", "jammed",
  "removed"): the cards are shuffled after every round (§ 571.5(a)); a counting shuffler
  reporting other than 52 cards removes the deck from the table (§ 571.5(b)); a jam or an
  unfinished shuffle cycle means the cards are reshuffled (§ 571.13(e));
- two decks, backs of different colours, alternated round by round (§ 571.3(b)); the
  shuffler's `batch` is the deck's back colour;
- whether the shuffled stack was placed in the shoe since the last round (§ 571.8(a),
  § 571.10(a)(1));
- a shuffler out of order, covered before cards are shuffled by hand (§ 571.13(g));
- rounds since the stub was last counted (§ 571.8(f), § 571.9(d), § 571.10(d));
- when the decks were opened: changed every 4 hours dealt by hand, 8 from a shoe
  (§ 571.3(c)), the clock running from the receipt on the record;
- the decks received at the table (`deck_receipt`): until inspected by the dealer and
  verified by the floorperson (§ 571.4(a), (b), (d)), or received preinspected and
  preshuffled (§ 571.4(e)), a shuffle or a shoe load of them is a violation and does not
  count, and no round starts;
- the last gaming activity, and a table idle past the Rules Submission's `idle_minutes`
  (§ 571.5(f), § 55x.5(f)): the cards named there are shuffled again before the next round.

The citations come from the rules object (`rules.deck_rule(key)`), so the carnival games
(chapters 555-565) keep their decks here too: a key the game's chapter has no rule for is
None, and what it would have caused is then floord's policy or is not checked.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from floord.contract import EventType, cite, format_ts, parse_ts
from floord.engine.cards.deal_refusals import deal_problems
from floord.engine.cards.deck_change import deck_change_due, deck_warning_at
from floord.engine.cards.deck_receipt import receipt_problem, spread_missing
from floord.engine.cards.deck_rules import DeckRules
from floord.engine.cards.shuffler_cover import door_reported, order_reported
from floord.engine.core.rulings import STRICT_POLICY, decision, policy_decision, strict
from floord.engine.core.snapshots import restore_fields, snapshot_fields
from floord.engine.core.types import Decision

DOOR_POLICY = "floord policy, not a regulation: an open shuffler door is reported"
# § 571.5(b), § 55x.5(b) rule on a counting shuffler that "reveals that an incorrect number
# of cards are present"; they say nothing of one that reports no count at all.
COUNT_MISSING_POLICY = (
    "floord policy, not a regulation: a shuffler configured as counting that completes a "
    "shuffle without its count has not shown whether every card is present; the shuffle "
    "does not count and the deck is shuffled again"
)


FIELDS = (
    "decks",
    "last_dealt",
    "in_play",
    "shoe_loaded",
    "out_of_order",
    "covered",
    "decks_opened_at",
    "deck_warned",
    "rounds_uncounted",
    "removed_rule",
    "receipt",
    "active_at",
    "idle_since",
)


class DeckBook:
    """The decks, the shoe's stack and the shuffler of one table; methods return decisions."""

    def __init__(self, rules: DeckRules) -> None:
        self.rules = rules
        self.decks: dict[str, str] = {b: "unshuffled" for b in rules.deck_names}
        self.last_dealt: str | None = None
        self.in_play: str | None = None
        self.shoe_loaded = False
        self.out_of_order = False
        self.covered = False
        self.decks_opened_at: str | None = None
        self.deck_warned = False
        self.rounds_uncounted = 0
        self.removed_rule: str | None = None
        # The decks received and their inspection; the last activity; an idle spell.
        self.receipt: dict[str, Any] | None = None
        self.active_at: str | None = None
        self.idle_since: str | None = None

    # ----- what the table uses ----------------------------------------------------

    @property
    def shuffler_in_use(self) -> bool:
        return self.rules.shuffler != "none" and not self.out_of_order

    @property
    def counting_in_use(self) -> bool:
        """§ 571.8(f): a shuffler that counts 52 cards after each shuffle is being used."""
        return self.rules.shuffler == "counting" and not self.out_of_order

    @property
    def has_shoe(self) -> bool:
        return self.rules.has_shoe

    @property
    def receipt_key(self) -> str:
        """The deck rule the decks received break while not cleared: the spread's when
        only the spread is owed (§ 571.4(b), (d)), else the inspection's."""
        return "spread" if spread_missing(self.receipt) else "inspected"

    def _ruled(self, key: str, type: EventType, round_id: str | None, **data: Any) -> Decision:
        """A decision under the rule `key`, or floord's strict policy when there is none."""
        rule = self.rules.deck_rule(key)
        if rule is None:
            return Decision(type, {**data, "policy": STRICT_POLICY}, None, round_id)
        return decision(type, rule, round_id, **data)

    def _deck_of(self, batch: Any) -> str | None:
        if self.rules.decks == 1:
            return "deck" if isinstance(batch, str) and batch else None
        return batch if batch in self.decks else None

    # ----- shuffler ---------------------------------------------------------------

    def shuffler_event(
        self, type: str, data: dict[str, Any], round_id: str | None
    ) -> list[Decision]:
        if type == EventType.SHUFFLER_OUT_OF_ORDER:
            return self._out_of_order(data, round_id)
        if type == EventType.SHUFFLER_DOOR:
            return door_reported(data, round_id, DOOR_POLICY)
        if type == EventType.SHUFFLER_MODE:
            if data.get("continuous") is True:
                return [
                    strict(
                        "continuous_shuffler",
                        round_id,
                        detail="the chapter has no continuous shuffling procedure: the deck "
                        f"is shuffled after each round ({self.rules.deck_rule('shuffle')})",
                    )
                ]
            return []
        if type == EventType.SHUFFLER_JAM:
            return self._jam(data, round_id)
        deck = self._deck_of(data.get("batch"))
        if deck is None:
            return [strict("unknown_deck", round_id, batch=data.get("batch"), event=str(type))]
        if type == EventType.SHUFFLER_SHUFFLE_STARTED:
            return self._started(deck, round_id)
        if type in (EventType.SHUFFLER_SHUFFLE_COMPLETED, EventType.SHUFFLER_BATCH_READY):
            return self._completed(deck, data.get("cards"), round_id)
        if type == EventType.SHUFFLER_BATCH_REMOVED:
            if self.decks[deck] == "shuffling":
                self.decks[deck] = "jammed"
                return [self._reshuffle_due([deck], "shuffle_unfinished", round_id)]
            return []
        return [strict("unknown_shuffler_event", round_id, event=str(type))]

    def _uninspected(self, what: str, round_id: str | None, **data: Any) -> Decision | None:
        """The violation of using decks not yet cleared (§ 571.4(a)), else None."""
        if (problem := receipt_problem(self.receipt)) is None:
            return None
        return self._ruled(
            self.receipt_key,
            EventType.PROCEDURE_VIOLATION,
            round_id,
            what="decks_not_inspected",
            step=what,
            detail=f"{problem}: the {what} does not count",
            **data,
        )

    def _started(self, deck: str, round_id: str | None) -> list[Decision]:
        if (uninspected := self._uninspected("shuffle", round_id, deck=deck)) is not None:
            return [uninspected]
        state = self.decks[deck]
        if state == "removed":
            return [
                decision(
                    EventType.PROCEDURE_VIOLATION,
                    self.removed_rule,
                    round_id,
                    what="removed_deck_shuffled",
                    deck=deck,
                    detail="the deck was removed from the table and may not be used",
                )
            ]
        if state == "in_play":
            return [
                self._ruled(
                    "in_play_shuffled",
                    EventType.PROCEDURE_VIOLATION,
                    round_id,
                    what="deck_in_play_shuffled",
                    deck=deck,
                    detail="the deck dealt in the round in play is not shuffled until it ends",
                )
            ]
        self.decks[deck] = "shuffling"
        return []

    def _completed(self, deck: str, cards: Any, round_id: str | None) -> list[Decision]:
        state = self.decks[deck]
        if state in ("removed", "in_play") or receipt_problem(self.receipt) is not None:
            return []  # already recorded when the shuffle started or the deck was removed
        if self.counting_in_use:
            if not isinstance(cards, int) or isinstance(cards, bool):
                self.decks[deck] = "unshuffled"
                missing = policy_decision(
                    EventType.PROCEDURE_VIOLATION,
                    COUNT_MISSING_POLICY,
                    round_id,
                    what="shuffle_count_missing",
                    deck=deck,
                    cards=cards,
                    basis=self.rules.deck_rule("count"),
                )
                return [missing]
            if cards != self.rules.deck_size:
                self.decks[deck] = "removed"
                self.removed_rule = self.rules.deck_rule("count")
                return [
                    self._ruled(
                        "count",
                        EventType.CARDS_DECK_REMOVED,
                        round_id,
                        deck=deck,
                        reason="shuffler_count",
                        cards=cards,
                        expected=self.rules.deck_size,
                        detail="the deck is removed from the table; a floorperson records "
                        "new decks with change_decks",
                    )
                ]
        self.decks[deck] = "ready"
        self.idle_since = None
        return []

    def _jam(self, data: dict[str, Any], round_id: str | None) -> list[Decision]:
        deck = self._deck_of(data.get("batch"))
        if deck is not None and self.decks[deck] not in ("removed", "in_play"):
            jammed = [deck]
        else:
            shuffling = [d for d, s in self.decks.items() if s == "shuffling"]
            jammed = shuffling or [
                d for d, s in self.decks.items() if s not in ("removed", "in_play")
            ]
        for d in jammed:
            self.decks[d] = "jammed"
        return [
            self._reshuffle_due(
                jammed, "shuffler_jam", round_id, code=data.get("code"), text=data.get("text")
            )
        ]

    def _reshuffle_due(
        self, decks: list[str], reason: str, round_id: str | None, **more: Any
    ) -> Decision:
        return self._ruled(
            "reshuffle",
            EventType.CARDS_SHUFFLE_REQUIRED,
            round_id,
            decks=decks,
            reason=reason,
            detail="the cards are reshuffled before they are dealt",
            **more,
        )

    def _out_of_order(self, data: dict[str, Any], round_id: str | None) -> list[Decision]:
        what = order_reported(self, data)
        return [
            self._ruled(
                "out_of_order",
                EventType.TABLE_WARNING,
                round_id,
                what=what,
                code=data.get("code"),
                text=data.get("text"),
                covered=self.covered,
            )
        ]

    # ----- shoe -------------------------------------------------------------------

    def loaded(self, round_id: str | None) -> list[Decision]:
        """The shuffled (and, by hand, cut) stack placed in the shoe (§ 571.8(a))."""
        out: list[Decision] = []
        if round_id is not None:
            out.append(strict("shoe_loaded_during_round", round_id))
        if (uninspected := self._uninspected("shoe load", round_id)) is not None:
            return [*out, uninspected]
        if self.out_of_order and not self.covered:
            out.append(
                decision(
                    EventType.PROCEDURE_VIOLATION,
                    cite("571.13(g)"),
                    round_id,
                    what="hand_shuffle_with_shuffler_uncovered",
                    detail="the out-of-order shuffler is covered before cards are shuffled "
                    "any other way",
                )
            )
        self.shoe_loaded = True
        self.idle_since = None
        return out

    # ----- rounds -----------------------------------------------------------------

    def take_for_round(self, deck: str | None = None) -> str:
        """The deck dealt in the round now starting (`deal_problems` said it may be);
        `deck` names it when the game knows which (one shuffled by hand)."""
        deck = deck or self.next_deck()
        assert deck is not None and self.decks.get(deck) != "removed"
        self.decks[deck] = "in_play"
        self.in_play = deck
        self.shoe_loaded = False
        return deck

    def next_deck(self) -> str | None:
        """The deck the next round would deal (shuffled, not last round's), or None."""
        usable = [d for d, s in self.decks.items() if s != "removed"]
        if self.shuffler_in_use:
            usable = [d for d in usable if self.decks[d] == "ready"]
        if self.rules.decks == 2 and self.rules.deck_rule("alternate") is not None:
            usable = [d for d in usable if d != self.last_dealt]
        return usable[0] if usable else None

    def round_done(self, counted: bool) -> None:
        """After a round ends or is void: the dealt deck is shuffled before its next use."""
        if self.in_play is not None:
            if self.decks.get(self.in_play) == "in_play":
                self.decks[self.in_play] = "unshuffled"
            self.last_dealt, self.in_play = self.in_play, None
        self.rounds_uncounted = 0 if counted else self.rounds_uncounted + 1

    def remove(self, decks: list[str], rule: str | None) -> None:
        for d in decks:
            self.decks[d] = "removed"
        self.removed_rule = rule

    def reshuffle_all(self) -> None:
        for d, s in self.decks.items():
            if s not in ("removed", "in_play"):
                self.decks[d] = "unshuffled"
        self.shoe_loaded = False

    # ----- decks ------------------------------------------------------------------

    def decks_changed(self, now: datetime) -> None:
        self.decks = {b: "unshuffled" for b in self.rules.deck_names}
        self.decks_opened_at = format_ts(now)
        self.deck_warned = False
        self.last_dealt = self.in_play = self.removed_rule = None
        self.shoe_loaded = False
        self.rounds_uncounted = 0
        self.idle_since = None

    def deck_due_at(self) -> datetime | None:
        if self.decks_opened_at is None or self.rules.deck_hours is None:
            return None
        return parse_ts(self.decks_opened_at) + timedelta(hours=self.rules.deck_hours)

    def warning_at(self) -> datetime | None:
        """When `tick` warns of the deck change (None: it will not)."""
        return deck_warning_at(self, timedelta(minutes=self.rules.deck_change_warn_minutes))

    def tick(self, now: datetime) -> list[Decision]:
        warn = timedelta(minutes=self.rules.deck_change_warn_minutes)
        if (warning := deck_change_due(self, now, warn)) is None:
            return []
        return [decision(EventType.TABLE_WARNING, self.rules.deck_change_rule, None, **warning)]

    def deal_problems(self, now: datetime) -> list[tuple[str | None, str]]:
        """Why no round may start now: (citation or None, sentence), strongest first
        (`floord.engine.cards.deal_refusals`)."""
        return deal_problems(self, now)

    @property
    def preshuffled_unused(self) -> bool:
        """The decks on the table were received preshuffled (§ 523.16(u), (v)) and none
        has been dealt since: the shuffle "immediately prior to the beginning of play" is
        not required of them (§ 571.5(a), § 55x.5(a))."""
        receipt = self.receipt or {}
        return receipt.get("preinspected_preshuffled") is True and self.last_dealt is None

    # ----- persistence ------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        return snapshot_fields(self, FIELDS)

    def restore(self, body: dict[str, Any]) -> None:
        if not isinstance(body, dict) or set(body.get("decks") or {}) != set(self.decks):
            raise ValueError("snapshot: the decks do not fit this table's rules")
        restore_fields(self, FIELDS, body)
