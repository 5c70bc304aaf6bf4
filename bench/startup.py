"""Start-up of a table box: `floord run` from its process start to every wheel online.

Shape: a private Mosquitto on a free loopback port; 8 SS2 roulette wheels (`--tables`),
each on a pty of its own served by this process (the wheel's end answers the handshake,
`bench.latency.Wheel`); one config naming them all, a fresh journal each run (but see
`--history-results`). The bench
subscribes to the site's device streams, starts `python -m floord run` and takes the
time from just before the process is spawned to the arrival of the last wheel's
`device.online`; then the daemon's peak resident set (`VmHWM`, /proc) at that moment.

The baseline, in the same run: a bare interpreter importing floord's core libraries
(`python -c 'import aiomqtt, pydantic, structlog, serial, ...'`), its time from spawn to
exit and its peak RSS (`ru_maxrss` of the reaped child). The daemon's figures are given
as absolutes and as ratios to the baseline's median.

`--tree PATH` (repeatable) runs the daemon from another source tree's code instead of the
installed floord (`bench/trees.py`: `PYTHONPATH=PATH`, or the tree's own `.venv`; the
daemon's working directory outside any tree), to compare two commits interleaved: `git
archive <commit> floord drivers simulators device_profiles systemd | tar -x -C PATH`. Rounds
interleave baseline and trees (`--rounds`, 5). Each daemon runs with the environment its
tree's unit sets (`systemd/floord.service`, `Environment=`; `bench.trees.unit_environment`),
as a box runs it; `--no-unit-env` leaves it out. Every tree run is byte-compiled first, as
the `.deb` is when it is built: a box does not compile floord's modules at each start, so
neither does a daemon here. `--no-compile` runs the trees as they are: a fresh `git archive`
holds no bytecode, so where `PYTHONDONTWRITEBYTECODE` is set its every start compiles
floord from source.

`--history-results N` starts every daemon on a copy of one journal whose tables have each
played N spins (`bench.aged_journal`), not a fresh one: a box's start reads its tables'
records (the live wheel tests refill their windows from them), so this is a box after
weeks of play. That journal has no live tests kept beside it (`watch_states`), as a box's
first start after an upgrade, or after a crash since the last start that kept them; with
`--history-kept`, one daemon of this checkout starts and stops cleanly on it first, so
every measured start takes up the tests it kept, as a box's start after a clean stop.

Prints one JSON line. Nothing here is asserted by a test (`bench/__init__.py`).
Run: `python -m bench.startup [--tables 8] [--rounds 5] [--tree PATH ...]
[--history-results N [--history-kept]] [--no-compile] [--no-unit-env]`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiomqtt
import yaml

from bench.aged_journal import age
from bench.latency import Wheel, frame
from bench.proc_stats import dies_with_bench, machine, sample
from bench.trees import INSTALLED, byte_compile, tree_command, unit_environment
from floord_demo.broker import mosquitto_binary, private_mosquitto

SITE = "bench"
CORE_IMPORTS = "import aiomqtt, paho.mqtt.client, pydantic, structlog, serial, serial_asyncio, yaml"
# The baseline prints its own peak RSS (KiB) as it ends.
BASELINE = (
    CORE_IMPORTS
    + "\nimport re; print(re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read())[1])"
)
# The bench's resolution: how often each wheel writes a status frame until it is online.
STATUS_EVERY_S = 0.01


async def baseline() -> tuple[float, float]:
    """Seconds from spawn to exit, and peak RSS MiB, of the interpreter and the core
    imports. The child reads its own `VmHWM` last: a reaped child's `ru_maxrss` would
    count the bench's own memory, shared until the exec."""
    started = time.perf_counter()
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", BASELINE, stdout=asyncio.subprocess.PIPE
    )
    out, _ = await proc.communicate()
    elapsed = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit("startup bench: the baseline's imports failed")
    return elapsed, int(out.split()[0]) / 1024.0


def _config(tmp: Path, url: str, wheels: list[Wheel]) -> Path:
    config = {
        "site": SITE,
        "broker": {"url": url},
        "journal": str(tmp / "journal.db"),
        "tables": [
            {
                "id": f"RL-{i + 1:02d}",
                "game": "roulette",
                "rules": {"wheel": "single_zero"},
                "devices": [{"id": "wheel", "profile": "cammegh-ss2", "port": wheel.path}],
            }
            for i, wheel in enumerate(wheels)
        ],
    }
    path = tmp / "floord.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


async def daemon_start(
    url: str,
    tables: int,
    tree: str,
    timeout: float,
    unit_env: bool = True,
    journal: Path | None = None,
    keep: Path | None = None,
) -> tuple[float, float]:
    """Seconds from spawn to the last wheel's `device.online`, and the daemon's peak RSS
    MiB then; with the environment its unit sets unless `unit_env` is false. The daemon
    starts on a copy of `journal` (None: a fresh one); `keep` receives the journal as
    the daemon leaves it, stopped."""
    host, port = url.split("://", 1)[1].rsplit(":", 1)
    wheels = [Wheel() for _ in range(tables)]
    source = None if tree == INSTALLED else tree
    python, env = tree_command(source, None)
    if unit_env:
        env.update(unit_environment(source))
    try:
        with tempfile.TemporaryDirectory(prefix="floord-startup-") as tmp:
            path = _config(Path(tmp), url, wheels)
            if journal is not None:
                shutil.copyfile(journal, Path(tmp) / "journal.db")
            try:
                return await _measured(host, int(port), path, python, env, tables, timeout, wheels)
            finally:
                if keep is not None:
                    shutil.copyfile(Path(tmp) / "journal.db", keep)
    finally:
        for wheel in wheels:
            wheel.close()


async def _measured(
    host: str,
    port: int,
    path: Path,
    python: str,
    env: dict[str, str],
    tables: int,
    timeout: float,
    wheels: list[Wheel],
) -> tuple[float, float]:
    """Spawn the daemon on the config at `path` and time it to every wheel online."""
    daemon: asyncio.subprocess.Process | None = None
    try:
        async with aiomqtt.Client(host, port) as sub:
            await sub.subscribe(f"floor/v1/{SITE}/+/devices/+/events", qos=1)
            online: set[str] = set()
            started = time.perf_counter()
            daemon = await asyncio.create_subprocess_exec(
                python,
                "-m",
                "floord",
                "--log-level",
                "warning",
                "run",
                "-c",
                str(path),
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.DEVNULL,
                env=env,
                cwd=path.parent,
                preexec_fn=dies_with_bench(),
            )

            async def all_online() -> float:
                async for message in sub.messages:
                    if json.loads(bytes(message.payload)).get("type") == "device.online":
                        online.add(str(message.topic).split("/")[3])
                        if len(online) == tables:
                            return time.perf_counter() - started
                raise ConnectionError("subscriber closed")

            status = asyncio.create_task(_automatic_status(wheels))
            try:
                elapsed = await asyncio.wait_for(all_online(), timeout)
            finally:
                status.cancel()
            stats = sample(daemon.pid)
            if stats is None:
                raise SystemExit("startup bench: the daemon ended before it was measured")
            return elapsed, stats.peak_rss_mib
    finally:
        if daemon is not None and daemon.returncode is None:
            daemon.terminate()
            await daemon.wait()


async def _aged(url: str, tables: int, results: int, folder: Path, kept: bool) -> Path:
    """A journal of `tables` tables that have each played `results` spins: the one a
    daemon of this checkout leaves after its first start, aged (`bench.aged_journal`);
    with `kept`, as a daemon of this checkout leaves it after a start and a clean stop
    on it (the live tests kept beside the record)."""
    journal = folder / "aged.db"
    await daemon_start(url, tables, INSTALLED, 60.0, keep=journal)
    tables_ids = [f"RL-{i + 1:02d}" for i in range(tables)]
    age(journal, SITE, tables_ids, results)
    if kept:
        await daemon_start(url, tables, INSTALLED, 600.0, journal=journal, keep=journal)
    return journal


async def _automatic_status(wheels: list[Wheel]) -> None:
    """An idle wheel's automatic status frame on every pty each `STATUS_EVERY_S`, as the
    wheel sends them: the adapter says `device.online` on the first bytes it hears."""
    while True:
        for wheel in wheels:
            wheel.write(frame(0))
        await asyncio.sleep(STATUS_EVERY_S)


def _summary(values: list[float], digits: int) -> dict[str, Any]:
    return {
        "each": [round(v, digits) for v in values],
        "median": round(statistics.median(values), digits),
        "min": round(min(values), digits),
    }


async def main(ns: argparse.Namespace) -> dict[str, Any]:
    logging.getLogger("mqtt").setLevel(logging.ERROR)
    binary = mosquitto_binary()
    if not binary:
        raise SystemExit("startup bench needs mosquitto (scripts/ensure-test-tools.sh)")
    trees = ns.tree or [INSTALLED]
    if not ns.no_compile:
        for tree in trees:
            byte_compile(None if tree == INSTALLED else tree)
    base_s: list[float] = []
    base_mib: list[float] = []
    runs: dict[str, tuple[list[float], list[float]]] = {t: ([], []) for t in trees}
    with tempfile.TemporaryDirectory(prefix="floord-aged-") as kept:
        async with private_mosquitto(binary) as url:
            history = None
            if ns.history_results:
                history = await _aged(
                    url, ns.tables, ns.history_results, Path(kept), ns.history_kept
                )
            for _ in range(ns.rounds):
                seconds, mib = await baseline()
                base_s.append(seconds)
                base_mib.append(mib)
                for tree in trees:
                    seconds, mib = await daemon_start(
                        url, ns.tables, tree, ns.timeout, not ns.no_unit_env, history
                    )
                    runs[tree][0].append(seconds)
                    runs[tree][1].append(mib)
    base_time, base_rss = statistics.median(base_s), statistics.median(base_mib)
    daemons = {}
    for tree, (times, peaks) in runs.items():
        daemons[tree] = {
            "to_all_online_s": _summary(times, 3),
            "peak_rss_mib": _summary(peaks, 1),
            "ratio": {
                "time": round(statistics.median(times) / base_time, 2),
                "rss": round(statistics.median(peaks) / base_rss, 2),
            },
        }
    return {
        "bench": "startup",
        "tables": ns.tables,
        "history_results": ns.history_results,
        "history_kept": ns.history_kept,
        "rounds": ns.rounds,
        "byte_compiled": not ns.no_compile,
        "unit_environment": {
            tree: {} if ns.no_unit_env else unit_environment(None if tree == INSTALLED else tree)
            for tree in trees
        },
        "machine": machine(),
        "baseline": {
            "imports": CORE_IMPORTS,
            "to_exit_s": _summary(base_s, 3),
            "peak_rss_mib": _summary(base_mib, 1),
        },
        "daemon": daemons,
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds to all online")
    parser.add_argument("--tree", action="append", help="run the daemon from this source tree")
    parser.add_argument(
        "--history-results",
        type=int,
        default=0,
        help="start each daemon on a journal whose tables have played this many spins",
    )
    parser.add_argument(
        "--history-kept",
        action="store_true",
        help="with --history-results: the live tests kept by a clean stop, as after one",
    )
    parser.add_argument(
        "--no-compile",
        action="store_true",
        help="run the trees as they are (a fresh git archive: a start from source)",
    )
    parser.add_argument(
        "--no-unit-env",
        action="store_true",
        help="run the daemons without the environment systemd/floord.service sets",
    )
    print(json.dumps(asyncio.run(main(parser.parse_args()))))
