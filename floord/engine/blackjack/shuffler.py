"""An automated card shuffler's two batches, and the shuffler itself, at a Blackjack table.

58 Pa. Code § 549.3(d): two batches of equal decks with backs of different colours, one
shuffled and stored in the shuffler while the other is dealt, alternated shoe by shoe,
only one batch in the discard rack at a time. A batch whose card count after the
shuffle is wrong (decks per batch x 52, or x 48 for Spanish 21, § 551.3(a)) may not be
dealt; a jammed batch is reshuffled first; a shuffler out of order is covered before
cards are shuffled by hand (floord's policies, after § 571.13(e), (g)).
"""

from __future__ import annotations

from typing import Any

from floord.contract import EventType, cite
from floord.engine.blackjack.rules import GameRules
from floord.engine.cards.shuffler_cover import door_reported, order_reported
from floord.engine.core.rulings import policy_decision, strict, violation
from floord.engine.core.snapshots import restore_fields, snapshot_fields
from floord.engine.core.types import Decision

JAM_POLICY = (
    "floord policy, not a regulation: chapter 549 says nothing of a jammed shuffler; as "
    "§ 571.13(e) orders for Mississippi Stud, the batch is reshuffled before it is dealt"
)
COVER_POLICY = (
    "floord policy, not a regulation: chapter 549 says nothing of a broken shuffler; as "
    "§ 571.13(g) orders for Mississippi Stud, it is covered before cards are shuffled by hand"
)
DOOR_POLICY = (
    "floord policy, not a regulation: the stored batch must be kept secure "
    "(§ 549.6(h)(2)(i)); an open shuffler door is reported"
)
FIELDS = (
    "batches",
    "last_loaded",
    "removed",
    "shoe_batch_bad",
    "bad_batch_reported",
    "rack_checked",
    "out_of_order",
    "covered",
)


# The rule a batch that may not be dealt breaks, by why (else § 549.3(d)'s batch rule).
BAD_BATCH_KEYS = {"refused": "batches_equal", "uninspected": "cards_inspected"}


class ShufflerBook:
    """The batches (state per back colour) and the shuffler's order; returns decisions."""

    def __init__(self, rules: GameRules) -> None:
        self.rules = rules
        self.shuffler: str = rules.shuffler
        self.backs = list(rules.batch_backs or [])
        self.decks = rules.decks
        self.batches: dict[str, str] = {}
        self.last_loaded: str | None = None
        self.removed: str | None = None
        self.shoe_batch_bad: str | None = None
        self.bad_batch_reported = False
        self.rack_checked = True
        self.out_of_order = False
        self.covered = False
        self.reset()

    @property
    def continuous(self) -> bool:
        return self.shuffler == "continuous"

    def reset(self) -> None:
        """New decks: no batch has been shuffled, none is in the shoe."""
        self.batches = {b: "unknown" for b in self.backs}
        self.last_loaded = self.removed = self.shoe_batch_bad = None

    def loaded(self, round_id: str | None, reload: bool) -> list[Decision]:
        out: list[Decision] = []
        batch = self.removed
        if batch is None:
            out.append(
                violation(
                    self.rules,
                    "batch_in_shuffler",
                    "batch_not_from_shuffler",
                    round_id,
                    detail="a batch was loaded into the shoe without one being taken out "
                    "of the automated shuffler",
                )
            )
            self.shoe_batch_bad = "not_from_shuffler"
        else:
            if not reload and batch == self.last_loaded:
                out.append(
                    violation(
                        self.rules,
                        "batches_alternate",
                        "batches_not_alternated",
                        round_id,
                        batch=batch,
                        detail=f"batch {batch!r} was also the last batch in the shoe; the "
                        "two batches alternate, each used for every other shoe",
                    )
                )
            state = self.batches.get(batch, "unknown")
            self.shoe_batch_bad = state if state in ("refused", "jammed", "uninspected") else None
            previous = self.last_loaded
            if previous and previous != batch and self.batches.get(previous) == "in_shoe":
                self.batches[previous] = "discard"
            self.batches[batch] = "in_shoe"
            self.last_loaded = batch
            self.removed = None
        self.bad_batch_reported = False
        self.rack_checked = reload
        return out

    def draw_checks(self, round_id: str | None) -> list[Decision]:
        out: list[Decision] = []
        if self.shoe_batch_bad and not self.bad_batch_reported:
            self.bad_batch_reported = True
            if self.shoe_batch_bad == "jammed":
                out.append(
                    policy_decision(
                        EventType.PROCEDURE_VIOLATION,
                        JAM_POLICY,
                        round_id,
                        what="card_from_refused_batch",
                        batch=self.last_loaded,
                        reason="jam",
                    )
                )
            else:
                key = BAD_BATCH_KEYS.get(self.shoe_batch_bad, "batch_in_shuffler")
                out.append(
                    violation(
                        self.rules,
                        key,
                        "card_from_refused_batch",
                        round_id,
                        batch=self.last_loaded,
                        reason=self.shoe_batch_bad,
                        detail="the batch in the shoe may not be dealt",
                    )
                )
        if not self.rack_checked:
            self.rack_checked = True
            left = sorted(b for b, s in self.batches.items() if s == "discard")
            if left:
                out.append(
                    violation(
                        self.rules,
                        "one_batch_in_rack",
                        "two_batches_in_discard_rack",
                        round_id,
                        batches=[*left, self.last_loaded],
                        detail=f"batch {left[0]!r} was not put into the shuffler before "
                        f"batch {self.last_loaded!r} was dealt",
                    )
                )
        return out

    def uninspected_shuffle(
        self, type: str, batch: str, problem: str, round_id: str | None, key: str
    ) -> list[Decision]:
        """A batch of decks not yet inspected and verified goes through the shuffler
        (§ 549.5(a), (e): the decks are inspected, then each batch stacked, then shuffled):
        a violation when the shuffle starts, and the batch may not be dealt until it is
        shuffled again once they are. `key`: the rule of the step still owed."""
        self.batches[batch] = "uninspected"
        if type != EventType.SHUFFLER_SHUFFLE_STARTED:
            return []
        return [
            violation(
                self.rules,
                key,
                "decks_not_inspected",
                round_id,
                step="shuffle",
                batch=batch,
                detail=f"{problem}: the shuffle does not count",
            )
        ]

    def event(self, type: str, data: dict[str, Any], round_id: str | None) -> list[Decision]:
        if self.shuffler == "none":
            return [strict("shuffler_event_without_shuffler", round_id, event=type)]
        if type == EventType.SHUFFLER_OUT_OF_ORDER:
            return self._out_of_order(data, round_id)
        if type == EventType.SHUFFLER_DOOR:
            return door_reported(data, round_id, DOOR_POLICY)
        if type == EventType.SHUFFLER_MODE:
            if bool(data.get("continuous")) != self.continuous:
                return [
                    violation(
                        self.rules,
                        "continuous",
                        "shuffler_mode_mismatch",
                        round_id,
                        reported_continuous=data.get("continuous"),
                        table_shuffler=self.shuffler,
                    )
                ]
            return []
        if type == EventType.SHUFFLER_JAM:
            return self._jam(data, round_id)
        if self.continuous:
            return [
                violation(
                    self.rules,
                    "continuous",
                    "batch_event_on_continuous_shuffler",
                    round_id,
                    event=type,
                    detail="a continuous shuffler deals no batches",
                )
            ]
        return self._batch_event(type, data, round_id)

    def _batch_event(self, type: str, data: dict[str, Any], round_id: str | None) -> list[Decision]:
        batch = data.get("batch")
        if batch not in self.batches:
            return [
                violation(
                    self.rules,
                    "batch_backs",
                    "unknown_batch",
                    round_id,
                    batch=batch,
                    event=type,
                    known=list(self.backs),
                )
            ]
        if type == EventType.SHUFFLER_SHUFFLE_STARTED:
            self.batches[batch] = "shuffling"
        elif type in (EventType.SHUFFLER_SHUFFLE_COMPLETED, EventType.SHUFFLER_BATCH_READY):
            expected = (self.decks // 2) * self.rules.deck_size
            cards = data.get("cards")
            if cards != expected and self.batches[batch] == "refused":
                # `batch_ready` repeats the count of the shuffle already refused.
                return []
            if cards != expected:
                self.batches[batch] = "refused"
                rule = (
                    cite("551.3(a)") if self.rules.spanish21 else self.rules.cite("batches_equal")
                )
                return [
                    Decision(
                        EventType.CARDS_BATCH_REFUSED,
                        {
                            "batch": batch,
                            "reason": "card_count",
                            "cards": cards,
                            "expected": expected,
                            "detail": "the batch may not be dealt and must be removed from "
                            "the shuffler",
                        },
                        rule,
                        round_id,
                    )
                ]
            if self.batches[batch] not in ("refused", "jammed"):
                self.batches[batch] = "ready"
        elif type == EventType.SHUFFLER_BATCH_REMOVED:
            self.removed = batch
        else:
            return [strict("unknown_shuffler_event", round_id, event=type)]
        return []

    def _jam(self, data: dict[str, Any], round_id: str | None) -> list[Decision]:
        batch = data.get("batch")
        if batch in self.batches:
            jammed = [batch]
        else:
            jammed = sorted(b for b, s in self.batches.items() if s != "in_shoe")
        for b in jammed:
            self.batches[b] = "jammed"
        return [
            policy_decision(
                EventType.CARDS_BATCH_REFUSED,
                JAM_POLICY,
                round_id,
                batch=batch if batch in self.batches else None,
                batches=jammed,
                reason="jam",
                code=data.get("code"),
                text=data.get("text"),
                detail="the batch must be reshuffled before it is dealt",
            )
        ]

    def _out_of_order(self, data: dict[str, Any], round_id: str | None) -> list[Decision]:
        what = order_reported(self, data)
        return [
            policy_decision(
                EventType.TABLE_WARNING,
                COVER_POLICY,
                round_id,
                what=what,
                code=data.get("code"),
                text=data.get("text"),
            )
        ]

    # ----- decks ------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        return snapshot_fields(self, FIELDS)

    def restore(self, body: dict[str, Any]) -> None:
        restore_fields(self, FIELDS, body)
