"""The demo's two Cammegh SS2 roulette wheels, RL-01 and RL-02, each on its own pty.

Each plays a scenario file of `simulators/scenarios/` (RL-01 `demo.yaml`: fair spins and
now and then a fault; RL-02 `fair.yaml`: fair spins only). A spin without a number is
drawn by the simulator's own random generator, which runs on across the scenario's loops;
the generator's seed is the run's (`wheel_seed`), not the file's, so every run of the
demo spins fresh numbers and `floord demo --seed N` spins a run's again.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

from floord.profiles import load_profile

SCENARIOS = Path(__file__).resolve().parents[2] / "simulators" / "scenarios"
# (table, wheel type, scenario file, pockets the simulated wheel has)
DEMO_TABLES = [
    ("RL-01", "double_zero_as_single", "demo.yaml", 38),
    ("RL-02", "single_zero", "fair.yaml", 37),
]


def wheel_seed(seed: int, table: str) -> int:
    """The seed of one table's wheel in the run seeded `seed` (one per table, so the
    wheels do not spin the same numbers)."""
    return random.Random(f"{seed}:{table}").randrange(2**31)


def scenario_for(table: str, seed: int) -> Any:
    """The table's scenario, with this run's seed and the table's pockets."""
    from simulators.scenario import load_scenario

    _, _, scenario_file, pockets = next(t for t in DEMO_TABLES if t[0] == table)
    scenario = load_scenario(SCENARIOS / scenario_file)
    return scenario.model_copy(update={"pockets": pockets, "seed": wheel_seed(seed, table)})


def wheel_config(table: str, wheel: str, port: str) -> dict[str, Any]:
    """The table's entry in the demo's config (`docs/configuration.md`)."""
    return {
        "id": table,
        "game": "roulette",
        "rules": {"wheel": wheel},
        "devices": [{"id": "wheel", "profile": "cammegh-ss2", "port": port}],
    }


async def start_wheels(
    speed: float, seed: int
) -> tuple[dict[str, str], list[Any], list[asyncio.Task[Any]]]:
    """Open a pty per wheel and start its simulator: (ports, links, tasks)."""
    from simulators.cammegh_ss2.simulator import Ss2Simulator
    from simulators.link import open_pty_link

    profile = load_profile("cammegh-ss2")
    ports: dict[str, str] = {}
    links: list[Any] = []
    tasks: list[asyncio.Task[Any]] = []
    for table, *_ in DEMO_TABLES:
        link, path = await open_pty_link()
        links.append(link)
        ports[table] = path
        simulator = Ss2Simulator(profile, scenario_for(table, seed), speed=speed)
        tasks.append(asyncio.create_task(simulator.run(link)))
    return ports, links, tasks
