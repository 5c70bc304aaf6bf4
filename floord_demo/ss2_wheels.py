"""The demo's two Cammegh SS2 roulette wheels, RL-01 and RL-02, each on its own pty.

Each plays a scenario file of `simulators/scenarios/` (RL-01 `demo.yaml`: fair spins and
now and then a fault; RL-02 `fair.yaml`: fair spins only). A spin without a number is
drawn by the simulator's own random generator, which runs on across the scenario's loops;
the generator's seed is the run's (`wheel_seed`), not the file's, so every run of the
demo spins fresh numbers and `floord demo --seed N` spins a run's again.

A wheel stands still while its table opens: the simulators are powered on with the
demo's other devices, once the daemon's drivers have their ports open, and each
scenario begins with `OPENING_S` (real seconds) of idle. A scenario that does not begin
by standing still (`fair.yaml`: one spin, looped) is given that idle at the start of
each pass, its steps repeated so that a pass lasts `PASS_SPINS` spins or more; a wheel
that spun at once had its first spin recorded as `spin_while_not_open`.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

from floord.profiles import load_profile

OPENING_S = 3.0  # real seconds the wheel stands still at first: its table opens
PASS_SPINS = 200  # a looping pass with an opening idle lasts this many spins at least
# (table, wheel type, scenario file, pockets the simulated wheel has)
DEMO_TABLES = [
    ("RL-01", "double_zero_as_single", "demo.yaml", 38),
    ("RL-02", "single_zero", "fair.yaml", 37),
]


def wheel_seed(seed: int, table: str) -> int:
    """The seed of one table's wheel in the run seeded `seed` (one per table, so the
    wheels do not spin the same numbers)."""
    return random.Random(f"{seed}:{table}").randrange(2**31)


def scenario_for(table: str, seed: int, speed: float = 1.0) -> Any:
    """The table's scenario, with this run's seed, the table's pockets and an opening
    idle of `OPENING_S` at `speed` (the wheel's clock)."""
    from simulators.catalogue import scenarios_folder
    from simulators.scenario import Step, load_scenario

    _, _, scenario_file, pockets = next(t for t in DEMO_TABLES if t[0] == table)
    scenario = load_scenario(scenarios_folder() / scenario_file)
    opening = OPENING_S * speed
    steps = list(scenario.steps)
    if steps and steps[0].idle is not None:
        steps[0] = Step(idle=max(steps[0].idle, opening))
    else:
        spins = sum(step.spin is not None for step in steps) or 1
        steps = [Step(idle=opening), *steps * -(-PASS_SPINS // spins)]
    update = {"pockets": pockets, "seed": wheel_seed(seed, table), "steps": steps}
    return scenario.model_copy(update=update)


def wheel_config(table: str, wheel: str, port: str) -> dict[str, Any]:
    """The table's entry in the demo's config (`docs/configuration.md`)."""
    return {
        "id": table,
        "game": "roulette",
        "rules": {"wheel": wheel},
        "devices": [{"id": "wheel", "profile": "cammegh-ss2", "port": port}],
    }


async def open_wheels(speed: float, seed: int) -> tuple[dict[str, str], list[Any], list[Any]]:
    """A pty per wheel and its simulator, not yet powered on: (ports, links, simulators)."""
    from simulators.cammegh_ss2.simulator import Ss2Simulator
    from simulators.link import open_pty_link

    profile = load_profile("cammegh-ss2")
    ports: dict[str, str] = {}
    links: list[Any] = []
    simulators: list[Any] = []
    for table, *_ in DEMO_TABLES:
        link, path = await open_pty_link()
        links.append(link)
        ports[table] = path
        simulators.append(Ss2Simulator(profile, scenario_for(table, seed, speed), speed=speed))
    return ports, links, simulators


def power_on(simulators: list[Any], links: list[Any]) -> list[asyncio.Task[Any]]:
    """Power the wheels on (once the daemon's drivers have their ports open)."""
    return [asyncio.create_task(sim.run(link)) for sim, link in zip(simulators, links, strict=True)]
