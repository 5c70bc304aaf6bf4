"""A week of a floor's play, seeded: real roulette engines, real journals, one per box.

The demo plays for minutes; a floor report is read over days. This drives each table's
real runner (`TableRunner` with its `RouletteEngine` and its live wheel surveillance)
through a week on a virtual clock, the way the daemon does: device events as the wheel
reports them, operator commands signed and verified, each box its own journal. What
happens is drawn from a seeded random generator, so the same seed is the same week:
inspections and openings every day, dealers relieved in shifts, spins, a wheel that
drops off its line (the table halts, a floorperson resumes it), a wheel adjustment (the
§ 531.3(e) log, the inspection it requires), a ball replaced, alerts raised by the
wheel's running tests and acknowledged minutes later, spins seen while the table is
closed (procedure violations), and commands the engine or the role check refuses.
No test lives here: `test_floor_report_week.py` and `test_reports_doc.py` use it.
"""

from __future__ import annotations

import asyncio
import json
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, time, timedelta
from pathlib import Path
from typing import Any

from floord.adapters.local import Received
from floord.analytics.report import WheelSetup
from floord.analytics.wheel_watch import roulette_order
from floord.contract import EventType
from floord.engine import RouletteEngine
from floord.events import DeviceEvent
from floord.journal.store import Journal
from floord.operator.commands import build_command
from floord.table.bus import CommandArrived, TableBus, Tick
from floord.table.runner import TableRunner
from floord.table.surveillance import TableSurveillance

SITE = "casino-east"
WHEEL = "wheel-1"
# Monday 30 November 2026, 00:00 UTC: the week runs to Monday 7 December.
WEEK_START = datetime(2026, 11, 30, tzinfo=UTC)
DAYS = 7
KEYS: dict[str, tuple[str, bytes]] = {
    "fp-ana": ("floorperson", b"fp-ana-secret"),
    "fp-ben": ("floorperson", b"fp-ben-secret"),
    "sec-cho": ("security", b"sec-cho-secret"),
    "sup-dee": ("supervisor", b"sup-dee-secret"),
    "mnt-eli": ("maintenance", b"mnt-eli-secret"),
    **{
        f"dl-{n}": ("dealer", f"dl-{n}-secret".encode())
        for n in ("fay", "gus", "hal", "ivy", "jon", "kim")
    },
}
PASSING = {
    "no_magnet_or_contrivance": True,
    "wheel_level_and_free": True,
    "parts_secure": True,
    "ball_nonmagnetic": True,
    "ball_nonmetallic_and_size": True,
}
SPIN = {"rotor_direction": "cw", "rotor_rpm": 21.0}


class Link:
    """The runner's port: nothing is published; each command's result is kept."""

    def __init__(self) -> None:
        self.results: list[dict[str, Any]] = []

    def recorded(self) -> None:
        pass

    def state_changed(self) -> None:
        pass

    async def publish_result(self, payload: dict[str, Any]) -> None:
        self.results.append(payload)

    async def publish_replay(self, payloads: list[str]) -> None:
        raise AssertionError("no replay in a generated week")


@dataclass
class Box:
    """One table box: its runner, its journal and its virtual clock."""

    table: str
    path: Path
    runner: TableRunner
    journal: Journal
    now: datetime
    rng: random.Random
    bias: tuple[str, ...] = ()
    spin: int = 0
    dealers: list[str] = field(default_factory=list)

    def at(self, when: datetime) -> None:
        self.now = max(self.now, when)

    def step(self, seconds: float) -> datetime:
        self.now += timedelta(seconds=seconds)
        return self.now

    async def device(self, kind: EventType, data: dict[str, Any]) -> None:
        item = Received(WHEEL, DeviceEvent(kind, data), self.step(0.4), 0)
        await self.runner.take([item])

    async def command(self, name: str, by: str, args: dict[str, Any] | None = None) -> None:
        body = build_command(name, by, args or {}, KEYS[by][1], self.step(2.0))
        await self.runner.take([CommandArrived(json.dumps(body).encode())])

    async def tick(self) -> None:
        await self.runner.take([Tick(self.step(0.1))])

    async def connect(self) -> None:
        await self.device(EventType.DEVICE_ONLINE, {"port": "/dev/ttyUSB0"})
        identity = {
            "maker": "Cammegh",
            "model": "SS2",
            "firmware": "V2.50",
            "version_text": "*V V2.50",
            "pockets": 37,
            "serial": None,
        }
        await self.device(EventType.DEVICE_IDENTIFIED, identity)

    def number(self) -> str:
        if self.bias and self.rng.random() < 0.05:
            return self.rng.choice(self.bias)
        return str(self.rng.randrange(37))

    async def play_spin(self) -> None:
        """One wheel cycle, its four events taken as the wheel sends them."""
        self.spin += 1
        s = self.spin
        await self.device(EventType.WHEEL_GAME_STARTED, {"spin": s, "state": 2, **SPIN})
        await self.device(EventType.WHEEL_BALL_LAUNCHED, {"spin": s, **SPIN})
        self.step(self.rng.uniform(8, 14))
        await self.device(EventType.WHEEL_NO_MORE_BETS, {"spin": s})
        self.step(self.rng.uniform(6, 10))
        await self.device(
            EventType.WHEEL_NUMBER, {"spin": s, "number": self.number(), "origin": "line"}
        )

    async def acknowledge(self) -> None:
        """Every open alert acknowledged by a supervisor or security, minutes later."""
        watcher = self.runner.surveillance
        if watcher is None:
            return
        for alert in list(watcher.alerts):
            if self.rng.random() < 0.5:
                continue  # not yet: seen at a later spin
            self.step(self.rng.uniform(60, 900))
            by = self.rng.choice(("sup-dee", "sec-cho"))
            await self.command("ack_alert", by, {"alert": alert["id"], "note": "video reviewed"})


def make_box(folder: Path, table: str, seed: int, bias: tuple[str, ...]) -> Box:
    path = folder / f"{table}.db"
    engine = RouletteEngine(
        table,
        wheel="single_zero",
        wheel_device=WHEEL,
        required_devices=[WHEEL],
        gaming_day_starts=time(6, 0),
        timezone="America/New_York",
    )
    setup = WheelSetup("single_zero", tuple(roulette_order("single_zero")), 300, 0.005, 8)
    journal = Journal(path)
    box = Box(table, path, None, journal, WEEK_START, random.Random(seed), bias)  # type: ignore[arg-type]
    box.runner = TableRunner(
        site=SITE,
        table=table,
        engine=engine,
        journal=journal,
        bus=TableBus(),
        adapters={},
        operators=KEYS,
        clock=lambda: box.now,
        committed=Link(),
        surveillance=TableSurveillance(setup),
    )
    return box


async def play_day(box: Box, day: datetime) -> None:
    """One gaming day at one table: inspection, opening, shifts of dealers, the day's
    incidents, the closing."""
    rng = box.rng
    box.at(day + timedelta(hours=17, minutes=rng.randrange(0, 40)))  # about noon, New York
    inspector = rng.choice(("fp-ana", "fp-ben", "sec-cho"))
    if rng.random() < 0.25:
        await box.command("open", "fp-ana")  # before the inspection: refused (§ 531.3(a))
    await box.command("inspect", inspector, {"checklist": PASSING, "note": "daily"})
    await box.command("dealer_in", rng.choice(box.dealers))
    await box.command("open", rng.choice(("fp-ana", "fp-ben")))
    close_at = box.now + timedelta(hours=rng.uniform(6, 9))
    shift_end = box.now + timedelta(minutes=rng.choice((60, 80, 120)))
    incidents = {
        kind: box.now + timedelta(hours=rng.uniform(0.5, 6))
        for kind in ("offline", "adjust", "ball", "refused")
        if rng.random() < 0.35
    }
    while box.now < close_at:
        if box.now >= shift_end:
            await box.command("dealer_in", rng.choice(box.dealers))
            shift_end = box.now + timedelta(minutes=rng.choice((60, 80, 120)))
        for kind, when in list(incidents.items()):
            if box.now >= when:
                del incidents[kind]
                await incident(box, kind)
        await box.play_spin()
        await box.acknowledge()
        box.step(rng.uniform(35, 70))
    await box.command("close", rng.choice(("fp-ana", "fp-ben")))
    if rng.random() < 0.3:
        await box.play_spin()  # a spin on a closed table: a procedure violation


async def incident(box: Box, kind: str) -> None:
    rng = box.rng
    if kind == "offline":
        await box.device(EventType.DEVICE_OFFLINE, {"port": "/dev/ttyUSB0", "reason": "eof"})
        box.step(rng.uniform(120, 1500))
        await box.connect()
        await box.command("resume", "fp-ben", {"reason": "wheel cable reseated"})
    elif kind == "adjust":
        await box.command(
            "wheel_adjusted",
            "mnt-eli",
            {
                "part": "ball track",
                "description": "levelled",
                "licence": "PGCB-40411",
                "security_witness": "sec-cho",
                "security_licence": "PGCB-50122",
            },
        )
        box.step(rng.uniform(300, 1200))
        await box.command("inspect", "sec-cho", {"checklist": PASSING, "note": "after adjustment"})
        await box.command("resume", "fp-ana", {"reason": "wheel adjusted and inspected"})
    elif kind == "ball":
        await box.command(
            "ball_replaced",
            "mnt-eli",
            {
                "nonmetallic": True,
                "diameter_sixteenths": 13,
                "nonmagnetic": True,
                "licence": "PGCB-40411",
            },
        )
    else:
        await box.command("open", "dl-fay")  # a dealer may not open a table: refused
        await box.command("wheel_adjusted", "fp-ana", {"part": "rotor"})  # bad arguments


async def play_week(folder: Path, seed: int, tables: int) -> list[Path]:
    boxes = []
    for i in range(tables):
        bias = ("17", "34", "6") if i == tables - 1 else ()
        box = make_box(folder, f"RL-{i + 1:02d}", seed * 100 + i, bias)
        # Each table's own two dealers, relieving each other in shifts.
        dealers = [d for d in KEYS if d.startswith("dl-")]
        box.dealers = dealers[2 * i : 2 * i + 2]
        boxes.append(box)
    try:
        for box in boxes:
            await box.connect()
            for day in range(DAYS):
                await play_day(box, WEEK_START + timedelta(days=day))
            await box.runner.finish(box.step(60.0), "end of the week")
        await asyncio.sleep(0)  # the last results handed to the link
    finally:
        for box in boxes:
            box.journal.close()
    return [box.path for box in boxes]


def generate_week(folder: Path, seed: int = 7, tables: int = 3) -> list[Path]:
    """The journals of a seeded week at `tables` roulette tables, one box each."""
    folder.mkdir(parents=True, exist_ok=True)
    return asyncio.run(play_week(folder, seed, tables))
