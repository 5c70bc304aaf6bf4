"""The false-alarm rate and the power of the shuffle tests, on seeded simulated shoes.

Runs the live code (`floord.analytics.shuffle_watch.ShuffleWatch`, tuned as a table's
`shuffle_quality:` defaults or as given) over simulated shoes (`bench.shuffle_models`):

- false alarms: a run of fair shoes (Fisher-Yates), each dealt to its cutting card; the
  share of shoes on which each test alerted;
- power: fair shoes and shoes shuffled badly taking turns (so every bad shoe is compared
  with a fair one and with the table's history), the share of bad shoes each test, and
  any test, caught: a poor riffle (k Gilbert-Shannon-Reeds riffles and a cut), a false
  shuffle (the order kept, a cut), a slug of N cards, and new decks (each suit ace to
  king, as they leave the box) given k riffles, for the clumping test.

Run: `python -m bench.shuffle_quality [--shoes 5000] [--trials 1000] [--seed 1]`; prints
one JSON object. docs/analytics.md gives the figures of the default run;
`tests/test_analytics_shuffle_rates.py` checks a smaller run against stated bounds.
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from collections.abc import Callable
from typing import Any

from bench.shuffle_models import Shuffle, fair, false_shuffle, new_decks, riffle, slug
from floord.analytics.shuffle_watch import CLUMPING, CORRELATION, SLUG, ShuffleSetup, ShuffleWatch

TESTS = (SLUG, CORRELATION, CLUMPING)
Scenario = Callable[[list[str], random.Random], list[str]]


def _deal(watch: ShuffleWatch, stack: list[str], dealt: int) -> list[dict[str, Any]]:
    alerts = watch.loaded(None)
    for card in stack[:dealt]:
        alerts += watch.drawn(None, card)
    return alerts


def false_alarms(
    shoes: int, decks: int, dealt: int, setup: ShuffleSetup, seed: int
) -> dict[str, Any]:
    """The share of fair shoes on which each test alerted (each shoe's end tests run
    when the next is loaded, so the last shoe is dealt and closed with `empty`)."""
    rng = random.Random(seed)
    watch = ShuffleWatch(setup)
    stack = new_decks(decks)
    alerted: dict[str, set[int]] = {t: set() for t in TESTS}
    for _ in range(shoes):
        stack = fair(stack, rng)
        for alert in _deal(watch, stack, dealt):
            alerted[alert["test"]].add(alert["shoe"])
    for alert in watch.empty(None):
        alerted[alert["test"]].add(alert["shoe"])
    any_test = set().union(*alerted.values())
    return {
        "shoes": shoes,
        **{t: len(s) / shoes for t, s in alerted.items()},
        "any": len(any_test) / shoes,
    }


def power(
    scenario: Scenario, trials: int, decks: int, dealt: int, setup: ShuffleSetup, seed: int
) -> dict[str, Any]:
    """The share of `trials` bad shoes each test (and any) caught, fair shoes between."""
    rng = random.Random(seed)
    watch = ShuffleWatch(setup)
    stack = fair(new_decks(decks), rng)
    alerts: list[dict[str, Any]] = []
    bad: set[int] = set()
    for _ in range(setup.history):  # the table's history, before the first bad shoe
        alerts += _deal(watch, stack, dealt)
        stack = fair(stack, rng)
    for _ in range(trials):
        alerts += _deal(watch, stack, dealt)
        stack = scenario(stack, rng)
        alerts += _deal(watch, stack, dealt)
        bad.add(watch.shoes)
        stack = fair(stack, rng)
    alerts += watch.empty(None)
    caught: dict[str, set[int]] = {t: set() for t in TESTS}
    for alert in alerts:
        if alert["shoe"] in bad:
            caught[alert["test"]].add(alert["shoe"])
    any_test = set().union(*caught.values())
    return {
        "trials": trials,
        **{t: len(s) / trials for t, s in caught.items()},
        "any": len(any_test) / trials,
    }


def from_new_decks(decks: int, shuffle: Shuffle) -> Scenario:
    """New decks, in the box's order, shuffled by `shuffle` (the previous shoe unused)."""
    return lambda stack, rng: shuffle(new_decks(decks), rng)


def scenarios(decks: int, dealt: int) -> dict[str, Scenario]:
    found: dict[str, Scenario] = {f"riffle_{k}": riffle(k) for k in (1, 2, 3, 4, 5, 6, 7)}
    found["false_shuffle"] = false_shuffle
    for n in (10, 20, 30):
        found[f"slug_{n}"] = slug(n, dealt)
    for k in (3, 4, 5, 6):
        found[f"new_decks_riffle_{k}"] = from_new_decks(decks, riffle(k))
    return found


def measure(
    shoes: int,
    trials: int,
    decks: int,
    dealt: int,
    setup: ShuffleSetup,
    seed: int,
    only: tuple[str, ...] | None = None,
) -> dict[str, Any]:
    found: dict[str, Any] = {
        "decks": decks,
        "dealt": dealt,
        "setup": vars(setup),
        "seed": seed,
        "fair": false_alarms(shoes, decks, dealt, setup, seed),
    }
    for n, (name, scenario) in enumerate(scenarios(decks, dealt).items()):
        if only is None or name in only:
            found[name] = power(scenario, trials, decks, dealt, setup, seed + 1 + n)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shoes", type=int, default=5000, help="fair shoes")
    parser.add_argument("--trials", type=int, default=1000, help="bad shoes per scenario")
    parser.add_argument("--decks", type=int, default=6)
    parser.add_argument("--dealt", type=int, default=234, help="cards dealt a shoe")
    parser.add_argument("--level", type=float, default=0.001, help="every test's level")
    parser.add_argument("--seed", type=int, default=1)
    ns = parser.parse_args()
    setup = ShuffleSetup(level_slug=ns.level, level_correlation=ns.level, level_clumping=ns.level)
    print(
        json.dumps(
            measure(ns.shoes, ns.trials, ns.decks, ns.dealt, setup, ns.seed), indent=1, default=str
        )
    )


def counted(alerts: list[dict[str, Any]]) -> Counter[str]:
    return Counter(a["test"] for a in alerts)


if __name__ == "__main__":
    main()
