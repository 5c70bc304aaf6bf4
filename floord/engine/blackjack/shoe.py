"""The cards of a Blackjack table outside the hands: shoe, burn cards, shuffler batches, decks.

What this module keeps, and why:
- each side of the shoe (one, or two for a double shoe): loaded, cards drawn, whether
  the cutting card came out (§ 549.7(k)) and whether it must be reshuffled (§ 549.6);
- the burn card due after each new batch in the shoe and each new dealer (§ 549.7(c));
  a double shoe has no burn (its determinant card replaces § 549.7(c), § 549.7(d));
- an automated shuffler's two batches: alternated in and out of play, one batch in the
  discard rack, a batch whose count is wrong or that jammed may not be dealt
  (§ 549.3(d)); an out-of-order shuffler must be covered before hand shuffling;
- when the decks were opened, changed at least every 24 hours (§ 549.3(e), § 551.3(c)).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from floord.contract import EventType, format_ts, parse_ts
from floord.engine.blackjack import cut_counts
from floord.engine.blackjack.cuts import CutBook
from floord.engine.blackjack.rules import GameRules
from floord.engine.blackjack.shuffler import BAD_BATCH_KEYS, COVER_POLICY, ShufflerBook
from floord.engine.cards.deck_change import deck_change_due, deck_warning_at
from floord.engine.cards.deck_receipt import receipt_problem, spread_missing
from floord.engine.cards.deck_spread import SpreadPlan
from floord.engine.core.rulings import policy_decision, ruled, strict, violation
from floord.engine.core.snapshots import restore_fields, snapshot_fields
from floord.engine.core.types import Decision

DECK_LIFETIME = timedelta(hours=24)


def _new_side() -> dict[str, Any]:
    # `cards`: the stack as loaded (the shoe's count, else the table's decks; None after a
    # § 549.16(f) reload of unknown size); `cut`: whether its cutting card came out.
    return {
        "loaded": False,
        "drawn": 0,
        "cutting_pending": False,
        "shuffle_required": None,
        "cards": None,
        "cut": False,
    }


class ShoeBook:
    """The shoe, shuffler and decks of one table; every method returns its decisions."""

    def __init__(self, rules: GameRules) -> None:
        self.rules = rules
        self.double = rules.shoe == "double"
        self.shuffler: str = rules.shuffler
        self.backs = list(rules.batch_backs or [])
        self.decks = rules.decks
        self.warn = timedelta(minutes=rules.deck_change_warn_minutes)
        keys = ("left", "right") if self.double else ("shoe",)
        self.sides: dict[str, dict[str, Any]] = {k: _new_side() for k in keys}
        self.burn_due: str | None = None
        self.face_up: list[str | None] = []
        self.batch = ShufflerBook(rules)
        self.decks_opened_at: str | None = None
        self.deck_warned = False
        # The decks received at the table and their inspection (`deck_receipt`).
        self.receipt: dict[str, Any] | None = None
        # Whom the next cut is offered to and each side's cut (§ 549.6(b)-(d), (f)).
        self.cuts = CutBook(rules, tuple(self.sides))

    @property
    def continuous(self) -> bool:
        return self.shuffler == "continuous"

    def spread_plan(self) -> SpreadPlan:
        """How the decks received are spread (§ 549.5(b)-(e), § 551.4(b), (c)): at
        Blackjack a double shoe's sides apart (d) and a shuffler's batches apart (e), the
        batches only stacked, not washed; after the dealer's inspection, the floorperson's
        verification being floord's policy. At Spanish 21, after the verification, all
        together: § 551.4 has no paragraph for sides or batches."""
        if self.rules.spanish21:
            return SpreadPlan()
        parts: list[tuple[str, tuple[str, ...]]] = []
        if self.double:
            parts.append(("side", tuple(self.sides)))
        if self.shuffler == "batch":
            parts.append(("batch", tuple(self.backs)))
        washed = self.double or self.shuffler != "batch"
        return SpreadPlan(tuple(parts), after_verification=False, washed=washed)

    @property
    def spread_key(self) -> str:
        """The rule key of the spread at this table (§ 549.5(d), (e) or (b))."""
        if self.rules.spanish21:
            return "cards_spread"
        if self.double:
            return "sides_spread"
        return "batches_spread" if self.shuffler == "batch" else "cards_spread"

    @property
    def receipt_key(self) -> str:
        """The rule the decks received break while not cleared: the spread's paragraph
        when only the spread is owed, else the inspection's."""
        return self.spread_key if spread_missing(self.receipt) else "cards_inspected"

    @property
    def has_burn(self) -> bool:
        """§ 549.7(c) applies to a single shoe; § 549.15 replaces it on a continuous one."""
        return not self.double and not self.continuous

    def side_of(self, data: dict[str, Any]) -> str | None:
        """The side key of a shoe event: "shoe", or "left"/"right"; None if unusable."""
        if not self.double:
            return "shoe"
        side = data.get("side")
        return side if side in ("left", "right") else None

    # ----- the shoe ---------------------------------------------------------------

    def loaded(self, data: dict[str, Any], round_id: str | None, reload: bool) -> list[Decision]:
        """A new stack placed in the shoe; `reload` is the § 549.16(f) mid-round case."""
        out: list[Decision] = []
        side = self.side_of(data)
        if side is None:
            return [strict("shoe_side_unknown", round_id, side=data.get("side"))]
        if (problem := receipt_problem(self.receipt)) is not None:
            # § 549.5(a): the decks are inspected before use; the stack does not count.
            detail = f"{problem}: the shoe is loaded again once they are"
            return [
                violation(
                    self.rules,
                    self.receipt_key,
                    "decks_not_inspected",
                    round_id,
                    side=data.get("side"),
                    detail=detail,
                )
            ]
        counts, cut = self.cuts.load(side, data.get("cards"), round_id)
        if not counts:
            return cut
        out += cut
        if self.shuffler == "batch" and not self.batch.out_of_order:
            out += self.batch.loaded(round_id, reload)
        elif self.shuffler == "batch" and not self.batch.covered:
            out.append(
                policy_decision(
                    EventType.PROCEDURE_VIOLATION,
                    COVER_POLICY,
                    round_id,
                    what="hand_shuffle_with_shuffler_uncovered",
                    detail="cards shuffled by hand were loaded while the out-of-order "
                    "shuffler was not covered",
                )
            )
        state = self.sides[side]
        expected = cut_counts.expected_stack(self.rules, self.decks, self.double, self.shuffler)
        cards = data.get("cards")
        if not reload:
            after_cut = state.get("shuffle_required") == "cutting_card"
            out += cut_counts.load_count(self.rules, side, cards, expected, after_cut, round_id)
        counted = isinstance(cards, int) and not isinstance(cards, bool)
        stack = cards if counted else (None if reload else expected)
        state.update(_new_side(), loaded=True, cards=stack)
        if reload:
            self.burn_due = "insufficient_cards"
        elif self.has_burn:
            self.burn_due = "shoe_loaded"
        return out

    def draw(
        self, data: dict[str, Any], card: str | None, round_id: str | None
    ) -> tuple[str, list[Decision]]:
        """Count a drawn card: ("burn" | "face_up" | "card", decisions)."""
        out: list[Decision] = []
        side = self.side_of(data)
        if side is not None:
            self.sides[side]["drawn"] += 1
        if self.shuffler == "batch":
            out += self.batch.draw_checks(round_id)
        if card in self.face_up or (card is None and self.face_up):
            self.face_up.remove(card if card in self.face_up else self.face_up[0])
            return "face_up", out
        if self.burn_due is not None:
            self.burn_due = None
            return "burn", out
        return "card", out

    def cutting_card(self, data: dict[str, Any], round_id: str | None) -> list[Decision]:
        if self.continuous:
            return [
                violation(
                    self.rules,
                    "continuous",
                    "cutting_card_in_continuous_shoe",
                    round_id,
                    detail="a continuous shuffling shoe has no cutting card",
                )
            ]
        side = self.side_of(data)
        if side is None:
            return [strict("shoe_side_unknown", round_id, side=data.get("side"))]
        state = self.sides[side]
        state["cutting_pending"] = True
        first = not state.get("cut")
        state["cut"] = True
        count, stack = data.get("count"), state.get("cards")
        if first and isinstance(count, int) and isinstance(stack, int):
            return cut_counts.cut_position(self.rules, side, count, stack, round_id)
        return []

    def empty(self, data: dict[str, Any], round_id: str | None) -> list[Decision]:
        side = self.side_of(data)
        if side is None:
            return [strict("shoe_side_unknown", round_id, side=data.get("side"))]
        state = self.sides[side]
        state["loaded"] = False
        uncut: list[Decision] = []
        if not self.continuous and not state.get("cut"):
            uncut = cut_counts.ran_out_uncut(self.rules, side, round_id)
        if round_id is not None:
            return [
                *uncut,
                ruled(
                    self.rules,
                    EventType.CARDS_SHUFFLE_REQUIRED,
                    "insufficient_cards",
                    round_id,
                    side=None if side == "shoe" else side,
                    reason="insufficient_cards",
                    complete_round=True,
                    burn_after_shuffle=True,
                    detail="the discards are shuffled and cut, the first card is burned, "
                    "and the round is completed",
                ),
            ]
        state["shuffle_required"] = "shoe_dealt"
        return [
            *uncut,
            ruled(
                self.rules,
                EventType.CARDS_SHUFFLE_REQUIRED,
                "shuffle_after_shoe",
                None,
                side=None if side == "shoe" else side,
                reason="shoe_dealt",
            ),
        ]

    def face_up_found(
        self, data: dict[str, Any], card: str | None, round_id: str | None
    ) -> list[Decision]:
        self.face_up.append(card)
        return [
            violation(
                self.rules,
                "face_up",
                "card_face_up_in_shoe",
                round_id,
                card=card,
                side=data.get("side"),
                detail="the card is not used in the game: it goes to the discard rack",
            )
        ]

    def round_finished(self, round_id: str) -> list[Decision]:
        """After a round: a cutting card that came out makes its side's reshuffle due."""
        out = []
        for side, state in self.sides.items():
            if state["cutting_pending"]:
                state["cutting_pending"] = False
                state["shuffle_required"] = "cutting_card"
                stack = state.get("cards")
                # § 549.7(k)(2): what the dealer takes out of the shoe to the rack.
                remaining = stack - state["drawn"] if isinstance(stack, int) else None
                out.append(
                    ruled(
                        self.rules,
                        EventType.CARDS_SHUFFLE_REQUIRED,
                        "cutting_card",
                        round_id,
                        side=None if side == "shoe" else side,
                        reason="cutting_card",
                        also=self.rules.cite("reshuffle"),
                        remaining=remaining,
                    )
                )
        return out

    def idle(self, since: str, minutes: int) -> list[Decision]:
        """No gaming activity since `since` (§ 549.6(h)): every side is reshuffled and loaded
        again before the next round; a continuous shuffler has no shoe stack to take out."""
        sides = [k for k, st in self.sides.items() if st["loaded"] and not st["shuffle_required"]]
        if self.continuous or not sides:
            return []
        for side in sides:
            self.sides[side]["shuffle_required"] = "no_gaming_activity"
            self.sides[side]["cutting_pending"] = False
        return [
            ruled(
                self.rules,
                EventType.CARDS_SHUFFLE_REQUIRED,
                "no_gaming_activity",
                None,
                reason="no_gaming_activity",
                since=since,
                idle_minutes=minutes,
                detail="the cards are taken from the shoe and the discard rack, spread for "
                "inspection, and shuffled and cut before the next round",
            )
        ]

    def reshuffle_ordered(self) -> None:
        self.cuts.reset("reshuffle")
        for state in self.sides.values():
            state["shuffle_required"] = "floorperson"
            state["cutting_pending"] = False

    def shuffler_event(
        self, type: str, data: dict[str, Any], round_id: str | None
    ) -> list[Decision]:
        batch = data.get("batch")
        shuffled = type in (
            EventType.SHUFFLER_SHUFFLE_STARTED,
            EventType.SHUFFLER_SHUFFLE_COMPLETED,
            EventType.SHUFFLER_BATCH_READY,
        )
        problem = receipt_problem(self.receipt)
        if shuffled and problem is not None and not self.continuous and batch in self.batch.batches:
            key = self.receipt_key
            return self.batch.uninspected_shuffle(type, batch, problem, round_id, key)
        return self.batch.event(type, data, round_id)

    # ----- decks ------------------------------------------------------------------

    def decks_changed(self, now: datetime) -> None:
        self.decks_opened_at = format_ts(now)
        self.deck_warned = False
        self.cuts.reset("first_player")
        for state in self.sides.values():
            state.update(_new_side())
            state["shuffle_required"] = "new_decks"
        self.batch.reset()
        self.burn_due = None
        self.face_up = []

    def deck_due_at(self) -> datetime | None:
        if self.decks_opened_at is None:
            return None
        return parse_ts(self.decks_opened_at) + DECK_LIFETIME

    def warning_at(self) -> datetime | None:
        """When `tick` warns of the deck change (None: it will not)."""
        return deck_warning_at(self, self.warn)

    def tick(self, now: datetime) -> list[Decision]:
        if (warning := deck_change_due(self, now, self.warn)) is None:
            return []
        return [ruled(self.rules, EventType.TABLE_WARNING, "deck_change", None, **warning)]

    # ----- gates ------------------------------------------------------------------

    def deal_problems(self, now: datetime) -> list[tuple[str | None, str]]:
        """Why no round may start now: (citation or None, sentence), first the strongest."""
        problems: list[tuple[str | None, str]] = []
        due = self.deck_due_at()
        rule = self.rules.cite
        if (problem := receipt_problem(self.receipt)) is not None:
            problems.append((rule(self.receipt_key), problem))
        if due is None:
            problems.append(
                (
                    rule("deck_change"),
                    "no deck change is on record: a floorperson records "
                    "the decks opened for use with change_decks",
                )
            )
        elif now >= due:
            problems.append(
                (
                    rule("deck_change"),
                    f"the decks were opened at {self.decks_opened_at} "
                    f"and had to be changed by {format_ts(due)}",
                )
            )
        if self.burn_due is not None:
            problems.append(
                (rule("burn"), f"a burn card is due ({self.burn_due}) before any round")
            )
        if not self.continuous:
            for side, state in self.sides.items():
                where = "the shoe" if side == "shoe" else f"the {side} side of the shoe"
                if state["shuffle_required"]:
                    key = {
                        "shoe_dealt": "shuffle_after_shoe",
                        "no_gaming_activity": "no_gaming_activity",
                    }.get(state["shuffle_required"], "reshuffle")
                    problems.append(
                        (
                            rule(key),
                            f"{where} must be reshuffled "
                            f"({state['shuffle_required']}) and loaded again",
                        )
                    )
                elif not state["loaded"]:
                    problems.append((rule("shuffle_after_shoe"), f"{where} holds no cards"))
        if bad := self.batch.shoe_batch_bad:
            # The paragraph the batch breaks, as its first card's violation names it; a
            # jammed batch is floord's policy (no paragraph).
            cited = None
            if bad != "jammed":
                cited = rule(BAD_BATCH_KEYS.get(bad, "batch_in_shuffler"))
            problems.append((cited, f"the batch in the shoe may not be dealt ({bad})"))
        if self.batch.out_of_order and not self.batch.covered:
            problems.append((None, "the automated shuffler is out of order and not covered"))
        return problems

    # ----- persistence ------------------------------------------------------------

    FIELDS = (
        "sides",
        "burn_due",
        "face_up",
        "decks_opened_at",
        "deck_warned",
        "receipt",
    )

    def snapshot(self) -> dict[str, Any]:
        body = snapshot_fields(self, self.FIELDS)
        return {**body, "shuffler": self.batch.snapshot(), "cuts": self.cuts.snapshot()}

    def restore(self, body: dict[str, Any]) -> None:
        if not isinstance(body, dict) or set(body.get("sides") or {}) != set(self.sides):
            raise ValueError("snapshot: the shoe does not fit this table's rules (sides)")
        restore_fields(self, self.FIELDS, body)
        self.batch.restore(body.get("shuffler") or {})
        self.cuts.restore(body.get("cuts"))
