"""The shuffle tests' false-alarm rate and power on a small seeded run of the measuring
script (`bench/shuffle_quality.py`; docs/analytics.md gives the full run's figures).

Fair shoes at level 0.01 per test: each test's share of alerting shoes stays within the
99.9 % range of Binomial(400, 0.01) (at most 12 of 400 shoes; a test that alerts at
twice its level fails this about half the time); the bad shoes are caught at the power
the full run measured, less a margin for the smaller run."""

from __future__ import annotations

import pytest

from bench.shuffle_quality import TESTS, measure
from floord.analytics.shuffle_watch import CLUMPING, CORRELATION, SLUG, ShuffleSetup

pytestmark = pytest.mark.unit

LEVEL = 0.01
SETUP = ShuffleSetup(level_slug=LEVEL, level_correlation=LEVEL, level_clumping=LEVEL)
# (scenario, test, least share caught in 25 trials)
POWER = [
    ("false_shuffle", SLUG, 1.0),
    ("false_shuffle", CORRELATION, 1.0),
    ("slug_10", SLUG, 0.95),
    ("slug_20", SLUG, 1.0),
    ("slug_30", SLUG, 1.0),
    ("riffle_1", CORRELATION, 1.0),
    ("riffle_2", CORRELATION, 1.0),
    ("riffle_3", CORRELATION, 0.8),
    ("new_decks_riffle_3", CORRELATION, 0.95),
]


def test_fair_shoes_alert_at_the_level_and_bad_ones_are_caught() -> None:
    wanted = tuple(dict.fromkeys(name for name, _, _ in POWER))
    found = measure(400, 25, decks=6, dealt=234, setup=SETUP, seed=40, only=wanted)
    fair = found["fair"]
    for test in TESTS:
        assert fair[test] * 400 <= 12, (test, fair)
    assert fair[SLUG] + fair[CORRELATION] + fair[CLUMPING] >= fair["any"] > 0
    for name, test, least in POWER:
        assert found[name][test] >= least, (name, test, found[name])
