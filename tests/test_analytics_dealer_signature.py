"""Dealer signature: release-to-result distance against uniform, per dealer."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from scipy import stats

from floord.analytics.dealer_signature import DealerSignature
from floord.analytics.wheel_watch import roulette_order

pytestmark = pytest.mark.unit

ORDER = roulette_order("single_zero")
N = len(ORDER)


def _dealer(rng: random.Random, target: int | None) -> Callable[[], tuple[str, str]]:
    """A dealer's spins as (release pocket, result pocket). With a target, the result lands
    within ±2 pockets of `target` pockets clockwise from release 20 % more often than fair
    (probability 1.2 × 5/37 instead of 5/37)."""
    band = [(target + k) % N for k in range(-2, 3)] if target is not None else []
    rest = [d for d in range(N) if d not in band]

    def spin() -> tuple[str, str]:
        release = rng.randrange(N)
        if target is None:
            distance = rng.randrange(N)
        elif rng.random() < 1.2 * 5 / N:
            distance = rng.choice(band)
        else:
            distance = rng.choice(rest)
        return ORDER[release], ORDER[(release + distance) % N]

    return spin


def test_distance_is_clockwise_pockets_from_release_to_result() -> None:
    sig = DealerSignature("single_zero", ORDER, 400, 0.01, 8)
    assert sig.distance("0", "32") == 1  # § 531.1(b): 32 lies clockwise of 0
    assert sig.distance("32", "0") == 36
    assert sig.distance("26", "0") == 1
    assert sig.distance("17", "17") == 0


def test_aiming_dealer_is_caught_within_5000_spins_and_a_fair_one_is_not() -> None:
    """Window 3000, 12 distance bins (about 3 pockets each), level 0.01: a dealer landing
    within ±2 pockets of distance 18 20 % more often than chance is caught within N = 5000
    of their spins on each of 6 seeds; a fair dealer on the same wheel raises at most one."""
    for seed in range(6):
        rng = random.Random(seed)
        aimer, fair = _dealer(rng, 18), _dealer(rng, None)
        sig = DealerSignature("single_zero", ORDER, 3000, 0.01, 12)
        caught, fair_alerts = None, []
        for n in range(1, 5001):
            fair_alerts += sig.add("D-200", *fair())
            found = sig.add("D-100", *aimer())
            if found and caught is None:
                caught = (n, found[0])
        assert caught is not None, f"seed {seed}: aiming dealer not caught in 5000 spins"
        alert = caught[1]
        assert alert["test"] == "dealer_signature" and alert["dealer"] == "D-100"
        assert alert["p_value"] < 0.01 and alert["dof"] == 11
        top = {m for cell in alert["over_represented"] for m in cell["members"]}
        assert {"16", "17", "18", "19", "20"} & top
        assert len(fair_alerts) <= 1  # level 0.01: an occasional fair excursion, no more


def test_fair_dealers_false_alarm_rate_is_the_level() -> None:
    """400 dealers, each one window of fair spins: alerts ~ Binomial(400, 0.05)."""
    rng = random.Random(99)
    sig = DealerSignature("double_zero", roulette_order("double_zero"), 380, 0.05, 10)
    order = roulette_order("double_zero")
    alerts = 0
    for dealer in range(400):
        for _ in range(380):
            alerts += len(sig.add(f"D-{dealer}", rng.choice(order), rng.choice(order)))
    low, high = stats.binom.ppf(0.0005, 400, 0.05), stats.binom.ppf(0.9995, 400, 0.05)
    assert low <= alerts <= high


def test_statistics_match_scipy_for_the_same_counts() -> None:
    rng = random.Random(5)
    sig = DealerSignature("single_zero", ORDER, 370, 0.01, 37)
    spin = _dealer(rng, 7)
    counts = [0] * N
    for _ in range(370):
        release, result = spin()
        counts[sig.distance(release, result)] += 1
        sig.add("D-1", release, result)
    ours = sig.statistics("D-1")
    theirs = stats.chisquare(counts)
    assert ours is not None and ours["dealer"] == "D-1"
    assert ours["statistic"] == pytest.approx(theirs.statistic, rel=1e-12)
    assert ours["p_value"] == pytest.approx(theirs.pvalue, rel=1e-9)
    assert sig.statistics("D-2") is None


def test_bad_input_is_a_clear_error() -> None:
    sig = DealerSignature("single_zero", ORDER, 400, 0.01, 8)
    with pytest.raises(ValueError, match="release"):
        sig.add("D-1", "00", "17")
    with pytest.raises(ValueError, match="dealer id"):
        sig.add("", "0", "17")
    with pytest.raises(ValueError, match="Roulette wheel kind"):
        DealerSignature("big_six", ORDER, 400, 0.01, 8)
    with pytest.raises(ValueError, match="window"):
        DealerSignature("single_zero", ORDER, 30, 0.01, 8)
