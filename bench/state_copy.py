"""What one commit spends keeping the committed state, in microseconds.

After every commit the table's runner keeps the turn's snapshot as the committed state
(and a copy of its watcher, when the watcher changed), to put back should the journal
refuse the next commit and to build `P/state` from (`floord.table.engine_state`). This
builds the daemon's own roulette table (an SS2 wheel, the live surveillance on), plays
`--spins` spins through its runner, then times: what a commit does to keep the state
(`keep_committed_unchanged_watcher_us`: the turn's snapshot kept, the watcher's copy
kept again while the watcher has not changed, as on most commits), the table's
snapshot built for a turn (`snapshot_us`), its stored text and hash (`encode_us`, on the
journal's thread), the `P/state` body (`state_us`), a full copy of the engine and the
watcher (`copy_state_us`: what every commit kept before, now taken only while the daemon
stops) and a roll-back after a refused commit (`roll_back_us`, rare):
process time, the best of 20 runs of 1,000. Prints one JSON line.

Run: `python -m bench.state_copy` (from another checkout: `cd <it> && .venv/bin/python
<this file>`, which then times that checkout's runner; what that checkout does not have
is left out).
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import json
import logging
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import structlog
import yaml

from floord.adapters.local import Received
from floord.config.load import load_config
from floord.contract import EventType
from floord.engine.roulette.layout import SINGLE_ZERO_ORDER
from floord.events import DeviceEvent
from floord.instants import utc_instant
from floord.journal import integrity
from floord.operator.commands import build_command
from floord.processes.daemon import Daemon

KEYS = {"FP-1": ("floorperson", b"fp-1-secret"), "DL-1": ("dealer", b"dl-1-secret")}
CHECKLIST = {
    "no_magnet_or_contrivance": True,
    "wheel_level_and_free": True,
    "parts_secure": True,
    "ball_nonmagnetic": True,
    "ball_nonmetallic_and_size": True,
}
IDENTITY = {"maker": "Cammegh", "model": "SS2", "firmware": "V2.50",
            "version_text": "*V V2.50", "pockets": 37, "serial": None}  # fmt: skip
ROTOR = {"rotor_direction": "cw", "rotor_rpm": 17.2}


def _config(tmp: Path) -> Path:
    operators = []
    for who, (role, key) in KEYS.items():
        (tmp / f"{who}.key").write_bytes(key + b"\n")
        operators.append({"id": who, "role": role, "key_file": f"{who}.key"})
    wheel = {"id": "wheel", "profile": "cammegh-ss2", "port": "/dev/null"}
    config = {"site": "bench", "broker": {"url": "mqtt://127.0.0.1:1"},
              "journal": str(tmp / "journal.db"), "operators": operators,
              "tables": [{"id": "RL-01", "game": "roulette",
                          "rules": {"wheel": "single_zero"}, "devices": [wheel]}]}  # fmt: skip
    path = tmp / "floord.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def _best_us(work: Callable[[], Any], runs: int = 20, each: int = 1000) -> float:
    times = []
    for _ in range(runs):
        started = time.process_time()
        for _ in range(each):
            work()
        times.append((time.process_time() - started) / each * 1e6)
    return round(min(times), 1)


def main(spins: int) -> dict[str, Any]:
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.CRITICAL))
    with tempfile.TemporaryDirectory() as tmp:
        daemon = Daemon(load_config(_config(Path(tmp))))
        try:
            for unit in daemon.tables.values():
                asyncio.run(daemon.restore(unit))
            runner = daemon.tables["RL-01"].runner

            def device(etype: str, data: dict[str, Any]) -> None:
                event = DeviceEvent(EventType(etype), data)
                asyncio.run(runner.take([Received("wheel", event, utc_instant(), 0)]))

            def command(name: str, by: str, args: dict[str, Any]) -> None:
                body = build_command(name, by, args, KEYS[by][1], utc_instant())
                asyncio.run(runner.on_command(json.dumps(body).encode()))

            device(EventType.DEVICE_ONLINE, {"port": "/dev/pts/9"})
            device(EventType.DEVICE_IDENTIFIED, IDENTITY)
            command("inspect", "FP-1", {"checklist": CHECKLIST})
            command("open", "FP-1", {})
            command("dealer_in", "DL-1", {})
            rng = random.Random(3)
            for spin in range(1, spins + 1):
                device(EventType.WHEEL_BALL_LAUNCHED, {"spin": spin, **ROTOR})
                device(EventType.WHEEL_NO_MORE_BETS, {"spin": spin})
                number = {"spin": spin, "number": rng.choice(SINGLE_ZERO_ORDER), "origin": "line"}
                device(EventType.WHEEL_NUMBER, number)
            assert runner.engine.public_state()["state"] == "open"
            result: dict[str, Any] = {"bench": "state_copy", "spins": spins}
            live = runner.live
            result["copy_state_us"] = _best_us(live.copy)
            live.keep()
            snapshot = live.snapshot()
            if "snapshot" in inspect.signature(live.keep).parameters:
                kept = _best_us(lambda: live.keep(snapshot))  # as the recorder keeps it
            else:
                kept = _best_us(live.keep)
            result["keep_committed_unchanged_watcher_us"] = kept
            result["snapshot_us"] = _best_us(live.snapshot)
            encode = getattr(integrity, "encode_snapshot", None)
            if encode is not None:
                result["encode_us"] = _best_us(lambda: encode("RL-01", 9, "ab" * 32, snapshot))
            result["state_us"] = _best_us(runner.state)
            result["roll_back_us"] = _best_us(live.roll_back, runs=5, each=200)
            return result
        finally:
            daemon.journal.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spins", type=int, default=300)
    print(json.dumps(main(parser.parse_args().spins)))
