"""The best five-card poker hand out of five to seven cards: its class and its ranking.

Ranks and classes follow 58 Pa. Code § 571.6 (the same order every poker game of
chapters 553-565 uses): ace high, an ace also low only in the straight (or straight
flush) A-2-3-4-5, never "around the corner" (Q-K-A-2-3 is no straight, § 571.6(b)(6)).
A royal flush is the ace-high straight flush. A hand with none of § 571.6(b)'s
combinations is a "high card" hand, which no poker game pays.

A hand's `key` orders hands totally: a higher key is a better hand and equal keys tie
(suits never break a tie). The evaluator is pure and takes the best of the (at most 21)
five-card combinations, which is fast enough for a table that settles six hands a round.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from itertools import combinations

from floord.engine.cards.card import CardError, parse_card

# Highest first (§ 571.6(b)); the index in this tuple is the class's strength from the top.
CLASSES = (
    "royal_flush",
    "straight_flush",
    "four_of_a_kind",
    "full_house",
    "flush",
    "straight",
    "three_of_a_kind",
    "two_pair",
    "one_pair",
    "high_card",
)
# A (14) high, 2 low (§ 571.6(a)).
RANK_VALUE = {r: v for v, r in enumerate("23456789TJQKA", start=2)}
WHEEL = (14, 5, 4, 3, 2)  # A-2-3-4-5: the ace plays low, the five is the top card


@dataclass(frozen=True)
class PokerHand:
    """The best five cards, their class (one of `CLASSES`) and a key that orders hands.

    `ranks` are the tie-break values, most significant first (a full house of kings over
    fours is (13, 4); a wheel straight is (5,)).
    """

    cls: str
    ranks: tuple[int, ...]
    cards: tuple[str, ...]

    @property
    def key(self) -> tuple[int, tuple[int, ...]]:
        return (len(CLASSES) - CLASSES.index(self.cls), self.ranks)

    def beats(self, other: PokerHand) -> bool:
        return self.key > other.key

    def ties(self, other: PokerHand) -> bool:
        return self.key == other.key

    def to_dict(self) -> dict[str, object]:
        return {"class": self.cls, "ranks": list(self.ranks), "cards": list(self.cards)}


def _straight_top(values: list[int]) -> int | None:
    """The top card of a straight made by five distinct values, else None."""
    ordered = sorted(set(values), reverse=True)
    if len(ordered) != 5:
        return None
    if ordered[0] - ordered[4] == 4:
        return ordered[0]
    if tuple(ordered) == WHEEL:
        return 5
    return None


def _five(cards: tuple[str, ...]) -> PokerHand:
    values = [RANK_VALUE[c[0]] for c in cards]
    flush = len({c[1] for c in cards}) == 1
    top = _straight_top(values)
    # Groups ordered by size then rank: (3, K), (2, 4) for kings full of fours.
    groups = sorted(Counter(values).items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    sizes = [n for _, n in groups]
    by_group = tuple(v for v, _ in groups)
    ranks: tuple[int, ...]
    if top is not None and flush:
        cls, ranks = ("royal_flush" if top == 14 else "straight_flush"), (top,)
    elif sizes[0] == 4:
        cls, ranks = "four_of_a_kind", by_group
    elif sizes[:2] == [3, 2]:
        cls, ranks = "full_house", by_group
    elif flush:
        cls, ranks = "flush", tuple(sorted(values, reverse=True))
    elif top is not None:
        cls, ranks = "straight", (top,)
    elif sizes[0] == 3:
        cls, ranks = "three_of_a_kind", by_group
    elif sizes[:2] == [2, 2]:
        cls, ranks = "two_pair", by_group
    elif sizes[0] == 2:
        cls, ranks = "one_pair", by_group
    else:
        cls, ranks = "high_card", by_group
    return PokerHand(cls, ranks, cards)


def best_hand(cards: list[str] | tuple[str, ...]) -> PokerHand:
    """The best five-card hand out of 5 to 7 distinct cards; CardError on bad input."""
    parsed = [parse_card(c) for c in cards]
    if not 5 <= len(parsed) <= 7:
        raise CardError(f"five to seven cards make a poker hand, found {len(parsed)}")
    seen: set[str] = set()
    for card in parsed:
        if card in seen:
            raise CardError(f"card {card} appears twice: one deck holds each card once")
        seen.add(card)
    best: PokerHand | None = None
    for combo in combinations(parsed, 5):
        hand = _five(combo)
        if best is None or hand.key > best.key:
            best = hand
    assert best is not None
    return best


def pair_rank(hand: PokerHand) -> int | None:
    """The rank value of a one-pair hand's pair (11 for jacks), else None."""
    return hand.ranks[0] if hand.cls == "one_pair" else None
