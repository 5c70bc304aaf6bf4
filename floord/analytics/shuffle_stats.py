"""The statistics of shuffle quality: pure functions over the order a shoe dealt its cards.

A card-recognition shoe reads every card as it is dealt, so each shoe leaves its order
on the record. A shuffle that randomly intermixes the cards leaves no trace of the last
shoe's order in the next one; a false shuffle, a poor riffle or a pre-arranged run of
cards (a slug) does. Three tests, each with a p-value computed here in pure Python (no
scipy on the table's box):

- `slug`: the longest run of cards of this shoe that appears in the same order in an
  earlier shoe, against the number of such runs a random shuffle gives (a Poisson
  clumping approximation, `slug_p_value`);
- `successor pairs`: how many neighbouring cards of this shoe were neighbours, in the
  same order, in the previous shoe, against the binomial count a random shuffle gives
  (`successor_test`); a riffle keeps the cards of each packet in order and a false
  shuffle keeps them all, so both leave many such pairs, and a cut does not hide them;
- `adjacency`: how many neighbouring cards share a suit (or a rank), against the exact
  mean and variance of that count in a random order of the same cards, its tail a
  binomial's with that mean and variance (`adjacency_test`): clumps of suits or ranks
  left by a poor shuffle of sorted cards.

Identical cards: a multi-deck shoe holds several copies of each card, and the tests
compare cards by their face (rank and suit), never by which copy: a run or a pair
matches when the faces match. No copy is told from another (the shoe cannot), so no
matching of copies between shoes is needed, and a cut, which moves copies around, does
not change what the tests see. The chance of each match is computed from the copies of
each face among the cards dealt, so a Spanish 21 shoe (no tens) or a shoe dealt only to
its cutting card is treated as the cards it really dealt.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from floord.engine.cards.card import RANKS, SUITS


def normal_upper(z: float) -> float:
    """P(Z >= z) for a standard normal Z."""
    return 0.5 * math.erfc(z / math.sqrt(2.0))


def _binomial_log_pmf(i: int, n: int, log_p: float, log_q: float) -> float:
    return (
        math.lgamma(n + 1)
        - math.lgamma(i + 1)
        - math.lgamma(n - i + 1)
        + i * log_p
        + (n - i) * log_q
    )


def _tail_from(i: int, n: int, p: float, step: int) -> float:
    """The sum of the pmf from i away from the mean (step +1 up, -1 down): each term a
    ratio of the last, stopped once the terms no longer count."""
    term = math.exp(_binomial_log_pmf(i, n, math.log(p), math.log1p(-p)))
    total = 0.0
    odds = p / (1.0 - p)
    while 0 <= i <= n and term > 0.0:
        total += term
        if term < total * 1e-17:
            break
        term *= (n - i) / (i + 1) * odds if step > 0 else i / (n - i + 1) / odds
        i += step
    return total


def binomial_upper(k: int, n: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p): above the mean the upper tail summed, else one
    less the lower tail (each summed from its end nearest the mean, where its terms
    are largest)."""
    if k <= 0:
        return 1.0
    if k > n or p <= 0.0:
        return 0.0
    if p >= 1.0:
        return 1.0
    if k > n * p:
        return min(1.0, _tail_from(k, n, p, +1))
    return max(0.0, 1.0 - _tail_from(k - 1, n, p, -1))


def matched_binomial_upper(k: int, mean: float, variance: float) -> float:
    """P(X >= k) for a count with this mean and a variance below it, as the binomial
    with the same mean and (nearly) the same variance: n' = mean / (1 - variance / mean)
    trials, rounded. A normal tail is too thin here (the count is skewed to the right
    like a binomial's), which doubled the false alarms of the rank test at 0.001; a
    variance at or above the mean falls back to the normal tail."""
    if variance >= mean:
        return normal_upper((k - 0.5 - mean) / math.sqrt(variance))
    trials = max(1, round(mean / (1.0 - variance / mean)))
    return binomial_upper(k, trials, min(1.0, mean / trials))


def window_probability(window: Sequence[str], counts: Counter[str], n: int) -> float:
    """The chance that `len(window)` given places of a random order of `n` cards, with
    `counts` copies of each face, show the faces of `window` in that order."""
    used: Counter[str] = Counter()
    chance = 1.0
    for k, face in enumerate(window):
        left = counts[face] - used[face]
        if left <= 0 or n - k <= 0:
            return 0.0
        chance *= left / (n - k)
        used[face] += 1
    return chance


def slug_expected_runs(earlier: Sequence[str], length: int, slots: int) -> float:
    """The expected number of runs of at least `length` cards that a random shoe of
    `slots` cards shares, in the same order, with the `earlier` shoe's order.

    Each of the (len(earlier) - length + 1) windows of the earlier shoe may show up at
    each of the (slots - length + 1) places of this shoe with `window_probability`
    (the faces' copies counted in the earlier shoe: both shoes hold the same cards); a
    match of length L + 1 is also one of length L, so only runs that start there (the
    cards before them differ, with chance 1 - q) are counted: the Poisson clumping
    approximation of the longest common run."""
    n = len(earlier)
    if length <= 0 or n < length or slots < length:
        return 0.0
    counts = Counter(earlier)
    q = math.fsum((c / n) ** 2 for c in counts.values())
    windows = math.fsum(
        window_probability(earlier[i : i + length], counts, n) for i in range(n - length + 1)
    )
    return (1.0 - q) * (slots - length + 1) * windows


def slug_p_value(expected_runs: float) -> float:
    """P(at least one run) for a Poisson count of runs with this mean."""
    return -math.expm1(-max(expected_runs, 0.0))


def longest_common_run(earlier: Sequence[str], current: Sequence[str]) -> tuple[int, int, int]:
    """The longest run of `current` that appears in the same order in `earlier`:
    (length, start in current, start in earlier), 0-based; (0, 0, 0) when none."""
    where: dict[str, list[int]] = {}
    for j, face in enumerate(earlier):
        where.setdefault(face, []).append(j)
    best = (0, 0, 0)
    runs: dict[int, int] = {}
    for i, face in enumerate(current):
        runs = {j: runs.get(j - 1, 0) + 1 for j in where.get(face, ())}
        for j, length in runs.items():
            if length > best[0]:
                best = (length, i - length + 1, j - length + 1)
    return best


@dataclass(frozen=True)
class CountTest:
    """A count against its null: what was seen, what a random shuffle gives, the
    statistic (a count, or z) and its one-sided upper p-value."""

    observed: int
    expected: float
    statistic: float
    p_value: float
    compared: int

    def as_dict(self) -> dict[str, float | int]:
        return {
            "observed": self.observed,
            "expected": round(self.expected, 4),
            "statistic": round(self.statistic, 4),
            "p_value": self.p_value,
            "compared": self.compared,
        }


def successor_pairs(order: Sequence[str]) -> frozenset[tuple[str, str]]:
    """The pairs of faces that follow one another in `order`, in that order."""
    return frozenset(itertools.pairwise(order))


# The order new decks leave the box in runs each suit up or down by rank (makers differ
# in the order of the suits and in the direction, not in that): any two faces of one
# suit next in rank, either way.
NEW_DECK_PAIRS = frozenset(
    (a + suit, b + suit)
    for suit in SUITS
    for lo, hi in itertools.pairwise(RANKS)
    for a, b in ((lo, hi), (hi, lo))
)


def successor_test(pairs: frozenset[tuple[str, str]], current: Sequence[str]) -> CountTest:
    """Neighbouring cards of `current` that are one of `pairs` (by face: the pairs an
    earlier shoe dealt in a row, or those of new decks' order). Given the cards
    `current` dealt, a random order of them makes any one of its neighbouring pairs one
    of `pairs` with chance p0 (the sum over the distinct pairs (x, y) of
    c_x (c_y - [x = y]) / (n (n - 1)), c the copies among the current cards); the count
    is taken as Binomial(n - 1, p0). `statistic` is the observed count."""
    n = len(current)
    slots = max(n - 1, 0)
    if n < 2 or not pairs:
        return CountTest(0, 0.0, 0.0, 1.0, slots)
    counts = Counter(current)
    p0 = math.fsum(counts[x] * (counts[y] - (x == y)) for x, y in pairs) / (n * (n - 1))
    observed = sum(1 for pair in itertools.pairwise(current) if pair in pairs)
    return CountTest(
        observed, slots * p0, float(observed), binomial_upper(observed, slots, p0), slots
    )


def adjacency_test(categories: Sequence[str]) -> CountTest:
    """Neighbours in the same category (a suit, a rank) against a random order of the
    same cards: the count's exact mean and variance (pairs of neighbour slots that
    overlap share a card), the tail of the binomial of that mean and variance,
    one-sided (clumps only). `statistic` is z, (observed - mean) / sd."""
    n = len(categories)
    m = n - 1
    if n < 4:
        return CountTest(0, 0.0, 0.0, 1.0, max(m, 0))
    counts = [c for c in Counter(categories).values()]
    f2 = math.fsum(c * (c - 1) for c in counts)
    f3 = math.fsum(c * (c - 1) * (c - 2) for c in counts)
    f4 = math.fsum(c * (c - 1) * (c - 2) * (c - 3) for c in counts)
    cross = f2 * f2 - math.fsum((c * (c - 1)) ** 2 for c in counts)
    p1 = f2 / (n * (n - 1))
    p2 = f3 / (n * (n - 1) * (n - 2))
    p4 = (f4 + cross) / (n * (n - 1) * (n - 2) * (n - 3))
    mean = m * p1
    second = m * p1 + 2 * (m - 1) * p2 + (m * (m - 1) - 2 * (m - 1)) * p4
    variance = second - mean * mean
    observed = sum(1 for a, b in itertools.pairwise(categories) if a == b)
    if variance <= 0 or mean <= 0:
        return CountTest(observed, mean, 0.0, 1.0 if observed <= mean else 0.0, m)
    z = (observed - mean) / math.sqrt(variance)
    return CountTest(observed, mean, z, matched_binomial_upper(observed, mean, variance), m)
