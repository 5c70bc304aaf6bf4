"""RL-03, the demo's manual wheel, shows one pace alert (the table's and its dealer's)
and one spin physics alert (the rotor direction) in every run, and nothing else of the
pace and spin physics tests, wherever the table opened and whatever the seed.

The spins are the demo's own (`floord_demo.sensor_wheel.spins`, with `crafted_pace`);
their times are the kit's steps at the demo's speed (spin, gap, the slow dealer's
pauses), and the tests run as RL-03's config sets them (`table_config`)."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import pytest

from floord.analytics.wheel_physics import SpinRecord, WheelPhysics
from floord.analytics.wheel_watch import roulette_order
from floord.engine.roulette.sensor import MIN_REVOLUTIONS
from floord.games.roulette_watch import PaceConfig, SpinPhysicsConfig
from floord_demo import crafted_pace
from floord_demo import sensor_wheel as rl03

pytestmark = pytest.mark.unit

T0 = datetime(2026, 3, 1, 12, tzinfo=UTC)


def _alerts(seed: int, opened_at: int, spins: int = 600) -> list[tuple[int, str, str | None]]:
    config = rl03.table_config("/dev/null")
    physics = WheelPhysics(
        rl03.WHEEL,
        roulette_order(rl03.WHEEL),
        rl03.SURVEILLANCE["level"],
        PaceConfig(**config["pace"]).settings(),
        SpinPhysicsConfig(**config["spin_physics"]).settings(),
    )
    steps = rl03._steps(seed, time_lapse=1.0)
    at, found = T0, []
    for n in range(spins):
        spin, idle = next(steps)["spin"], next(steps)["idle"]
        at += timedelta(seconds=spin["seconds"] + idle)
        result = not spin.get("off") and spin["revolutions"] >= MIN_REVOLUTIONS
        if n < opened_at or not result or spin["ball"] == spin["rotor"]:
            continue
        record = SpinRecord(
            at.isoformat(),
            spin["pocket"],
            "DL-DEMO",
            n + 1,
            spin["rotor"],
            spin["rpm"],
            spin["revolutions"],
            spin["release"],
            None,
        )
        found += [(n, a["test"], a.get("dealer")) for a in physics.add(record)]
    return found


@pytest.mark.parametrize(
    ("seed", "opened_at"), list(itertools.product([531, 7, 2026], [0, 40, 250]))
)
def test_rl03_alerts_once_on_its_pace_and_once_on_its_rotor(seed: int, opened_at: int) -> None:
    found = _alerts(seed, opened_at)
    assert [(test, dealer) for _, test, dealer in found] == [
        ("rotor_direction", None),
        ("pace", None),
        ("pace", "DL-DEMO"),
    ], found
    slip, pace = found[0][0], found[1][0]
    assert crafted_pace.SLIP_AT <= slip < crafted_pace.SLIP_AT + 5
    assert crafted_pace.SLOW_FROM < pace <= crafted_pace.SLOW_FROM + crafted_pace.SLOW_SPINS
    assert slip > 270 + len(rl03.NO_SPINS) * 3  # past the spins the sector test needs
