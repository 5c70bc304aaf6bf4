"""The shuffle statistics (`floord.analytics.shuffle_stats`) against brute force: the
longest common run, a window's chance, the exact mean and variance of same-category
neighbours and the successor pairs' chance, enumerated over every order of small
multisets; the tails against their sums."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter

import pytest

from floord.analytics.shuffle_stats import (
    NEW_DECK_PAIRS,
    adjacency_test,
    binomial_upper,
    longest_common_run,
    matched_binomial_upper,
    normal_upper,
    slug_expected_runs,
    slug_p_value,
    successor_pairs,
    successor_test,
    window_probability,
)

pytestmark = pytest.mark.unit


def test_the_tails_are_their_sums() -> None:
    for n, p in ((10, 0.3), (40, 0.02), (233, 0.086)):
        for k in range(n + 2):
            direct = sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k, n + 1))
            assert binomial_upper(k, n, p) == pytest.approx(direct, rel=1e-9, abs=1e-300)
    assert binomial_upper(0, 5, 0.5) == 1.0 and binomial_upper(6, 5, 0.5) == 0.0
    assert normal_upper(0.0) == pytest.approx(0.5)
    assert normal_upper(3.090232306) == pytest.approx(0.001, rel=1e-6)
    # With the variance equal to a binomial's, the matched tail is that binomial's.
    assert matched_binomial_upper(7, 20 * 0.2, 20 * 0.2 * 0.8) == pytest.approx(
        binomial_upper(7, 20, 0.2)
    )


def _brute_longest(a: list[str], b: list[str]) -> int:
    best = 0
    for i in range(len(b)):
        for j in range(len(a)):
            k = 0
            while i + k < len(b) and j + k < len(a) and b[i + k] == a[j + k]:
                k += 1
            best = max(best, k)
    return best


def test_the_longest_common_run_is_the_brute_forces() -> None:
    rng = random.Random(7)
    for _ in range(200):
        a = [rng.choice("ABCD") for _ in range(rng.randint(0, 30))]
        b = [rng.choice("ABCD") for _ in range(rng.randint(0, 30))]
        length, at, at_a = longest_common_run(a, b)
        assert length == _brute_longest(a, b)
        assert b[at : at + length] == a[at_a : at_a + length]


def test_a_windows_chance_counts_the_copies_left() -> None:
    deck = [r + s for r in "A23456789TJQK" for s in "SHDC"]
    counts = Counter(deck)
    assert window_probability(deck[:3], counts, 52) == pytest.approx(1 / (52 * 51 * 50))
    two = Counter(deck * 2)
    assert window_probability(["AS", "AS", "AS"], two, 104) == 0.0
    assert window_probability(["AS", "AS"], two, 104) == pytest.approx(2 / 104 * 1 / 103)


def test_runs_expected_fall_with_length_and_the_p_value_with_them() -> None:
    rng = random.Random(3)
    shoe = [r + s for r in "A23456789TJQK" for s in "SHDC"] * 6
    rng.shuffle(shoe)
    earlier = shoe[:234]
    expected = [slug_expected_runs(earlier, n, 234) for n in range(2, 9)]
    assert all(a > b for a, b in itertools.pairwise(expected))
    assert slug_p_value(expected[-1]) < 1e-8 < slug_p_value(expected[0])
    assert slug_expected_runs(earlier, 300, 234) == 0.0


def _orders(items: str) -> list[tuple[str, ...]]:
    return sorted(set(itertools.permutations(items)))


@pytest.mark.parametrize("items", ["AABBC", "AAABBCD", "ABCDABCD", "AAAABB"])
def test_same_category_neighbours_have_the_exact_mean_and_variance(items: str) -> None:
    orders = _orders(items)
    counts = [sum(a == b for a, b in itertools.pairwise(o)) for o in orders]
    mean = sum(counts) / len(orders)
    variance = sum((c - mean) ** 2 for c in counts) / len(orders)
    found = adjacency_test(list(orders[0]))
    assert found.expected == pytest.approx(mean)
    if variance:
        z = (found.observed - mean) / math.sqrt(variance)
        assert found.statistic == pytest.approx(z)


def test_a_successor_pairs_chance_is_exact_for_one_pair() -> None:
    current = list("AABCD")
    pairs = successor_pairs(list("ABAC"))  # AB, BA, AC
    orders = _orders("AABCD")
    seen = sum(sum(p in pairs for p in itertools.pairwise(o)) for o in orders) / len(orders)
    assert successor_test(pairs, current).expected == pytest.approx(seen)
    kept = list("ABACD")
    assert successor_test(pairs, kept).observed == 3


def test_new_decks_order_is_each_suit_by_rank_either_way() -> None:
    assert ("AS", "2S") in NEW_DECK_PAIRS and ("KH", "QH") in NEW_DECK_PAIRS
    assert ("KS", "AS") not in NEW_DECK_PAIRS and ("2S", "3H") not in NEW_DECK_PAIRS
    assert len(NEW_DECK_PAIRS) == 4 * 12 * 2
