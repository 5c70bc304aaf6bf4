"""Wheel watch: false alarms at the stated level, a sector bias caught, § 531.1 sectors."""

from __future__ import annotations

import copy
import random
from collections import Counter
from collections.abc import Callable

import pytest
from scipy import stats

from floord.analytics.wheel_watch import WheelWatch, roulette_order, sector_arcs
from floord.engine.roulette.layout import DOUBLE_ZERO_ORDER, SINGLE_ZERO_ORDER

pytestmark = pytest.mark.unit

SINGLE = roulette_order("single_zero")
_LAYOUT = (  # 58 Pa. Code § 533.1(b)
    "joker $1 $2 $1 $5 $2 $1 $10 $1 $5 $1 $2 $1 $20 $1 $2 $1 $5 $2 $1 $10 $1 $2 $5 $1 $2 $1 "
    "flag $2 $5 $2 $1 $2 $1 $10 $1 $5 $1 $2 $1 $20 $1 $2 $1 $5 $2 $1 $10 $1 $2 $5 $1 $2 $1"
)
BIG_SIX_ORDER = _LAYOUT.split()
BIG_SIX_COUNTS = {"$1": 23, "$2": 15, "$5": 8, "$10": 4, "$20": 2, "flag": 1, "joker": 1}


def _binomial_band(trials: int, p: float) -> tuple[float, float]:
    """The central 99.9 % range of a Binomial(trials, p) count."""
    return stats.binom.ppf(0.0005, trials, p), stats.binom.ppf(0.9995, trials, p)


@pytest.mark.parametrize("level", [0.05, 0.01])
def test_fair_wheel_false_alarm_rate_is_the_level(level: float) -> None:
    """Independent windows of a fair wheel: each window's first evaluation alerts with
    probability `level`, so over 400 windows the count of alerts is Binomial(400, level)."""
    rng = random.Random(531)
    windows, window = 400, 370
    alarms: Counter[str] = Counter()
    for _ in range(windows):
        watch = WheelWatch("single_zero", SINGLE, window, level, 6)
        alerts = []
        for _ in range(window):
            alerts += watch.add(rng.choice(SINGLE))
        alarms.update(a["test"] for a in alerts)
    low, high = _binomial_band(windows, level)
    for test in ("pocket", "sector"):
        assert low <= alarms[test] <= high, (test, alarms[test], (low, high))


def test_fair_wheel_long_run_alerts_stay_rare_and_never_repeat_per_excursion() -> None:
    rng = random.Random(11)
    watch = WheelWatch("double_zero", list(DOUBLE_ZERO_ORDER), 400, 0.001, 8)
    alerts = [a for _ in range(20_000) for a in watch.add(rng.choice(DOUBLE_ZERO_ORDER))]
    # 19 601 evaluations per test at level 0.001: about 20 evaluations below the level in
    # all, bunched into excursions; one alert per excursion keeps the count well below that.
    assert len([a for a in alerts if a["test"] == "pocket"]) <= 10
    assert len([a for a in alerts if a["test"] == "sector"]) <= 10


def _sector_biased(rng: random.Random, start: int, extra: float) -> Callable[[], str]:
    """A single-zero wheel whose 7 neighbouring pockets from `start` (in § 531.1(b) order)
    come up with probability 7/37 + extra instead of 7/37."""
    hot = [SINGLE[(start + i) % 37] for i in range(7)]
    cold = [p for p in SINGLE if p not in hot]
    p_hot = 7 / 37 + extra

    def spin() -> str:
        return rng.choice(hot) if rng.random() < p_hot else rng.choice(cold)

    return spin


@pytest.mark.parametrize("start", [0, 10, 23])
def test_sector_bias_of_4_points_on_7_pockets_is_caught_within_6000_spins(start: int) -> None:
    """7 adjacent pockets at 18.9 % + 4 points (each pocket ~21 % more likely than fair):
    window 2000, 8 sectors, level 0.001; on every one of 6 seeds the sector test alerts
    within N = 6000 spins, and the top over-represented sector holds hot pockets."""
    hot = {SINGLE[(start + i) % 37] for i in range(7)}
    for seed in range(6):
        spin = _sector_biased(random.Random(seed), start, 0.04)
        watch = WheelWatch("single_zero", SINGLE, 2000, 0.001, 8)
        caught = None
        for n in range(1, 6001):
            sector = [a for a in watch.add(spin()) if a["test"] == "sector"]
            if sector:
                caught = (n, sector[0])
                break
        assert caught is not None, f"seed {seed}: not caught in 6000 spins"
        alert = caught[1]
        assert alert["p_value"] < 0.001 and alert["dof"] == 7 and alert["window"] == 2000
        assert hot & set(alert["over_represented"][0]["members"])


def test_sector_alert_is_raised_once_per_excursion_below_the_level() -> None:
    """Biased, fair, biased again: one alert per run of evaluations below the level, and
    the test re-arms only once its p-value is back at or above the level."""
    rng = random.Random(3)
    watch = WheelWatch("single_zero", SINGLE, 370, 0.01, 6)
    biased = _sector_biased(rng, 5, 0.25)
    plan = [biased] * 1500 + [lambda: rng.choice(SINGLE)] * 1500 + [biased] * 1500
    alerts, below = 0, []
    for spin in plan:
        alerts += len([a for a in watch.add(spin()) if a["test"] == "sector"])
        if watch.sector.last is not None:
            below.append(watch.sector.last["p_value"] < 0.01)
    excursions = sum(1 for i, b in enumerate(below) if b and (i == 0 or not below[i - 1]))
    assert alerts == excursions
    assert 2 <= excursions < sum(below) // 50  # hundreds of spins below, a handful of alerts
    # below[i] is the evaluation at spin 370 + i: end of each biased run, end of the fair run
    assert below[1500 - 370] and not below[3000 - 370] and below[-1]


@pytest.mark.parametrize(
    ("kind", "order"),
    [("single_zero", SINGLE_ZERO_ORDER), ("double_zero", DOUBLE_ZERO_ORDER)],
)
def test_sectors_are_arcs_of_the_531_1_physical_order(kind: str, order: tuple) -> None:
    watch = WheelWatch(kind, list(order), 1000, 0.01, 5)
    arcs = [c.members for c in watch.sector.categories]
    assert [p for arc in arcs for p in arc] == list(order)
    assert {len(a) for a in arcs} <= {len(order) // 5, len(order) // 5 + 1}
    # pockets neighbouring on the wheel but far apart in number are one sector
    neighbours = set(order[1:6])  # 32 15 19 4 21 on a single-zero wheel
    target = next(i for i, a in enumerate(arcs) if neighbours <= set(a))
    rng = random.Random(1)
    alerts = []
    for _ in range(1000):
        pocket = rng.choice(sorted(neighbours)) if rng.random() < 0.3 else rng.choice(order)
        alerts += watch.add(pocket)
    sector = next(a for a in alerts if a["test"] == "sector")
    assert sector["over_represented"][0]["members"] == list(arcs[target])


def test_sector_arcs_split_evenly_and_reject_bad_counts() -> None:
    assert sector_arcs(SINGLE, 37) == [(i,) for i in range(37)]
    assert [len(a) for a in sector_arcs(SINGLE, 8)] == [4, 5, 4, 5, 5, 4, 5, 5]
    for bad in (1, 38, "4"):
        with pytest.raises(ValueError, match="sectors"):
            sector_arcs(SINGLE, bad)


def test_double_zero_as_single_refuses_00_and_expects_37_pockets() -> None:
    watch = WheelWatch("double_zero_as_single", list(DOUBLE_ZERO_ORDER), 370, 0.01, 4)
    assert len(watch.pocket.categories) == 37
    assert sum(c.probability for c in watch.sector.categories) == pytest.approx(1.0)
    with pytest.raises(ValueError, match=r"531\.1\(d\)"):
        watch.add("00")


def test_big_six_expected_distribution_is_by_section_frequency() -> None:
    watch = WheelWatch("big_six", BIG_SIX_ORDER, 540, 0.01, 6, section_counts=BIG_SIX_COUNTS)
    probs = {c.label: c.probability for c in watch.pocket.categories}
    assert probs == pytest.approx({s: n / 54 for s, n in BIG_SIX_COUNTS.items()})
    rng = random.Random(533)
    alerts = []
    for _ in range(540):  # a fair clapper: a uniformly chosen section
        i = rng.randrange(54)
        alerts += watch.add(BIG_SIX_ORDER[i], position=i)
    [pocket, sector] = watch.statistics()
    labels = [c.label for c in watch.pocket.categories]
    theirs = stats.chisquare(watch.pocket.counts, [probs[s] * 540 for s in labels])
    assert pocket["statistic"] == pytest.approx(theirs.statistic, rel=1e-12)
    assert pocket["p_value"] == pytest.approx(theirs.pvalue, rel=1e-9)
    assert pocket["dof"] == 6 and sector["dof"] == 5
    # a clapper sticking on the $20 sections is over-represented first
    for _ in range(60):
        alerts += watch.add("$20", position=13)
    flagged = [a for a in alerts if a["test"] == "pocket"]
    assert flagged and flagged[-1]["over_represented"][0]["label"] == "$20"


def test_bad_configuration_and_results_are_clear_errors() -> None:
    with pytest.raises(ValueError, match="unknown wheel kind"):
        WheelWatch("triple_zero", SINGLE, 400, 0.01, 4)
    with pytest.raises(ValueError, match="each of the 37 pockets"):
        WheelWatch("single_zero", SINGLE[:-1], 400, 0.01, 4)
    with pytest.raises(ValueError, match="at least 185"):
        WheelWatch("single_zero", SINGLE, 100, 0.01, 4)
    with pytest.raises(ValueError, match="level"):
        WheelWatch("single_zero", SINGLE, 400, 1.5, 4)
    with pytest.raises(ValueError, match="section_counts"):
        WheelWatch("big_six", BIG_SIX_ORDER, 540, 0.01, 0)
    with pytest.raises(ValueError, match="do not match"):
        WheelWatch("big_six", BIG_SIX_ORDER, 540, 0.01, 0, section_counts={"$1": 54})
    watch = WheelWatch("single_zero", SINGLE, 400, 0.01, 0)
    assert watch.sector is None
    with pytest.raises(ValueError, match="not a result"):
        watch.add("00")
    six = WheelWatch("big_six", BIG_SIX_ORDER, 540, 0.01, 6, section_counts=BIG_SIX_COUNTS)
    with pytest.raises(ValueError, match="section index"):
        six.add("$1")
    with pytest.raises(ValueError, match="does not show"):
        six.add("$1", position=0)


def test_a_deep_copy_of_a_watch_runs_apart_from_it() -> None:
    """The runner copies a table's state at every commit, to roll back to: the copy
    shares only what never changes (the cells), and each side counts on its own."""
    rng = random.Random(5)
    watch = WheelWatch("single_zero", SINGLE, 370, 0.01, 6)
    for _ in range(400):
        watch.add(rng.choice(SINGLE))
    twin = copy.deepcopy(watch)
    assert twin.pocket.categories is watch.pocket.categories
    assert twin.statistics() == watch.statistics()
    before = watch.statistics()
    spins = [rng.choice(SINGLE) for _ in range(50)]
    for spin in spins:
        twin.add(spin)
    assert watch.statistics() == before
    assert list(watch.pocket._recent) != list(twin.pocket._recent)
    for spin in spins:
        watch.add(spin)
    assert watch.statistics() == twin.statistics()
    assert watch.pocket.counts == twin.pocket.counts
