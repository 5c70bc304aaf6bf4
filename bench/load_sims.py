"""One process of simulated SS2 wheels for the load bench, each on its own TCP port.

The wheels run in a process of their own, apart from the daemons, so that the /proc
figures of a daemon are floord's alone. Each wheel plays fair spins with an idle pause
of its own between games (drawn from the seed), so the tables of a floor do not all
spin in step, as a real floor's do not.

Prints one JSON line, `{"ports": [...]}`, once every wheel listens; runs until SIGTERM
or until its standard input closes (the bench went away).
Run by bench/load_tables.py: `python -m bench.load_sims --tables 50 --seed 0`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import signal
import sys
from typing import Any

from floord.profiles import load_profile
from simulators.cammegh_ss2.simulator import Ss2Simulator
from simulators.link import serve_tcp
from simulators.scenario import Scenario

PAUSE_S = (2.0, 20.0)  # a croupier's pause between games, drawn per table


def wheel_scenario(rng: random.Random, seed: int) -> Scenario:
    """Fair spins for ever, with this table's own pause between games."""
    pause = round(rng.uniform(*PAUSE_S), 1)
    return Scenario.model_validate(
        {"pockets": 37, "seed": seed, "loop": True, "steps": [{"idle": pause}, {"spin": None}]}
    )


async def _stdin_closed() -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), sys.stdin
    )
    try:
        while await reader.read(4096):
            pass
    finally:
        transport.close()


async def serve(tables: int, seed: int, speed: float) -> None:
    profile = load_profile("cammegh-ss2")
    rng = random.Random(seed)
    links: list[Any] = []
    tasks: list[asyncio.Task[Any]] = []
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    try:
        for index in range(tables):
            link = await serve_tcp("127.0.0.1", 0)
            links.append(link)
            simulator = Ss2Simulator(profile, wheel_scenario(rng, seed * 1000 + index), speed=speed)
            tasks.append(asyncio.create_task(simulator.run(link)))
        print(json.dumps({"ports": [link.port for link in links]}), flush=True)
        watcher = asyncio.create_task(_stdin_closed())
        stopper = asyncio.create_task(stop.wait())
        await asyncio.wait({watcher, stopper}, return_when=asyncio.FIRST_COMPLETED)
        for task in (watcher, stopper):
            task.cancel()
        await asyncio.gather(watcher, stopper, return_exceptions=True)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for link in links:
            with contextlib.suppress(Exception):
                await link.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--speed", type=float, default=1.0)
    ns = parser.parse_args()
    asyncio.run(serve(ns.tables, ns.seed, ns.speed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
