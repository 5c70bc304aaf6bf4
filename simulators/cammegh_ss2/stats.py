"""The wheel's own fairness statistic, as `*w` reports it: chi-squared over its pockets.

A real wheel keeps a count of every pocket it produced and reports how far the counts are
from uniform. The twin does the same with its own results, so a demo's `*w` is a true
statement about the spins it made, not a made-up figure.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable


def chi_squared(counts: Counter[str], labels: Iterable[str]) -> float:
    """Pearson's chi-squared of `counts` against a uniform wheel with `labels` pockets."""
    labels = list(labels)
    total = sum(counts[label] for label in labels)
    if total == 0:
        return 0.0
    expected = total / len(labels)
    return sum((counts[label] - expected) ** 2 / expected for label in labels)


def _lower_series(a: float, x: float) -> float:
    # Regularised lower incomplete gamma P(a, x), series form (x < a + 1).
    term = 1.0 / a
    total = term
    n = a
    for _ in range(1000):
        n += 1.0
        term *= x / n
        total += term
        if abs(term) < abs(total) * 1e-15:
            break
    return total * math.exp(-x + a * math.log(x) - math.lgamma(a))


def _upper_fraction(a: float, x: float) -> float:
    # Regularised upper incomplete gamma Q(a, x), Lentz's continued fraction (x >= a + 1).
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, 1000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h * math.exp(-x + a * math.log(x) - math.lgamma(a))


def p_value(chi2: float, dof: int) -> float:
    """The chance that a fair wheel scores at least `chi2` (upper tail, `dof` degrees)."""
    if dof <= 0:
        raise ValueError(f"degrees of freedom > 0 expected, found {dof}")
    if chi2 <= 0:
        return 1.0
    a, x = dof / 2.0, chi2 / 2.0
    if x < a + 1.0:
        return max(0.0, 1.0 - _lower_series(a, x))
    return min(1.0, _upper_fraction(a, x))


def statistics_reply(counts: Counter[str], labels: Iterable[str]) -> str:
    """`*w <chi-squared> <percent>`: the percent is the chance a fair wheel does worse."""
    labels = list(labels)
    chi2 = chi_squared(counts, labels)
    percent = 100.0 * p_value(chi2, len(labels) - 1)
    return f"*w {chi2:.2f} {percent:.1f}"
