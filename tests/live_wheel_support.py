"""A wheel table driven through the daemon's own runner, in this process.

`LiveWheel` builds the `Daemon` of a config (its engine, its live surveillance, its
journal) for table RL-01 and feeds the runner what the wheel's driver and the operators
would send: device events and signed commands. What it records is what a running daemon
records, so a test can then read the journal with `floord status` or `floord report`.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from e2e_support import CHECKLIST, DEALER, DEALER_KEY, FP, FP_KEY
from table_turns import finish, restore, take

from floord.adapters.local import Received
from floord.config.load import load_config
from floord.contract import EventType
from floord.events import DeviceEvent
from floord.instants import utc_instant
from floord.operator.commands import build_command
from floord.processes.daemon import Daemon
from floord.table.runner import TableRunner

ROTOR = {"rotor_direction": "cw", "rotor_rpm": 17.2}
IDENTITY = {"maker": "Cammegh", "model": "SS2", "firmware": "V2.50",
            "version_text": "*V V2.50", "pockets": 37, "serial": None}  # fmt: skip


class LiveWheel:
    def __init__(self, config: Path, table: str = "RL-01") -> None:
        self.daemon = Daemon(load_config(config))
        restore(self.daemon)
        self.runner: TableRunner = self.daemon.tables[table].runner
        self.spins = 0

    def device(self, etype: str, data: dict[str, Any]) -> None:
        event = DeviceEvent(EventType(etype), data)
        take(self.runner, Received("wheel", event, utc_instant(), 0))

    def command(self, name: str, args: dict[str, Any], by: str = FP, key: bytes = FP_KEY) -> None:
        body = build_command(name, by, args, key, utc_instant())
        asyncio.run(self.runner.on_command(json.dumps(body).encode()))

    def open(self) -> None:
        """The wheel connects and identifies; a floorperson inspects and opens."""
        self.device(EventType.DEVICE_ONLINE, {"port": "/dev/pts/9"})
        self.device(EventType.DEVICE_IDENTIFIED, IDENTITY)
        self.command("inspect", {"checklist": CHECKLIST, "note": "live wheel test"})
        self.command("open", {})

    def dealer_in(self) -> None:
        self.command("dealer_in", {}, by=DEALER, key=DEALER_KEY)

    def spin(self, number: str, release: str | None = None) -> None:
        """One spin as the wheel reports it: launch (from `release`, a kit with a rotor
        encoder), no more bets, the number."""
        self.spins += 1
        launch = {"spin": self.spins, **ROTOR}
        if release is not None:
            launch["release_pocket"] = release
        self.device(EventType.WHEEL_BALL_LAUNCHED, launch)
        self.device(EventType.WHEEL_NO_MORE_BETS, {"spin": self.spins})
        self.device(EventType.WHEEL_NUMBER, {"spin": self.spins, "number": number,
                                             "origin": "line"})  # fmt: skip

    def stop(self) -> None:
        """Record `daemon.stopped` and close the journal, as a clean stop does."""
        try:
            finish(self.runner, utc_instant())
        finally:
            self.daemon.journal.close()
