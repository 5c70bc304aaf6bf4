"""The demo's card devices, each a simulator running in this process on its own
pseudo-terminal: a reader, a recognition shoe and a shuffler per Blackjack table; a
recognition shoe at the Baccarat table; a recognition shoe (automated, § 571.10) and a
counting shuffler at the Mississippi Stud table.

The scenarios are built from `card_script`'s timelines. The devices' clocks run at
`DEVICE_SPEED`, not at the demo's `--speed`: the FLF/1 link timings (heartbeat, ACK
timeout, resends) scale with a device's clock, and the daemon's driver expects a
heartbeat at least every 1.5 s and acknowledges frames from the same event loop. The
demo's speed sets the tables' pace instead (`pace_for`).
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from typing import Any

from floord_demo.card_script import CardTable, Timeline, device_steps
from floord_demo.game_scripts import timeline_for

DEVICE_SPEED = 2.0
POWER_ON_QUIET_S = 1.0  # real seconds: the daemon's drivers open their ports first
PROFILES = {
    "reader": "ref-card-reader",
    "shoe": "ref-shoe-recognition",
    "shuffler": "ref-shuffler-batch",
}
DEMO_CARD_TABLES = [
    CardTable("BJ-01", "blackjack", decks=6, shuffler=True, boxes=(1, 3, 5), seed=21),
    CardTable("S21-01", "spanish21", decks=6, shuffler=False, boxes=(2, 4), seed=49),
    CardTable("BA-01", "baccarat", decks=8, shuffler=False, boxes=(), seed=7, rounds_per_shoe=8),
    CardTable(
        "MS-01",
        "mississippi_stud",
        decks=1,
        shuffler=True,
        boxes=(1, 3, 5),
        seed=5,
        rounds_per_shoe=3,
    ),
]
# The rules of the tables that are not Blackjack or Spanish 21 (docs/configuration.md).
GAME_RULES: dict[str, dict[str, Any]] = {
    "baccarat": {"decks": 8, "vigorish_percent": 5, "ez_baccarat": True},
    # § 571.10: an automated shoe deals the stacks; a counting shuffler counts each deck.
    "mississippi_stud": {"dealing": "automated_shoe", "shuffler": "counting", "boxes": 6},
}


# Where a game's device is another model than the default one above.
GAME_PROFILES: dict[str, dict[str, str]] = {
    "mississippi_stud": {"shoe": "ref-shoe-automated"},  # stacks per ante, § 571.10
}


def profile_of(table: CardTable, device: str) -> str:
    return GAME_PROFILES.get(table.game, {}).get(device, PROFILES[device])


def pace_for(speed: float) -> float:
    """How much slower than the default (`--speed 4`) the card tables deal; never faster,
    since the dealer's commands need their pauses in real time."""
    return max(1.0, 4.0 / speed)


def devices_of(table: CardTable) -> list[str]:
    if table.game == "baccarat":
        return ["shoe"]
    if table.game == "mississippi_stud":
        return ["shoe", "shuffler"]
    return ["reader", "shoe", *(["shuffler"] if table.shuffler else [])]


def table_config(table: CardTable, ports: dict[str, str]) -> dict[str, Any]:
    """The card table's entry in the demo's config (`docs/configuration.md`)."""
    rules: dict[str, Any] = dict(GAME_RULES.get(table.game, {"decks": table.decks}))
    if table.shuffler and table.game not in GAME_RULES:
        rules |= {"shuffler": "batch", "batch_backs": ["red", "blue"]}
    return {
        "id": table.id,
        "game": table.game,
        "rules": rules,
        "devices": [
            {"id": device, "profile": profile_of(table, device), "port": ports[device]}
            for device in devices_of(table)
        ],
    }


def scenario_bodies(table: CardTable, pace: float) -> tuple[Timeline, dict[str, dict[str, Any]]]:
    """Each device's scenario (the file form of `simulators.flf1.card_scenarios`), and the
    timeline they were built from."""
    line = timeline_for(table, pace)
    bodies = {
        device: {
            "power_on_quiet": POWER_ON_QUIET_S * DEVICE_SPEED,
            "loop": True,
            "steps": device_steps(line, device, DEVICE_SPEED),
        }
        for device in devices_of(table)
    }
    return line, bodies


def build_simulators(table: CardTable, pace: float) -> dict[str, Any]:
    """The table's simulators, their scenarios validated and dry-run against the profiles."""
    from floord.profiles import load_profile
    from simulators.flf1.card_device import CardDevice
    from simulators.flf1.card_reader import CardReaderSimulator
    from simulators.flf1.card_shuffler import CardShufflerSimulator
    from simulators.flf1.dealing_shoe import DealingShoeSimulator

    kinds: dict[str, type[CardDevice]] = {
        "reader": CardReaderSimulator,
        "shoe": DealingShoeSimulator,
        "shuffler": CardShufflerSimulator,
    }
    line, bodies = scenario_bodies(table, pace)
    sims = {}
    for device, body in bodies.items():
        kind = kinds[device]
        scenario = kind.SCENARIO.model_validate(body)
        loop_s = sum(step.seconds() for step in scenario.steps) / DEVICE_SPEED
        if abs(loop_s - line.period) > 1e-3:
            raise ValueError(
                f"{table.id} {device}: a loop of {loop_s:.3f} s, not the table's "
                f"{line.period:.3f} s: the devices would drift apart"
            )
        sims[device] = kind(load_profile(profile_of(table, device)), scenario, speed=DEVICE_SPEED)
    return sims


@dataclass
class CardFloor:
    """The card devices' ptys (made first, for the config) and their running simulators."""

    pace: float
    ports: dict[str, dict[str, str]] = field(default_factory=dict)
    links: list[Any] = field(default_factory=list)
    tasks: list[asyncio.Task[Any]] = field(default_factory=list)
    _pending: list[tuple[Any, Any]] = field(default_factory=list)

    async def open(self) -> None:
        from simulators.link import open_pty_link

        for table in DEMO_CARD_TABLES:
            sims = build_simulators(table, self.pace)
            self.ports[table.id] = {}
            for device, sim in sims.items():
                link, path = await open_pty_link()
                self.links.append(link)
                self.ports[table.id][device] = path
                self._pending.append((sim, link))

    def start(self) -> None:
        """Power the devices on (once the daemon's drivers have their ports open)."""
        self.tasks += [asyncio.create_task(sim.run(link)) for sim, link in self._pending]
        self._pending = []

    async def power_off(self) -> None:
        """Stop the simulators; their ptys stay open until `close`."""
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)

    async def close(self) -> None:
        await self.power_off()
        for link in self.links:
            with contextlib.suppress(Exception):  # a demo's teardown goes on regardless
                await link.close()
