"""False-alarm rates and power of the pace and spin physics tests, from seeded runs.

`python -m bench.wheel_physics_rates [--seeds N]` plays fair wheels and crafted ones
(`floord.analytics.wheel_physics`, default settings) and prints one JSON line per case:
how many alerts fair wheels raise per 10,000 results, and on a crafted wheel the share of
runs that alert and the median results to the first alert. The models of a fair wheel
are stated in each case (`docs/analytics.md`, "Pace and spin physics", holds the
figures); every run is seeded, so the figures are the same on every machine.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

from floord.analytics.pace import PaceSettings
from floord.analytics.spin_physics import SpinSettings
from floord.analytics.wheel_physics import SpinRecord, WheelPhysics
from floord.analytics.wheel_watch import roulette_order
from floord.contract import format_ts

ORDER = tuple(roulette_order("single_zero"))
START = datetime(2026, 1, 1, tzinfo=UTC)
Spin = dict[str, Any]
Model = Callable[[random.Random, int], Spin]


def fair(rng: random.Random, n: int) -> Spin:
    """A fair wheel and dealer: intervals log-normal about 47 s (sigma 0.25), the rotor
    alternating, 17.2 rpm (sd 0.5), 12 laps (sd 1.5) at 1.25 a second (sd 0.06, the
    dealer's hand and the link's delays together), any release-to-result distance."""
    return {
        "rps": round(rng.gauss(1.25, 0.06), 4),
        "interval": 47.0 * rng.lognormvariate(0, 0.25),
        "rotor": "cw" if n % 2 == 0 else "ccw",
        "rpm": round(rng.gauss(17.2, 0.5), 1),
        "revolutions": max(4, round(rng.gauss(12, 1.5))),
        "distance": rng.randrange(len(ORDER)),
    }


def slow_dealer(rng: random.Random, n: int) -> Spin:
    return {**fair(rng, n), "interval": 100.0 * rng.lognormvariate(0, 0.25)}  # 36 an hour


def fast_dealer(rng: random.Random, n: int) -> Spin:
    return {**fair(rng, n), "interval": 25.0 * rng.lognormvariate(0, 0.25)}  # 144 an hour


def uneven_dealer(rng: random.Random, n: int) -> Spin:
    return {**fair(rng, n), "interval": 47.0 * rng.lognormvariate(0, 0.45)}


def dealer_at_120(rng: random.Random, n: int) -> Spin:
    return {**fair(rng, n), "interval": 30.0 * rng.lognormvariate(0, 0.25)}


def one_way_rotor(rng: random.Random, n: int) -> Spin:
    return {**fair(rng, n), "rotor": "cw"}


def rotor_skips(rng: random.Random, n: int) -> Spin:
    """The rotor fails to change direction on about one game in twenty."""
    spin = fair(rng, n)
    spin["rotor"] = "skip" if rng.random() < 0.05 else spin["rotor"]
    return spin


def hard_ball(rng: random.Random, n: int) -> Spin:
    """One ball in fifty spun twice as hard: 24 laps instead of 12."""
    spin = fair(rng, n)
    if rng.random() < 0.02:
        spin["revolutions"] = max(4, round(rng.gauss(24, 1.5)))
    return spin


def fast_ball(rng: random.Random, n: int) -> Spin:
    """One ball in fifty spun half as fast again: 1.9 laps a second instead of 1.25."""
    spin = fair(rng, n)
    if rng.random() < 0.02:
        spin["rps"] = round(rng.gauss(1.9, 0.06), 4)
    return spin


def drop_zone(rng: random.Random, n: int) -> Spin:
    """One spin in four lands within 5 pockets of the same distance from release."""
    spin = fair(rng, n)
    if rng.random() < 0.25:
        spin["distance"] = 10 + rng.randrange(5)
    return spin


def faint_drop_zone(rng: random.Random, n: int) -> Spin:
    """One spin in ten lands within 5 pockets of the same distance from release."""
    spin = fair(rng, n)
    if rng.random() < 0.1:
        spin["distance"] = 10 + rng.randrange(5)
    return spin


def records(model: Model, seed: int, count: int) -> Iterator[SpinRecord]:
    rng = random.Random(seed)
    at, last_rotor = START, "ccw"
    for n in range(count):
        spin = model(rng, n)
        at += timedelta(seconds=spin["interval"])
        rotor = spin["rotor"] if spin["rotor"] != "skip" else last_rotor
        last_rotor = rotor
        release = rng.randrange(len(ORDER))
        result = ORDER[(release + spin["distance"]) % len(ORDER)]
        yield SpinRecord(
            format_ts(at),
            result,
            "D1",
            n + 1,
            rotor,
            spin["rpm"],
            spin["revolutions"],
            ORDER[release],
            spin["rps"],
        )


def run(model: Model, seed: int, count: int, tests: set[str]) -> list[int]:
    """The result numbers (from 1) at which the named tests alerted."""
    return [n for n, test in alerts(model, seed, count) if test in tests]


def alerts(model: Model, seed: int, count: int) -> list[tuple[int, str]]:
    """(result number from 1, test) of every alert of a seeded run, default settings."""
    physics = WheelPhysics("single_zero", ORDER, 0.001, PaceSettings(), SpinSettings())
    found = []
    for n, record in enumerate(records(model, seed, count), start=1):
        found += [(n, a["test"]) for a in physics.add(record)]
    return found


ALL = {"pace", "rotor_direction", "rotor_speed", "ball_revolutions", "ball_speed", "drop_zone"}
CASES: list[tuple[str, Model, set[str], int]] = [  # no tests named: fair, count all
    ("fair wheel", fair, set(), 5000),
    ("fair wheel, uneven dealer (sigma 0.45)", uneven_dealer, set(), 5000),
    ("slow dealer (36 an hour)", slow_dealer, {"pace"}, 200),
    ("fast dealer (144 an hour)", fast_dealer, {"pace"}, 200),
    ("fast dealer (120 an hour)", dealer_at_120, {"pace"}, 200),
    ("rotor turning one way", one_way_rotor, {"rotor_direction"}, 200),
    ("rotor skipping 1 change in 20", rotor_skips, {"rotor_direction"}, 200),
    ("1 ball in 50 spun twice as hard", hard_ball, {"ball_revolutions"}, 500),
    ("1 ball in 50 spun half as fast again", fast_ball, {"ball_speed"}, 500),
    ("drop zone: 1 spin in 4 in one arc", drop_zone, {"drop_zone"}, 1000),
    ("drop zone: 1 spin in 10 in one arc", faint_drop_zone, {"drop_zone"}, 1000),
]


def measure(seeds: int) -> Iterator[dict[str, Any]]:
    for name, model, tests, count in CASES:
        row: dict[str, Any] = {"case": name, "seeds": seeds, "results_per_run": count}
        if not tests:
            hits = [test for seed in range(seeds) for _, test in alerts(model, seed, count)]
            for test in sorted(ALL):
                row[f"{test}_per_10000"] = round(hits.count(test) * 10_000 / (seeds * count), 3)
        else:
            runs = [run(model, seed, count, tests) for seed in range(seeds)]
            alerted = [r[0] for r in runs if r]
            row["power"] = round(len(alerted) / seeds, 3)
            row["median_results_to_alert"] = statistics.median(alerted) if alerted else None
        yield row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20, help="runs per case (default 20)")
    for row in measure(parser.parse_args().seeds):
        print(json.dumps(row))


if __name__ == "__main__":
    main()
