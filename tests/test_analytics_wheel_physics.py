"""The pace and spin physics tests (`floord.analytics.pace`, `spin_physics`): each fires
on a crafted wheel and stays quiet on a fair one, once per excursion, and the table's
settings are validated as `floord check` reads them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from pydantic import ValidationError

from bench.wheel_physics_rates import fair, hard_ball, run
from floord.analytics.pace import PaceSettings, PaceWatch
from floord.analytics.spin_physics import DropZone, Envelope, RotorAlternation, SpinSettings
from floord.analytics.wheel_watch import roulette_order
from floord.games.roulette_watch import PaceConfig, SpinPhysicsConfig

pytestmark = pytest.mark.unit

T0 = datetime(2026, 3, 1, 12, tzinfo=UTC)
ORDER = roulette_order("single_zero")


def _pace(intervals: list[float], dealers: list[str | None] | None = None):
    watch = PaceWatch(PaceSettings(low=45, high=110, window=10, break_s=300))
    at, alerts = T0, []
    for n, seconds in enumerate([0.0, *intervals]):
        at += timedelta(seconds=seconds)
        found = watch.add(at, dealers[n] if dealers else "D1")
        alerts += [(n, a) for a in found]
    return alerts


def test_pace_is_quiet_inside_the_band_and_alerts_once_per_excursion() -> None:
    assert _pace([47.0] * 100) == []
    # A fast stretch (20 s: 180 an hour), back to normal, and fast again: two alerts each
    # for the table and the dealer, on the interval that takes the window out of the band.
    alerts = _pace([47.0] * 20 + [20.0] * 20 + [47.0] * 20 + [20.0] * 20)
    assert [(n, a["side"], a.get("dealer")) for n, a in alerts] == [
        (26, "above", None),
        (26, "above", "D1"),
        (66, "above", None),
        (66, "above", "D1"),
    ]
    first = alerts[0][1]
    assert first["test"] == "pace" and first["band"] == [45, 110] and first["window"] == 10
    assert first["rounds_per_hour"] == first["statistic"] > 110
    assert "above the band 45 to 110" in first["summary"]


def test_pace_leaves_breaks_out_and_counts_a_dealer_only_between_their_own_results() -> None:
    # A slow table broken by breaks longer than break_s: only the intervals in play count.
    assert _pace([47.0, 47.0, 400.0] * 30) == []
    slow = _pace([100.0] * 12)
    assert {a.get("dealer") for _, a in slow} == {None, "D1"} and slow[0][1]["side"] == "below"
    # Dealers taking turns: the table is slow, no dealer has two results in a row.
    turns = _pace([100.0] * 12, ["D1", "D2"] * 7)
    assert [a.get("dealer") for _, a in turns] == [None]


def test_pace_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="low < high"):
        PaceSettings(low=120, high=110)
    with pytest.raises(ValidationError, match="must be below high"):
        PaceConfig(low=80, high=80)
    with pytest.raises(ValidationError):
        PaceConfig(window=2)
    assert PaceConfig().settings() == PaceSettings()


def test_the_rotor_test_counts_only_consecutive_games_and_alerts_once_per_run() -> None:
    test = RotorAlternation(2)
    assert test.add(1, "cw") == [] and test.add(2, "ccw") == [] and test.add(3, "cw") == []
    [alert] = test.add(4, "cw")
    assert alert["test"] == "rotor_direction" and alert["run"] == 2 and alert["spin"] == 4
    assert test.add(5, "cw") == []  # the same run: one alert
    assert test.add(6, "ccw") == [] and test.add(7, "ccw") != []  # a new run
    # A void in between (spin 9 is missing): the rotor may have turned either way.
    assert test.add(8, "cw") == [] and test.add(10, "cw") == []
    # An SS2's game counter wraps from 256 to 1; a wheel without a direction says nothing.
    assert test.add(256, "ccw") == [] and test.add(1, "ccw") != []
    assert test.add(2, None) == [] and test.add(3, "ccw") == []


def test_the_envelope_is_learned_on_the_wheel_and_alerts_outside_it() -> None:
    test = Envelope("ball_revolutions", 20, 6.0, 0.1)
    values = [10, 11, 12, 13, 14] * 4
    assert [a for v in values for a in test.add(v)] == []  # learning
    assert test.add(16) == []  # inside: 12 +- 6 * 1.4826
    [alert] = test.add(40)
    assert alert["side"] == "above" and alert["value"] == 40 and alert["median"] == 12
    assert alert["envelope"][1] < 40 and alert["z"] > 6
    assert test.add(45) == []  # the same excursion
    assert test.add(12) == [] and test.add(50) != []  # back inside re-arms
    assert test.add(None) == [] and test.add(True) == []  # not reported: not counted


def test_a_constant_measurement_gets_the_narrowest_envelope_not_none() -> None:
    test = Envelope("rotor_speed", 20, 6.0, 0.1)
    for _ in range(20):
        test.add(17.2)
    assert test.add(19.5)[0]["z"] is None  # no spread at all: no z, the alert all the same
    assert test.add(17.2) == [] and test.add(18.0) == []  # within 10 % of the median


def test_a_count_mostly_the_same_falls_back_to_the_mean_absolute_deviation() -> None:
    test = Envelope("ball_revolutions", 20, 6.0, 0.1)
    for v in [12] * 11 + [11, 13] * 4 + [14]:  # the median deviation is 0
        test.add(v)
    assert test.bounds() is not None and test.bounds()[1] > 0
    assert test.add(15) == [] and test.add(9) == []  # a lap or three off: inside
    assert test.add(24) != []


def test_the_drop_zone_test_alerts_on_a_wheel_that_drops_in_one_zone() -> None:
    zone = DropZone("single_zero", ORDER, 80, 0.001, 8)
    spins = [(ORDER[n % 37], ORDER[(n % 37 + n) % 37]) for n in range(80)]
    assert [a for r, p in spins for a in zone.add(r, p)] == []
    biased = [(ORDER[n % 37], ORDER[(n % 37 + 3) % 37]) for n in range(40)]
    alerts = [a for r, p in biased for a in zone.add(r, p)]
    assert len(alerts) == 1 and alerts[0]["test"] == "drop_zone"
    assert alerts[0]["p_value"] < 0.001 and alerts[0]["over_represented"][0]["label"] == "0..3"
    assert zone.add(None, "5") == []  # no release pocket reported


def test_spin_physics_settings_are_checked() -> None:
    with pytest.raises(ValidationError, match="rotor_run"):
        SpinPhysicsConfig(rotor_run=1)
    with pytest.raises(ValidationError, match="envelope_spins"):
        SpinPhysicsConfig(envelope_spins=5)
    with pytest.raises(ValidationError, match="drop_zone_window of at least"):
        SpinPhysicsConfig(drop_zone_bins=37, drop_zone_window=100)
    assert SpinPhysicsConfig().settings() == SpinSettings()


def test_seeded_runs_fair_quiet_and_crafted_caught() -> None:
    """A small version of `bench.wheel_physics_rates`: the same models and settings."""
    tests = {"pace", "rotor_direction", "rotor_speed", "ball_revolutions"}
    assert [run(fair, seed, 1000, tests) for seed in range(3)] == [[], [], []]
    caught = [run(hard_ball, seed, 400, {"ball_revolutions"}) for seed in range(3)]
    assert all(hits and hits[0] > 100 for hits in caught), caught  # after learning
