"""The running shuffle-quality tests of one table: each shoe's read order against the last.

Fed what a card-recognition shoe reports (`shoe.loaded`: a new stack, so a new shoe;
`shoe.card_drawn` with its card; `shoe.empty`), `ShuffleWatch` keeps the order each shoe
dealt and returns the alerts three tests raise (`floord.analytics.shuffle_stats`):

- `shuffle_slug`, live on every card: the longest run of this shoe's cards that
  appears in the same order in one of the last `history` shoes; raised at most once a
  shoe, as soon as the run is at least `min_slug` cards long and its p-value is below
  `level_slug` (a slug is caught while it is being dealt, not after the shoe);
- `shuffle_correlation`, when the shoe ends: the neighbouring cards it shares, in order,
  with the previous shoe of the same side, and those that follow one another as in new
  decks' order (the successor-pairs count, `against` which; the smaller p-value
  doubled when both are run);
- `shuffle_clumping`, when the shoe ends: neighbours of the same suit and of the same
  rank, the smaller p-value doubled (Bonferroni), so the test keeps `level_clumping`.

A shoe ends when the next stack is loaded on the same side, the shoe reports itself
empty, or it has read `LONGEST_SHOE` cards; the end tests need `min_cards` cards read.
On a double shoe each side's stacks are shoes of their own (numbered in one sequence);
the slug test looks at the earlier shoes of both sides, the correlation test at the
same side's last.

Statistics, not regulations: no rule requires these tests, so an alert cites nothing.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any

from floord.analytics.shuffle_stats import (
    NEW_DECK_PAIRS,
    adjacency_test,
    slug_expected_runs,
    slug_p_value,
    successor_pairs,
    successor_test,
)
from floord.contract import EventType
from floord.engine.cards.card import CardError, parse_card
from floord.engine.core.copies import Fixed

SLUG, CORRELATION, CLUMPING = "shuffle_slug", "shuffle_correlation", "shuffle_clumping"
# The most cards one stack holds (eight decks, the most any game's rules allow): a shoe
# that reads more without a new stack loaded (a continuous shuffler, a lost `shoe.loaded`)
# is not one stack, so it ends there and a new shoe begins.
LONGEST_SHOE = 8 * 52
LOADED, DRAWN, EMPTY = EventType.SHOE_LOADED, EventType.SHOE_CARD_DRAWN, EventType.SHOE_EMPTY


@dataclass(frozen=True)
class ShuffleSetup(Fixed):
    """How a table's shuffle watch is tuned (the table's `shuffle_quality:`)."""

    level_slug: float = 0.001
    level_correlation: float = 0.001
    level_clumping: float = 0.001
    min_slug: int = 5
    history: int = 8
    min_cards: int = 30

    def __post_init__(self) -> None:
        for name in ("level_slug", "level_correlation", "level_clumping"):
            level = getattr(self, name)
            if isinstance(level, bool) or not isinstance(level, int | float) or not 0 < level < 1:
                raise ValueError(f"{name} must be a number strictly between 0 and 1, not {level!r}")
        for name, least in (("min_slug", 2), ("history", 1), ("min_cards", 10)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise ValueError(f"{name} must be an integer of at least {least}, not {value!r}")


class DealtShoe(Fixed):
    """A shoe that ended: its number, side and the faces it dealt, in order, with where
    each face stands. Never changed, so a copy of the watch shares it."""

    __slots__ = ("cards", "number", "side", "where")

    def __init__(self, number: int, side: str | None, cards: tuple[str, ...]) -> None:
        self.number = number
        self.side = side
        self.cards = cards
        places: dict[str, list[int]] = {}
        for j, face in enumerate(cards):
            places.setdefault(face, []).append(j)
        self.where = {face: tuple(js) for face, js in places.items()}


class Earlier(Fixed):
    """The earlier shoes a shoe is compared with, laid end to end with a gap between
    them (so no run crosses from one into the next), and where each face stands in
    them: one lookup a card finds it in every earlier shoe. Never changed, shared."""

    __slots__ = ("shoes", "starts", "where")

    def __init__(self, shoes: tuple[DealtShoe, ...]) -> None:
        self.shoes = shoes
        self.starts: tuple[int, ...] = ()
        places: dict[str, list[int]] = {}
        start, starts = 0, []
        for shoe in shoes:
            starts.append(start)
            for face, js in shoe.where.items():
                places.setdefault(face, []).extend(start + j for j in js)
            start += len(shoe.cards) + 1
        self.starts = tuple(starts)
        self.where = {face: tuple(gs) for face, gs in places.items()}

    def locate(self, at: int) -> tuple[int, int]:
        """The earlier shoe's number and the place in it of a place end to end."""
        k = bisect_right(self.starts, at) - 1
        return self.shoes[k].number, at - self.starts[k]


@dataclass
class OpenShoe:
    """The shoe being dealt on one side: its cards so far, the earlier shoes it is
    compared with, and the runs its last card ends in them (by place end to end)."""

    number: int
    side: str | None
    earlier: Earlier
    cards: list[str] = field(default_factory=list)
    runs: dict[int, int] = field(default_factory=dict)
    # (length, start here, earlier shoe's number, start there), 0-based
    best: tuple[int, int, int, int] = (0, 0, 0, 0)
    slug_raised: bool = False

    def add(self, face: str) -> bool:
        """Deal one face; True when the longest run grew."""
        self.cards.append(face)
        before = self.runs
        self.runs = runs = {g: before.get(g - 1, 0) + 1 for g in self.earlier.where.get(face, ())}
        longest = max(runs.values(), default=0)
        if longest <= self.best[0]:
            return False
        g = next(g for g, length in runs.items() if length == longest)
        number, there = self.earlier.locate(g - longest + 1)
        self.best = (longest, len(self.cards) - longest, number, there)
        return True


class ShuffleWatch:
    """The shuffle tests of one table; fed the shoe's reports, it returns the alerts.

    With `summaries` (the report's replay) it also keeps, for each shoe that ends,
    every test's finding whether or not it alerted; the live watch keeps none."""

    def __init__(self, setup: ShuffleSetup, *, summaries: bool = False) -> None:
        self.setup = setup
        self.shoes = 0
        self.history: list[DealtShoe] = []
        self.open: dict[str | None, OpenShoe] = {}
        self.summaries: list[dict[str, Any]] | None = [] if summaries else None

    def on_event(self, etype: str, data: dict[str, Any]) -> list[dict[str, Any]]:
        """One event of a reading shoe (`shoe.loaded`, `shoe.card_drawn`, `shoe.empty`;
        any other is ignored); the alerts it raises."""
        side = data.get("side")
        side = side if isinstance(side, str) else None
        if etype == LOADED:
            return self.loaded(side)
        if etype == EMPTY:
            return self.empty(side)
        if etype == DRAWN:
            return self.drawn(side, data.get("card"))
        return []

    def loaded(self, side: str | None) -> list[dict[str, Any]]:
        """A new stack on `side`: the shoe there ends (its tests), a new one begins."""
        alerts = self.empty(side)
        self._begin(side)
        return alerts

    def empty(self, side: str | None) -> list[dict[str, Any]]:
        """The shoe on `side` ends: its end-of-shoe tests; later cards start a new one."""
        shoe = self.open.pop(side, None)
        if shoe is None:
            return []
        dealt = DealtShoe(shoe.number, side, tuple(shoe.cards))
        found = self._end_tests(shoe, dealt)
        if self.summaries is not None:
            slug = self._slug(shoe) if shoe.best[0] else None
            self.summaries.append(
                {
                    "shoe": shoe.number,
                    "side": side,
                    "cards": len(dealt.cards),
                    "tests": ([slug] if slug else []) + found,
                }
            )
        if dealt.cards:
            self.history.append(dealt)
            del self.history[: max(0, len(self.history) - self.setup.history)]
        return [f for f in found if f["p_value"] < f["level"]]

    def drawn(self, side: str | None, card: Any) -> list[dict[str, Any]]:
        """A card read as dealt (None, or text that is no card: not counted, the engine
        reports it). Returns the slug alert it raises, if any, after the end tests of
        a shoe that reached `LONGEST_SHOE` cards without a new stack."""
        try:
            face = parse_card(card)
        except CardError:
            return []
        alerts: list[dict[str, Any]] = []
        shoe = self.open.get(side) or self._begin(side)
        if len(shoe.cards) >= LONGEST_SHOE:
            alerts = self.empty(side)
            shoe = self._begin(side)
        if not shoe.add(face) or shoe.slug_raised or shoe.best[0] < self.setup.min_slug:
            return alerts
        found = self._slug(shoe)
        if found["p_value"] >= found["level"]:
            return alerts
        shoe.slug_raised = True
        return [*alerts, found]

    # ----- the tests --------------------------------------------------------------

    def _begin(self, side: str | None) -> OpenShoe:
        self.shoes += 1
        shoe = OpenShoe(self.shoes, side, Earlier(tuple(self.history)))
        self.open[side] = shoe
        return shoe

    def _body(
        self, test: str, shoe: OpenShoe, level: float, compared: list[int], **found: Any
    ) -> dict[str, Any]:
        return {
            "test": test,
            "dof": None,
            "level": level,
            "window": len(compared),
            "over_represented": [],
            "shoe": shoe.number,
            "side": shoe.side,
            "cards": len(shoe.cards),
            "compared": compared,
            **found,
        }

    def _slug(self, shoe: OpenShoe) -> dict[str, Any]:
        """The slug test of the shoe's longest run so far."""
        length, at, number, at_earlier = shoe.best
        expected = math.fsum(
            slug_expected_runs(e.cards, length, max(len(shoe.cards), len(e.cards)))
            for e in shoe.earlier.shoes
        )
        run = {
            "cards": shoe.cards[at : at + length],
            "at": at + 1,
            "shoe": number,
            "at_earlier": at_earlier + 1,
        }
        return self._body(
            SLUG,
            shoe,
            self.setup.level_slug,
            [e.number for e in shoe.earlier.shoes],
            statistic=length,
            p_value=slug_p_value(expected),
            expected_runs=expected,
            run=run,
        )

    def _end_tests(self, shoe: OpenShoe, dealt: DealtShoe) -> list[dict[str, Any]]:
        """The correlation and clumping tests of a shoe that ended, alerting or not."""
        if len(dealt.cards) < self.setup.min_cards:
            return []
        # Against the previous shoe of this side (a false shuffle, a poor riffle) and
        # against new decks' order (new decks shuffled too little); Bonferroni over both.
        previous = next((e for e in reversed(shoe.earlier.shoes) if e.side == shoe.side), None)
        against: list[tuple[str, frozenset[tuple[str, str]], list[int]]] = [
            ("new_deck_order", NEW_DECK_PAIRS, [])
        ]
        if previous is not None and len(previous.cards) >= self.setup.min_cards:
            against.insert(0, ("previous_shoe", successor_pairs(previous.cards), [previous.number]))
        tests = [
            (successor_test(pairs, dealt.cards), name, numbers) for name, pairs, numbers in against
        ]
        pairs, name, numbers = min(tests, key=lambda t: t[0].p_value)
        correlation = self._body(
            CORRELATION,
            shoe,
            self.setup.level_correlation,
            numbers,
            statistic=pairs.observed,
            p_value=min(1.0, len(tests) * pairs.p_value),
            against=name,
            pairs=pairs.as_dict(),
        )
        suits = adjacency_test([face[1] for face in dealt.cards])
        ranks = adjacency_test([face[0] for face in dealt.cards])
        smaller = min(suits, ranks, key=lambda t: t.p_value)
        clumping = self._body(
            CLUMPING,
            shoe,
            self.setup.level_clumping,
            [],
            statistic=round(smaller.statistic, 4),
            p_value=min(1.0, 2 * smaller.p_value),
            suits=suits.as_dict(),
            ranks=ranks.as_dict(),
        )
        return [correlation, clumping]
