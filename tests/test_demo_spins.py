"""The demo's roulette wheels spin fresh numbers in every run, and RL-03 keeps its bias.

RL-03's spins (`floord_demo.sensor_wheel`) come from a generator seeded once per run:
the sector test flags the favoured arc once its window is full, wherever the table
opened, whatever the seed; the pocket test and the dealer signature test never fire;
different seeds give different spins and one run's spins have no period (the looping
scenario's ~300 spins made the dealer signature test flag the demo's fair dealer after a
few minutes). The SS2 wheels draw their numbers from the run's seed, one per table.
"""

from __future__ import annotations

import itertools

import pytest

from floord.analytics.dealer_signature import DealerSignature
from floord.analytics.wheel_watch import WheelWatch, roulette_order
from floord.engine.roulette.sensor import MIN_REVOLUTIONS, same_direction
from floord_demo import sensor_wheel as rl03
from floord_demo.ss2_wheels import DEMO_TABLES, OPENING_S, PASS_SPINS, scenario_for

pytestmark = pytest.mark.unit


def _results(spins: list[dict]) -> list[str]:
    """The numbers the engine takes as results: no § 531.7 no spin among them (a ball
    with the rotor (a), fewer than four revolutions (b), the ball off the wheel (c))."""
    return [
        spin["pocket"]
        for spin in spins
        if not spin.get("off")
        and spin["revolutions"] >= MIN_REVOLUTIONS
        and not same_direction({"ball_direction": spin["ball"], "rotor_direction": spin["rotor"]})
    ]


def _first_spins(seed: int, count: int) -> list[dict]:
    return list(itertools.islice(rl03.spins(seed), count))


@pytest.mark.parametrize("seed", [531, 7, 2026])
def test_the_biased_wheel_alerts_on_its_sector_whenever_the_table_opened(seed: int) -> None:
    """RL-03's numbers, from any first result on (the table may open late), whatever the
    run's seed: the sector test alerts once, on the result that fills its window, naming
    the favoured arc; the pocket test never alerts (no single pocket stands out)."""
    settings = rl03.SURVEILLANCE
    window = settings["window"]
    blocks = 8
    spins = _first_spins(seed, blocks * (rl03.BLOCK + len(rl03.NO_SPINS)))
    numbers = _results(spins)
    assert len(spins) - len(numbers) == blocks * len(rl03.NO_SPINS)
    assert any(s["ball"] == s["rotor"] and s.get("off") for s in spins), "§ 531.7(a)"
    assert any(s["revolutions"] < MIN_REVOLUTIONS and s.get("pocket") for s in spins), "(b)"
    assert _first_spins(seed, len(spins)) == spins, "the seed fixes the spins"
    # Starts over three blocks, across their edges; each run twice the window.
    for first in range(0, 3 * rl03.BLOCK, 7):
        watch = WheelWatch(rl03.WHEEL, roulette_order(rl03.WHEEL), window,
                           settings["level"], settings["roulette_sectors"])  # fmt: skip
        raised = []
        for n, number in enumerate(numbers[first : first + 2 * window], start=1):
            raised += [(n, alert) for alert in watch.add(number)]
        assert [(n, a["test"]) for n, a in raised] == [(window, "sector")], (seed, first)
        top = raised[0][1]["over_represented"][0]
        assert top["label"] == "4..17" and tuple(top["members"]) == rl03.FAVOURED
    # Every spin says where the ball was released (the dealer signature test's input).
    assert all(spin["release"] in roulette_order(rl03.WHEEL) for spin in spins)


def test_the_wheels_spins_are_fresh_in_every_run_and_never_loop() -> None:
    """Two seeds, two runs of spins; one run's spins repeat with no period (the looping
    scenario of 306 spins did); the SS2 wheels' numbers are drawn from the run's seed,
    one per table, not the scenario file's."""
    one, other = _first_spins(1, 3000), _first_spins(2, 3000)
    pairs = [(s.get("pocket"), s["release"]) for s in one]
    assert [s.get("pocket") for s in one[:300]] != [s.get("pocket") for s in other[:300]]
    for period in range(1, 2000):
        assert pairs[period : period + 600] != pairs[:600], period
    seeds = {(t, run): scenario_for(t, run).seed for t, *_ in DEMO_TABLES for run in (1, 2)}
    assert len(set(seeds.values())) == len(seeds), seeds
    assert scenario_for("RL-01", 1).seed == scenario_for("RL-01", 1).seed
    assert scenario_for("RL-01", 1).pockets == 38 and scenario_for("RL-02", 1).pockets == 37


def test_the_ss2_wheels_stand_still_while_their_tables_open() -> None:
    """Each SS2 scenario opens with `OPENING_S` of idle at the wheel's speed; the fair
    wheel's one looped spin is repeated so the idle comes once in `PASS_SPINS` spins."""
    for table, *_ in DEMO_TABLES:
        steps = scenario_for(table, 1, speed=6.0).steps
        assert steps[0].idle is not None and steps[0].idle >= 6.0 * OPENING_S, table
        assert sum(step.spin is not None for step in steps) >= 10, table
    fair = scenario_for("RL-02", 1, speed=6.0).steps
    assert sum(step.spin is not None for step in fair) >= PASS_SPINS
    assert [step.idle is not None for step in fair].count(True) == 1


@pytest.mark.parametrize("seed", [531, 7])
def test_the_demo_dealer_is_fair_for_the_dealer_signature_test(seed: int) -> None:
    """Minutes of RL-03's spins (6000 results) raise no dealer signature alert at the
    demo's settings: each release-to-result distance comes once per 37 results."""
    settings = rl03.SURVEILLANCE
    test = DealerSignature(rl03.WHEEL, roulette_order(rl03.WHEEL), settings["dealer_window"],
                           settings["level"], settings["dealer_bins"])  # fmt: skip
    spins = _first_spins(seed, 6000 * (rl03.BLOCK + len(rl03.NO_SPINS)) // rl03.BLOCK)
    results = [s for s in spins if s.get("pocket") and s["revolutions"] >= MIN_REVOLUTIONS
               and not s.get("off") and s["ball"] != s["rotor"]]  # fmt: skip
    alerts = [a for s in results for a in test.add("DL-DEMO", s["release"], s["pocket"])]
    assert not alerts, alerts[0]


def test_the_sensor_wheel_kit_plays_its_spins_for_ever() -> None:
    """The kit's scenario opens with the table, then its first block's spins (checked
    like any scenario); the kit goes on with the spins that follow, in order, past the
    scenario's end."""
    sim = rl03.build_simulator(531)  # validated against the kit's scenario model
    steps = sim.scenario.steps
    assert not sim.scenario.loop and sim.scenario.pockets == 37
    assert steps[0].idle == rl03.OPENING_S * rl03.KIT_SPEED, "the table opens first"
    played = list(itertools.islice(sim._passes(list(steps), 0), 1 + 2 * 3 * len(steps)))
    spins = [step.spin.model_dump() for step in played if step.spin]
    expected = _first_spins(531, len(spins))
    keys = ("pocket", "release", "rotor", "ball", "revolutions")
    assert [(*(s[k] for k in keys), s["off"]) for s in spins] == [
        (*(e.get(k) for k in keys), bool(e.get("off"))) for e in expected
    ]
    assert len(spins) > 2 * len(steps), "on past the scenario's own steps"
    # Between spins the wheel rests a moment: a dealer may sign in there.
    assert all(played[i + 1].idle for i, step in enumerate(played[:-1]) if step.spin)
    slow = rl03.build_simulator(531, 4.0).scenario.steps
    assert slow[1].spin is not None and slow[1].spin.seconds == 4 * steps[1].spin.seconds
