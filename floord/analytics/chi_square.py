"""Pearson's chi-square goodness-of-fit test, in pure Python, with its exact tail.

Surveillance's wheel tests need only this one statistic and its p-value, so floord does
not carry a numerical library for them: the p-value of a statistic x on k degrees of
freedom is the upper regularised incomplete gamma function Q(k/2, x/2), computed by its
power series where that converges fast (x < a + 1) and by its continued fraction
(modified Lentz) elsewhere, as in Numerical Recipes § 6.2. Both are accurate to about
1e-14 relative; the tests compare them with scipy.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

_EPS = 1e-16
_TINY = 1e-300
_MAX_ITERATIONS = 10_000


@dataclass(frozen=True)
class ChiSquare:
    """A test's outcome: Pearson's statistic, its degrees of freedom and its p-value."""

    statistic: float
    dof: int
    p_value: float


def _lower_series(a: float, x: float) -> float:
    """P(a, x) by its power series; converges fast for x < a + 1."""
    term = 1.0 / a
    total = term
    n = a
    for _ in range(_MAX_ITERATIONS):
        n += 1.0
        term *= x / n
        total += term
        if abs(term) < abs(total) * _EPS:
            return total * math.exp(-x + a * math.log(x) - math.lgamma(a))
    raise ArithmeticError(f"incomplete gamma series did not converge for a={a}, x={x}")


def _upper_fraction(a: float, x: float) -> float:
    """Q(a, x) by its continued fraction (modified Lentz); converges fast for x >= a + 1."""
    b = x + 1.0 - a
    c = 1.0 / _TINY
    d = 1.0 / b
    h = d
    for i in range(1, _MAX_ITERATIONS):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        if abs(d) < _TINY:
            d = _TINY
        c = b + an / c
        if abs(c) < _TINY:
            c = _TINY
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPS:
            return math.exp(-x + a * math.log(x) - math.lgamma(a)) * h
    raise ArithmeticError(f"incomplete gamma fraction did not converge for a={a}, x={x}")


def upper_regularized_gamma(a: float, x: float) -> float:
    """Q(a, x) = Γ(a, x) / Γ(a) for a > 0, x >= 0."""
    if not a > 0 or not math.isfinite(a):
        raise ValueError(f"the shape a must be a positive number, not {a!r}")
    if not x >= 0:
        raise ValueError(f"x must be a non-negative number, not {x!r}")
    if x == 0:
        return 1.0
    if math.isinf(x):
        return 0.0
    if x < a + 1.0:
        return max(0.0, 1.0 - _lower_series(a, x))
    return _upper_fraction(a, x)


def chi2_sf(statistic: float, dof: int) -> float:
    """The chi-square survival function: P(X >= statistic) for X ~ chi-square(dof)."""
    if isinstance(dof, bool) or not isinstance(dof, int) or dof < 1:
        raise ValueError(f"degrees of freedom must be a positive integer, not {dof!r}")
    return upper_regularized_gamma(dof / 2.0, statistic / 2.0)


def chi_square(observed: Sequence[int], expected: Sequence[float]) -> ChiSquare:
    """Pearson's goodness-of-fit test of counts against expected counts (same total).

    Degrees of freedom are categories - 1 (the expected distribution is fully specified,
    nothing is estimated from the data), matching `scipy.stats.chisquare`.
    """
    if len(observed) != len(expected):
        raise ValueError(f"{len(observed)} observed counts but {len(expected)} expected")
    if len(observed) < 2:
        raise ValueError("a goodness-of-fit test needs at least two categories")
    if any(o < 0 for o in observed):
        raise ValueError("observed counts must not be negative")
    if any(not e > 0 for e in expected):
        raise ValueError("every expected count must be positive")
    total_o = math.fsum(observed)
    total_e = math.fsum(expected)
    if abs(total_o - total_e) > 1e-8 * max(total_o, total_e):
        raise ValueError(f"observed total {total_o} differs from expected total {total_e}")
    statistic = math.fsum((o - e) ** 2 / e for o, e in zip(observed, expected, strict=True))
    dof = len(observed) - 1
    return ChiSquare(statistic, dof, chi2_sf(statistic, dof))
