"""The dealing shoe of a Baccarat-family table: load, burn, cover card, reshuffle, new decks.

- After each stack is loaded, the first card out is burned with as many more as its
  face value, tens and faces ten, ace one (§ 541.5(g), § 543.5(g), § 545.5(f)): floord
  checks the burn card by card and refuses a coup until it is complete. A shoe that
  does not read cards cannot tell the first card's value: floord then takes the cards
  drawn before the first coup as the burn, at least two and at most eleven.
- The cover card (§ 54x.10(e)), whether it comes out during a coup or as the first card
  of one: that hand is completed, "last hand" is announced at its end, one more hand is
  dealt, and then the cards are reshuffled (Minibaccarat, § 541.10(e)) or replaced with
  new decks (Midibaccarat and Baccarat, § 543.10(e), § 545.10(e)). A second cover card
  (the one at the bottom of the stack, § 541.5(e)) changes nothing. The first cover card
  out of a stack is the one inserted at least 14 cards above the bottom (§ 541.5(e),
  § 543.5(e), § 545.5(d)): its count against the stack (the shoe's, else the decks) shows it.
- The decks received at the table (`deck_receipt`): until the dealer has sorted and
  inspected each deck and the floorperson verified it (§ 541.4(a), § 543.4(a),
  § 545.4(a)), or they came preinspected and preshuffled (§ 541.4(e), § 543.4(d),
  § 545.4(d)), a stack loaded with them is a violation and does not count.
- No gaming activity at a Minibaccarat table (§ 541.5(h)): the cards come out of the
  shoe, are spread and inspected, and are shuffled and cut again before the next coup.
"""

from __future__ import annotations

from typing import Any

from floord.contract import EventType
from floord.engine.baccarat.rules import BaccaratRules
from floord.engine.cards.card import burn_value
from floord.engine.cards.deck_receipt import receipt_problem, spread_missing
from floord.engine.cards.stack_count import STACK_COUNT_POLICY, stack_count_problem
from floord.engine.core.rulings import (
    STRICT_POLICY,
    decision,
    policy_decision,
    ruled,
    violation,
)
from floord.engine.core.snapshots import restore_fields, snapshot_fields
from floord.engine.core.types import Decision

MAX_BURN = 11  # a ten-value first card and ten more
COVER_ABOVE_BOTTOM = 14  # § 541.5(e), § 543.5(e), § 545.5(d)
EMPTY_POLICY = (
    "floord policy, not a regulation: a shoe that runs out is reshuffled and loaded again "
    "before the next coup"
)


class BaccaratShoe:
    """The shoe's book; every method returns the decisions it caused."""

    FIELDS = (
        "loaded",
        "burn",
        "cover",
        "cover_cards",
        "shuffle_required",
        "new_decks_required",
        "stack",
        "receipt",
    )

    def __init__(self, rules: BaccaratRules) -> None:
        self.rules = rules
        self.loaded = False
        # {"first": card|None, "needed": int|None, "drawn": int, "done": bool} after a load.
        self.burn: dict[str, Any] | None = None
        # None, "pending" (before its coup), "in_round", "last_hand", "last_round".
        self.cover: str | None = None
        self.cover_cards = 0
        self.shuffle_required: str | None = None
        self.new_decks_required = False
        # The cards loaded: the shoe's count, else the table's decks.
        self.stack: int | None = None
        # The decks received at the table and their inspection (`deck_receipt`).
        self.receipt: dict[str, Any] | None = None

    @property
    def receipt_key(self) -> str:
        """The rule the decks received break while not cleared: the spread's (§ 54x.4(b))
        when only the spread is owed, else the inspection's (§ 54x.4(a))."""
        return "spread" if spread_missing(self.receipt) else "inspection"

    # ----- device events ----------------------------------------------------------

    def uninspected_load(self, round_id: str | None) -> Decision | None:
        """A stack loaded with decks not yet cleared (§ 54x.4(a)): the violation (the load
        does not count), else None."""
        if (problem := receipt_problem(self.receipt)) is None:
            return None
        return violation(
            self.rules,
            self.receipt_key,
            "decks_not_inspected",
            round_id,
            detail=f"{problem}: the shoe is loaded again once they are",
        )

    def stack_loaded(self, cards: object = None) -> list[Decision]:
        out: list[Decision] = []
        counted = isinstance(cards, int) and not isinstance(cards, bool)
        self.stack = cards if isinstance(cards, int) and counted else self.rules.decks * 52
        # No paragraph of chapters 541-545 in the seeds counts the stack: floord's policy.
        if (problem := stack_count_problem(cards, self.rules.decks * 52, None)) is not None:
            out.append(
                policy_decision(EventType.PROCEDURE_VIOLATION, STACK_COUNT_POLICY, None, **problem)
            )
        if self.new_decks_required:
            out.append(
                violation(
                    self.rules,
                    "cover_card",
                    "decks_not_replaced",
                    None,
                    detail="after the cover card's last hand the cards are replaced with "
                    "new decks: a floorperson records them with change_decks before loading",
                )
            )
        self.loaded = True
        self.burn = {"first": None, "needed": None, "drawn": 0, "done": False}
        self.cover = None
        self.cover_cards = 0
        self.shuffle_required = None
        return out

    @property
    def burning(self) -> bool:
        return self.burn is not None and not self.burn["done"]

    def burn_card(self, card: str | None) -> list[Decision]:
        """A card drawn while the burn is not complete."""
        burn = self.burn
        assert burn is not None
        burn["drawn"] += 1
        if burn["drawn"] == 1 and card is not None:
            burn["first"] = card
            burn["needed"] = 1 + burn_value(card)
        complete = burn["needed"] is not None and burn["drawn"] >= burn["needed"]
        burn["done"] = complete
        body = {
            "card": card,
            "position": burn["drawn"],
            "burn_count": burn["needed"],
            "first_card": burn["first"],
            "first_value": burn_value(burn["first"]) if burn["first"] else None,
            "complete": complete,
        }
        out = [ruled(self.rules, EventType.CARDS_BURN, "burn", None, **body)]
        if burn["needed"] is None and burn["drawn"] > MAX_BURN:
            out.append(
                violation(
                    self.rules,
                    "burn",
                    "too_many_burn_cards",
                    None,
                    burned=burn["drawn"],
                    detail=f"no first card allows more than {MAX_BURN} burn cards",
                )
            )
        return out

    def cutting_card(self, rnd: dict[str, Any] | None, count: object = None) -> list[Decision]:
        if not self.loaded:
            return [
                policy_decision(
                    EventType.PROCEDURE_VIOLATION,
                    STRICT_POLICY,
                    rnd["id"] if rnd else None,
                    what="cover_card_without_shoe",
                )
            ]
        self.cover_cards += 1
        out = self._cover_position(rnd, count) if self.cover_cards == 1 else []
        if self.cover is not None:
            return out
        if rnd is not None and not rnd["last_hand"]:
            rnd["cover_card"] = True
            self.cover = "in_round"
        elif rnd is not None:
            self.cover = "last_round"  # already the last hand: it ends the shoe as planned
        else:
            self.cover = "pending"
        return out

    def _cover_position(self, rnd: dict[str, Any] | None, count: object) -> list[Decision]:
        """The stack's first cover card: the one the dealer put at least 14 cards above the
        bottom (§ 541.5(e), § 543.5(e), § 545.5(d)); `count` cards came out before it."""
        if not isinstance(count, int) or isinstance(count, bool) or self.stack is None:
            return []
        behind = self.stack - count
        if behind >= COVER_ABOVE_BOTTOM:
            return []
        return [
            violation(
                self.rules,
                "cover_position",
                "cover_card_too_deep",
                rnd["id"] if rnd else None,
                count=count,
                stack=self.stack,
                behind=behind,
                least=COVER_ABOVE_BOTTOM,
                detail=f"the cover card came out after {count} of {self.stack} cards, "
                f"{behind} above the bottom; it is inserted at least "
                f"{COVER_ABOVE_BOTTOM} cards above the bottom",
            )
        ]

    def empty(self, round_id: str | None) -> list[Decision]:
        self.loaded = False
        self.burn = None
        self.shuffle_required = "shoe_empty"
        out = []
        if round_id is not None:
            out.append(
                policy_decision(
                    EventType.PROCEDURE_VIOLATION,
                    STRICT_POLICY,
                    round_id,
                    what="shoe_empty_mid_round",
                    detail="the shoe ran out during a coup: the cover card should have "
                    "ended the shoe before",
                )
            )
        out.append(
            policy_decision(
                EventType.CARDS_SHUFFLE_REQUIRED, EMPTY_POLICY, None, reason="shoe_empty"
            )
        )
        return out

    # ----- rounds -----------------------------------------------------------------

    def round_started(self, rnd: dict[str, Any]) -> None:
        if self.burn is not None:
            self.burn["done"] = True  # a manual shoe's burn ends at the first coup
        if self.cover == "pending":
            rnd["cover_card"] = True
            self.cover = "in_round"
        elif self.cover == "last_hand":
            rnd["last_hand"] = True
            self.cover = "last_round"

    def round_finished(self, rnd: dict[str, Any]) -> list[Decision]:
        """After a coup (ended or void): "last hand", or the reshuffle or new decks."""
        if rnd["cover_card"]:
            self.cover = "last_hand"
            after = "new decks" if self.rules.new_decks_after_cover else "a reshuffle"
            return [
                ruled(
                    self.rules,
                    EventType.CARDS_LAST_HAND,
                    "cover_card",
                    rnd["id"],
                    announce="last hand",
                    detail=f"the cover card came out: one more hand, then {after}",
                )
            ]
        if not rnd["last_hand"]:
            return []
        self.cover = None
        self.shuffle_required = "cover_card"
        self.new_decks_required = self.rules.new_decks_after_cover
        return [
            ruled(
                self.rules,
                EventType.CARDS_SHUFFLE_REQUIRED,
                "cover_card",
                rnd["id"],
                reason="cover_card",
                new_decks=self.new_decks_required,
            )
        ]

    # ----- floorperson ------------------------------------------------------------

    def idle(self, since: str, minutes: int) -> list[Decision]:
        """No gaming activity since `since` (§ 541.5(h)): the cards in the shoe are spread,
        inspected, washed, shuffled and cut again (h)(1); floord requires a new load."""
        rule = self.rules.idle_rule
        if rule is None or not self.loaded or self.shuffle_required:
            return []
        self.shuffle_required = "no_gaming_activity"
        self.cover = None
        return [
            decision(
                EventType.CARDS_SHUFFLE_REQUIRED,
                rule,
                None,
                reason="no_gaming_activity",
                since=since,
                idle_minutes=minutes,
                detail="the cards are taken from the shoe and the discard rack, spread for "
                "the first player, washed, stacked, shuffled and cut before the next coup",
            )
        ]

    def reshuffle_ordered(self) -> None:
        self.shuffle_required = "floorperson"
        self.cover = None

    def decks_changed(self) -> None:
        self.new_decks_required = False
        self.loaded = False
        self.burn = None
        self.cover = None
        self.shuffle_required = "new_decks"

    # ----- gates ------------------------------------------------------------------

    def start_problems(self) -> list[tuple[str | None, str]]:
        """Why no coup may start now: (citation or None, sentence), the strongest first."""
        cite = self.rules.cite
        problems: list[tuple[str | None, str]] = []
        if (problem := receipt_problem(self.receipt)) is not None:
            problems.append((cite(self.receipt_key), problem))
        if self.new_decks_required:
            problems.append(
                (cite("cover_card"), "the cards are replaced with new decks (change_decks)")
            )
        if self.shuffle_required:
            key = "cover_card" if self.shuffle_required == "cover_card" else "shuffle"
            # A reshuffle the shoe running out or a floorperson called for is policy.
            policy = self.shuffle_required in ("shoe_empty", "floorperson")
            rule = None if policy else cite(key)
            if self.shuffle_required == "no_gaming_activity":
                rule = self.rules.idle_rule
            problems.append(
                (rule, f"the cards must be shuffled ({self.shuffle_required}) and loaded")
            )
        elif not self.loaded:
            problems.append((cite("shuffle"), "the shoe holds no cards"))
        elif self.burn is not None and not self.burn["done"]:
            burn = self.burn
            if burn["needed"] is not None:
                problems.append(
                    (
                        cite("burn"),
                        f"the burn is not complete: {burn['drawn']} of {burn['needed']} "
                        f"cards (first card {burn['first']})",
                    )
                )
            elif burn["drawn"] < 2:
                problems.append(
                    (cite("burn"), "the first card and as many more as its value are burned")
                )
        return problems

    # ----- persistence ------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        return snapshot_fields(self, self.FIELDS)

    def restore(self, body: dict[str, Any]) -> None:
        if not isinstance(body, dict):
            raise ValueError("snapshot: shoe must be an object")
        if body.get("cover") not in (None, "pending", "in_round", "last_hand", "last_round"):
            raise ValueError(f"snapshot: shoe.cover {body.get('cover')!r} is not known")
        burn = body.get("burn")
        if burn is not None and not (isinstance(burn, dict) and "drawn" in burn):
            raise ValueError("snapshot: shoe.burn must be an object or null")
        restore_fields(self, self.FIELDS, body)
