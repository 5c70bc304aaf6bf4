"""The SS2 simulator plays what the spin physics tests look for: a game's rotor speed
and direction as a scenario sets them (`spin: {rpm, direction}`), heard on a real pty as
a host hears the status frames, and the packaged `spin-physics` scenario loads."""

from __future__ import annotations

import asyncio

import pytest
from test_simulator_ss2 import HANG_S, scenario, spin, wheel

from simulators.catalogue import find_scenario
from simulators.scenario import ScenarioError, load_scenario

pytestmark = pytest.mark.system


def test_a_scenario_sets_the_rotor_speed_and_direction_of_a_game() -> None:
    async def body() -> None:
        steps = (spin(number="7", direction="cw", rpm=9.5), spin(number="8", direction="cw"))
        async with wheel(scenario(*steps, mode=1159)) as (_sim, host, task):
            await asyncio.wait_for(task, HANG_S)
            # States 1 to 3: mode bit 4 changes the speed at random after no more bets.
            frames = [f for f in host.frames() if f.state in (1, 2, 3)]
            first = [f for f in frames if f.spin == 1]
            second = [f for f in frames if f.spin == 2]
            assert first and {(f.speed, f.ccw) for f in first} == {(95, False)}
            # Mode bit 1 would reverse the rotor; the scenario's direction wins, and a
            # game without `rpm` draws its speed in the wheel's usual range again.
            assert second and all(not f.ccw and f.speed != 95 for f in second)

    asyncio.run(body())


def test_the_spin_physics_scenario_loads_and_a_bad_rpm_is_refused(tmp_path) -> None:
    steps = load_scenario(find_scenario("spin-physics")).steps
    crafted = [s.spin for s in steps if s.spin is not None and s.spin.rpm is not None]
    assert [(s.direction, s.rpm) for s in crafted] == [("cw", 9.5)]
    bad = tmp_path / "bad.yaml"
    bad.write_text("steps:\n  - spin: {rpm: 0}\n")
    with pytest.raises(ScenarioError, match="rpm"):
        load_scenario(bad)
