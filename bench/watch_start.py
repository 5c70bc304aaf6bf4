"""A dice or card table's start on a long record: its live tests taken up from where
they were kept, against the same start replaying the whole record.

`bench.startup` measures whole boxes of roulette tables; this measures the part of a
Craps table's or a shoe-dealt Baccarat table's start that grows with its record, in this
process: the daemon's own `Daemon` built on a journal (the table built, its live tests
refilled, `floord.processes.table_watchers`) and the table restored (the start check
and the start record), as `floord run` does before it opens a device. The record is
written by the daemon's own runner here, then closed by a clean stop, which keeps the
tests (`floord.table.watch_state`):

- `--kind dice`: a Craps table with a dice tracker, opened by a floorperson, each
  shooter named by the stickperson, `--events` throws of fair dice, one every 30 s (the
  dice tests: each die's faces, the set's totals, each shooter's signature);
- `--kind shoe`: a Baccarat table dealt from a card-recognition shoe, eight fair decks a
  shoe, 400 cards dealt from each, `--events` cards in all (the shuffle tests, each shoe
  compared with the ones before it).

Then, `--rounds` times each, interleaved:

- **kept**: a start on that journal, which takes the kept tests up and replays nothing;
- **replayed**: the same start with the kept row deleted first (a box's first start
  after an upgrade), which replays every roll or shoe event through every test.

Each start's journal is a fresh copy of the one written, so every round starts on the
same record. Prints one JSON line: the medians (and ranges) of each, and their ratio.
Nothing here is asserted by a test (`bench/__init__.py`).
Run: `python -m bench.watch_start [--kind dice|shoe] [--events 20000] [--rounds 5]`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import random
import shutil
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import structlog
import yaml

from bench.shuffle_models import fair, new_decks
from floord.adapters.local import Received
from floord.config.load import load_config
from floord.contract import EventType
from floord.events import DeviceEvent
from floord.operator.commands import build_command
from floord.processes.daemon import Daemon
from floord.table import watch_state
from floord.table.runner import TableRunner

TABLES = {"dice": "CR-01", "shoe": "BA-01"}
OPERATORS = {
    "FP-1001": (b"floorperson-1001-secret", "floorperson"),
    "ST-4001": (b"stickperson-4001-secret", "stickperson"),
}
DICE = ["D1", "D2", "D3", "D4", "D5"]
CAPABILITIES = ["die_ids", "rest", "cocked", "far_end", "together"]
INSPECTION = {"layout_approved": True, "no_call_bets_shown": True, "drop_box_and_tip_box": True}
# A busy Craps table: a throw every 30 s.
THROW_S = 30.0
# A Baccarat shoe of eight decks, dealt to about its cutting card.
SHOE_DECKS = 8
DEALT_A_SHOE = 400


def write_config(kind: str, folder: Path, journal: Path) -> Path:
    operators = []
    for who, (key, role) in OPERATORS.items():
        (folder / f"{who}.key").write_bytes(key + b"\n")
        operators.append({"id": who, "role": role, "key_file": f"{who}.key"})
    if kind == "dice":
        device = {"id": "dice", "profile": "ref-dice-tracker", "port": "/dev/null"}
        table: dict[str, Any] = {"id": TABLES[kind], "game": "craps", "devices": [device]}
    else:
        device = {"id": "shoe", "profile": "ref-shoe-recognition", "port": "/dev/null"}
        table = {
            "id": TABLES[kind],
            "game": "baccarat",
            "rules": {"decks": SHOE_DECKS},
            "devices": [device],
        }
    config = {
        "site": "bench",
        "broker": {"url": "mqtt://127.0.0.1:1"},
        "journal": str(journal),
        "operators": operators,
        "tables": [table],
    }
    path = folder / "floord.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


class Clock:
    def __init__(self) -> None:
        self.now = datetime.now(UTC) - timedelta(days=60)

    def __call__(self) -> datetime:
        return self.now


class Table:
    """The table's runner fed as its device and its operators would feed it."""

    def __init__(self, runner: TableRunner, clock: Clock, device_id: str) -> None:
        self.runner = runner
        self.clock = clock
        self.device_id = device_id

    async def device(self, etype: EventType, **data: Any) -> None:
        event = DeviceEvent(etype, data)
        await self.runner.take([Received(self.device_id, event, self.clock.now, 0)])

    async def command(self, who: str, name: str, **args: Any) -> None:
        body = build_command(name, who, args, OPERATORS[who][0], self.clock.now)
        await self.runner.on_command(json.dumps(body).encode())


async def throws(table: Table, count: int) -> None:
    await table.device(EventType.DEVICE_ONLINE, port="/dev/pts/9")
    await table.device(
        EventType.DEVICE_IDENTIFIED,
        maker="m",
        model="ref-dice-tracker",
        serial="1",
        firmware="1",
        capabilities=CAPABILITIES,
    )
    await table.device(EventType.DICE_SET, dice=DICE)
    await table.command("FP-1001", "inspect", checklist=INSPECTION)
    await table.command("FP-1001", "open")
    rng = random.Random(7)
    for throw in range(1, count + 1):
        table.clock.now += timedelta(seconds=THROW_S)
        if getattr(table.runner.engine, "shooter", None) is None:
            await table.command("ST-4001", "shooter", seat=throw % 8 + 1)
            await table.device(EventType.DICE_SELECTED, dice=["D2", "D4"])
        dice = [
            {"id": die, "face": rng.randint(1, 6), "rest": "table", "lie": "flat"}
            | {"far_end": True}
            for die in ("D2", "D4")
        ]
        await table.device(EventType.DICE_THROW, throw=throw, together=True, dice=dice)


async def shoes(table: Table, count: int) -> None:
    rng = random.Random(40)
    stack = new_decks(SHOE_DECKS)
    dealt = 0
    while dealt < count:
        stack = fair(stack, rng)
        await table.device(EventType.SHOE_LOADED, side=None, cards=len(stack))
        for n, card in enumerate(stack[: min(DEALT_A_SHOE, count - dealt)], 1):
            table.clock.now += timedelta(seconds=5)
            await table.device(EventType.SHOE_CARD_DRAWN, count=n, card=card, side=None)
            dealt += 1


PLAYS: dict[str, tuple[str, Callable[[Table, int], Awaitable[None]]]] = {
    "dice": ("dice", throws),
    "shoe": ("shoe", shoes),
}


async def play(kind: str, config: Path, count: int) -> None:
    """`count` throws or cards through the daemon's own runner, then a clean stop that
    keeps the tests."""
    clock = Clock()
    daemon = Daemon(load_config(config), clock=clock)
    name = TABLES[kind]
    try:
        unit = daemon.tables[name]
        await daemon.restore(unit)
        device_id, feed = PLAYS[kind]
        await feed(Table(unit.runner, clock, device_id), count)
        await unit.runner.finish(clock.now)
        watcher = unit.runner.surveillance
        if not isinstance(watcher, watch_state.KeptWatch):
            raise SystemExit(f"watch start: {name} runs no kept live tests")
        await watch_state.save_at_stop(daemon.journal, name, watcher)
    finally:
        daemon.journal.close()


def start(config: Path, table: str) -> float:
    """Seconds to build the daemon on the journal and restore its table."""
    began = time.perf_counter()
    daemon = Daemon(load_config(config))
    try:
        asyncio.run(daemon.restore(daemon.tables[table]))
        elapsed = time.perf_counter() - began
        if daemon.tables[table].runner.state()["state"] == "halted":
            raise SystemExit(f"watch start: {table} started halted")
    finally:
        daemon.journal.close()
    return elapsed


def copied(kind: str, source: Path, folder: Path, kept: bool) -> Path:
    """A fresh copy of the written journal and its config, the kept row deleted unless
    `kept`; the copy's config."""
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir()
    journal = folder / "journal.db"
    shutil.copyfile(source, journal)
    if not kept:
        db = sqlite3.connect(journal)
        with db:
            db.execute("DELETE FROM watch_states")
        db.close()
    return write_config(kind, folder, journal)


def _summary(times: list[float]) -> dict[str, float]:
    return {
        "median_s": round(statistics.median(times), 4),
        "min_s": round(min(times), 4),
        "max_s": round(max(times), 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--kind", choices=sorted(TABLES), default="dice")
    parser.add_argument("--events", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    # The daemon's lines (a command's result with no broker to take it, each start's
    # tail check) are not the bench's output.
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.CRITICAL))
    logging.disable(logging.CRITICAL)
    with tempfile.TemporaryDirectory(prefix="floord-watch-start-") as tmp_dir:
        tmp = Path(tmp_dir)
        (tmp / "written").mkdir()
        written = tmp / "written" / "journal.db"
        began = time.perf_counter()
        asyncio.run(play(args.kind, write_config(args.kind, tmp / "written", written), args.events))
        wrote_s = time.perf_counter() - began
        times: dict[str, list[float]] = {"kept": [], "replayed": []}
        for n in range(args.rounds):
            for name in ["kept", "replayed"] if n % 2 == 0 else ["replayed", "kept"]:
                config = copied(args.kind, written, tmp / name, kept=name == "kept")
                times[name].append(start(config, TABLES[args.kind]))
        kept, replayed = _summary(times["kept"]), _summary(times["replayed"])
        print(
            json.dumps(
                {
                    "bench": "watch_start",
                    "kind": args.kind,
                    "events": args.events,
                    "rounds": args.rounds,
                    "journal_mib": round(written.stat().st_size / 2**20, 1),
                    "written_in_s": round(wrote_s, 1),
                    "kept": kept,
                    "replayed": replayed,
                    "replayed_to_kept": round(replayed["median_s"] / kept["median_s"], 1),
                }
            )
        )


if __name__ == "__main__":
    main()
