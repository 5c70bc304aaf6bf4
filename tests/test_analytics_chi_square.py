"""The pure-Python chi-square test agrees with scipy's, statistic and p-value."""

from __future__ import annotations

import math
import random
from types import ModuleType

import pytest

from floord.analytics.chi_square import chi2_sf, chi_square, upper_regularized_gamma

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def stats() -> ModuleType:
    """scipy's statistics, imported by the tests that compare with them: every test
    worker collects this file, and only the one that runs it needs scipy."""
    from scipy import stats as scipy_stats

    return scipy_stats


def test_statistic_and_p_value_match_scipy_on_random_count_vectors(stats: ModuleType) -> None:
    rng = random.Random(20240531)
    for _ in range(500):
        k = rng.randint(2, 60)
        weights = [rng.uniform(0.2, 3.0) for _ in range(k)]
        total = rng.randint(5 * k, 200 * k)
        observed = [0] * k
        for cell in rng.choices(range(k), weights, k=total):
            observed[cell] += 1
        n = sum(observed)
        if rng.random() < 0.5:  # the fair uniform hypothesis, or a skewed one
            expected = [n / k] * k
        else:
            w = sum(weights)
            expected = [n * x / w for x in weights]
        ours = chi_square(observed, expected)
        theirs = stats.chisquare(observed, expected)
        assert ours.dof == k - 1
        assert ours.statistic == pytest.approx(theirs.statistic, rel=1e-12, abs=1e-12)
        assert ours.p_value == pytest.approx(theirs.pvalue, rel=1e-9, abs=1e-300)


def test_tail_matches_scipy_over_dof_and_far_into_the_tail(stats: ModuleType) -> None:
    rng = random.Random(7)
    for dof in (1, 2, 3, 5, 7, 36, 37, 53, 100, 1000):
        for _ in range(60):
            x = rng.uniform(0.0, 6.0) * (dof + 10) * rng.random()
            expected = stats.chi2.sf(x, dof)
            assert chi2_sf(x, dof) == pytest.approx(expected, rel=1e-10, abs=1e-300), (x, dof)
    # deep tail: p-values of 1e-50 and below are still right relatively
    assert chi2_sf(300.0, 36) == pytest.approx(stats.chi2.sf(300.0, 36), rel=1e-10)
    assert chi2_sf(0.0, 5) == 1.0
    assert chi2_sf(math.inf, 5) == 0.0


def test_incomplete_gamma_at_non_integer_shapes_matches_scipy(stats: ModuleType) -> None:
    for a in (0.1, 0.5, 1.5, 2.25, 10.7, 250.3):
        for x in (0.01, 0.5, a, a + 1, 2 * a + 3, 10 * a + 20):
            ours = upper_regularized_gamma(a, x)
            assert ours == pytest.approx(stats.gamma.sf(x, a), rel=1e-10, abs=1e-300)


@pytest.mark.parametrize(
    ("observed", "expected", "message"),
    [
        ([1, 2], [1.5], "observed counts"),
        ([3], [3.0], "two categories"),
        ([-1, 4], [1.5, 1.5], "negative"),
        ([1, 2], [3.0, 0.0], "positive"),
        ([1, 2], [1.0, 1.0], "total"),
    ],
)
def test_bad_input_is_a_clear_error(
    observed: list[int], expected: list[float], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        chi_square(observed, expected)


def test_bad_tail_arguments_are_clear_errors() -> None:
    with pytest.raises(ValueError, match="degrees of freedom"):
        chi2_sf(1.0, 0)
    with pytest.raises(ValueError, match="non-negative"):
        chi2_sf(-1.0, 3)
    with pytest.raises(ValueError, match="positive"):
        upper_regularized_gamma(0.0, 1.0)
