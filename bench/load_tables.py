"""Load test: many roulette tables through real floord daemons into one local Mosquitto.

Shape (defaults: 200 tables, 4 daemons, 180 s measured):
- a private Mosquitto on a free loopback port (`max_queued_messages` lifted, as
  docs/deployment.md asks);
- per daemon, a process of simulated SS2 wheels (`bench/load_sims.py`, one TCP port a
  wheel, real time, fair spins with a pause of each table's own) and one real
  `floord run` process whose config has that share of the tables, each wheel on
  `socket://127.0.0.1:PORT`, a journal of its own (SQLite, WAL, fsync);
- a surveillance console (`bench/load_console.py`) subscribed to the whole site;
- `floord archive` (`bench/load_archive.py`) storing the site's events in a SQLite file
  (`--archive sqlite`, the default), a private PostgreSQL server (`--archive postgresql`)
  or not at all (`--archive none`): its lag from an event's `ts` to its row, its CPU and
  the database's, and the database's size per table-day;
- with `--browsers N`, `floord web` as its own process reading the site as the console
  does, and N headless Chromium pages on its floor page (`bench/web_pages.py`): in each
  page, for every tile whose table's event changed, the time from that event's `ts` to
  the tile on the page; floord web's CPU and RSS and the browsers' CPU.

Every wheel must identify and every table is inspected and opened with signed commands
before the window starts, so the engine plays real rounds. Over the window the bench
reports events per second (the tables' records and the devices' streams), the
console's lag (arrival less the event's `ts`: p50, p99, max), and CPU and memory (RSS)
of the daemons from /proc, per daemon and per table, beside the simulators' and the
broker's. Prints the report; writes it as JSON to bench/results/.

With `--nats-cluster` the broker is the three-node NATS cluster of examples/nats-cluster/
on loopback ports (bench/nats_cluster.py) instead: each daemon names all three nodes in
`broker.urls`, the first node of daemon N being node N mod 3 + 1, and the console, the
browser console and the commands use node 3.

`--compare-tree PATH` (repeatable): daemon N runs tree N mod (trees + 1), the installed
floord's first (`bench/trees.py`), so commits share one load and window; `by_tree` gives
each tree's CPU and RSS a table.

Run: `make bench-load` or `python -m bench.load_tables --tables 20 --seconds 30`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiomqtt
import yaml

from bench.cdp import chromium_path
from bench.load_archive import BenchArchive, cpu_seconds, journaled
from bench.load_console import Console
from bench.load_report import print_report, report
from bench.nats_cluster import NatsCluster
from bench.proc_stats import dies_with_bench, end, sample
from bench.trees import INSTALLED, by_tree, pids_by_tree, tree_command
from bench.web_pages import Watch
from floord.contract import DEFAULT_TOPIC_PREFIX, Topics
from floord.operator.commands import build_command
from floord_demo.broker import free_port, mosquitto_binary

SITE = "bench"
OPERATOR = "FP-BENCH"
OPERATOR_KEY = b"bench-floorperson-secret"
CHECKLIST = {
    "no_magnet_or_contrivance": True,
    "wheel_level_and_free": True,
    "parts_secure": True,
    "ball_nonmagnetic": True,
    "ball_nonmetallic_and_size": True,
}
RESULTS = Path(__file__).resolve().parent / "results"


def _python(*args: str, tree: str | None = None, **kwargs: Any) -> subprocess.Popen[bytes]:
    """A Python process of the bench; with `tree`, that tree's floord (`bench/trees.py`)."""
    python, env = tree_command(tree, {**os.environ, "PYTHONUNBUFFERED": "1"})
    return subprocess.Popen([python, *args], env=env, preexec_fn=dies_with_bench(), **kwargs)


class Floor:
    """The processes of the bench: broker, wheel hosts, daemons. Always all stopped."""

    def __init__(self, directory: Path) -> None:
        self.dir = directory
        self.broker: subprocess.Popen[bytes] | None = None
        self.cluster: NatsCluster | None = None
        self.broker_port = 0
        self.sims: list[subprocess.Popen[bytes]] = []
        self.daemons: list[subprocess.Popen[bytes]] = []
        # Each daemon's tree (`INSTALLED` or a `--compare-tree` path) and its tables.
        self.daemon_trees: list[tuple[str, int]] = []
        self.tables: list[str] = []

    def start_broker(self) -> None:
        binary = mosquitto_binary()
        if binary is None:
            raise SystemExit("load bench: mosquitto not found (scripts/ensure-test-tools.sh)")
        self.broker_port = free_port()
        conf = self.dir / "mosquitto.conf"
        conf.write_text(
            f"listener {self.broker_port} 127.0.0.1\nallow_anonymous true\n"
            "max_queued_messages 0\nmax_inflight_messages 0\npersistence false\nlog_dest none\n"
            "set_tcp_nodelay true\n"
        )
        self.broker = subprocess.Popen(
            [binary, "-c", str(conf)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=dies_with_bench(),
        )

    async def start_cluster(self) -> None:
        """The example NATS cluster; the console's and the commands' node is node 3."""
        self.cluster = NatsCluster(self.dir)
        for i in range(3):
            self.cluster.start(i)
        for i in range(3):
            await self.cluster.ready(i)
        self.broker_port = self.cluster.ports[2]["mqtt"]

    def broker_section(self, group: int) -> dict[str, Any]:
        if self.cluster is None:
            return {"url": f"mqtt://127.0.0.1:{self.broker_port}"}
        first = group % 3
        return {"urls": self.cluster.urls(*(first, (first + 1) % 3, (first + 2) % 3))}

    @property
    def broker_pids(self) -> list[int]:
        if self.cluster is not None:
            return self.cluster.pids
        return [self.broker.pid] if self.broker else []

    def start_group(
        self, group: int, first: int, count: int, speed: float, tree: str | None = None
    ) -> None:
        sims = _python(
            "-m",
            "bench.load_sims",
            "--tables",
            str(count),
            "--seed",
            str(group),
            "--speed",
            str(speed),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        self.sims.append(sims)
        assert sims.stdout is not None
        line = sims.stdout.readline()
        if not line:
            raise SystemExit(f"load bench: wheel host {group} did not start")
        ports = json.loads(line)["ports"]
        tables = [f"RL-{first + i + 1:03d}" for i in range(count)]
        self.tables += tables
        folder = self.dir / f"daemon-{group}"
        folder.mkdir()
        (folder / "fp.key").write_bytes(OPERATOR_KEY + b"\n")
        config = {
            "site": SITE,
            "broker": self.broker_section(group),
            "journal": "journal.db",
            "operators": [{"id": OPERATOR, "role": "floorperson", "key_file": "fp.key"}],
            "tables": [
                {
                    "id": table,
                    "game": "roulette",
                    "rules": {"wheel": "single_zero"},
                    "devices": [
                        {"id": "wheel", "profile": "cammegh-ss2", "port": f"socket://127.0.0.1:{p}"}
                    ],
                }
                for table, p in zip(tables, ports, strict=True)
            ],
        }
        path = folder / "floord.yaml"
        path.write_text(yaml.safe_dump(config, sort_keys=False))
        log = (folder / "daemon.log").open("wb")
        self.daemons.append(
            _python(
                "-m",
                "floord",
                "--log-level",
                "warning",
                "run",
                "-c",
                str(path),
                stdout=log,
                stderr=log,
                tree=tree,
                # Not the checkout: `python -m` puts the working directory ahead of
                # PYTHONPATH, and a tree's daemon would run the checkout's floord.
                cwd=folder,
            )
        )
        self.daemon_trees.append((tree or INSTALLED, count))

    def stop(self) -> None:
        for proc in self.daemons:
            end(proc, 20)
        for proc in self.sims:
            with contextlib.suppress(Exception):
                if proc.stdin:
                    proc.stdin.close()
            end(proc, 10)
            with contextlib.suppress(Exception):
                if proc.stdout:
                    proc.stdout.close()
        if self.broker is not None:
            end(self.broker, 10)
        if self.cluster is not None:
            self.cluster.close()


async def _until(condition: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit(f"load bench: timed out waiting for {what}")
        await asyncio.sleep(0.2)


async def open_tables(port: int, console: Console, tables: list[str], timeout: float) -> int:
    """Inspect and open every table with signed commands; how many opened."""
    sent: dict[str, list[str]] = {}
    async with aiomqtt.Client("127.0.0.1", port) as client:
        for table in tables:
            topic = Topics(DEFAULT_TOPIC_PREFIX, SITE, table).cmd
            for name, args in (
                ("inspect", {"checklist": CHECKLIST, "note": "load bench"}),
                ("open", {}),
            ):
                command = build_command(name, OPERATOR, args, OPERATOR_KEY, datetime.now(UTC))
                sent.setdefault(table, []).append(command["id"])
                await client.publish(topic, json.dumps(command), qos=1)
    ids = [i for table_ids in sent.values() for i in table_ids]
    await _until(lambda: all(i in console.results for i in ids), timeout, "command results")
    failed = [console.results[i] for i in ids if console.results[i].get("ok") is not True]
    for result in failed[:5]:
        print(f"load bench: a command failed: {result}", file=sys.stderr)
    return sum(all(console.results[i].get("ok") is True for i in ids) for ids in sent.values())


def _cpu(pids: list[int]) -> tuple[float, float, float]:
    """CPU seconds, RSS MiB and peak RSS MiB summed over the running `pids`."""
    samples = [s for s in (sample(pid) for pid in pids) if s is not None]
    return (
        sum(s.cpu_s for s in samples),
        sum(s.rss_mib for s in samples),
        sum(s.peak_rss_mib for s in samples),
    )


async def run(ns: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="floord-load-", dir=ns.workdir) as tmp:
        floor = Floor(Path(tmp))
        console_task: asyncio.Task[None] | None = None
        archive: BenchArchive | None = None
        watch: Watch | None = None
        figures: dict[str, Any] = {}
        try:
            if ns.nats_cluster:
                await floor.start_cluster()
            else:
                floor.start_broker()
                await asyncio.sleep(0.3)
            if ns.archive != "none":
                archive = BenchArchive(
                    Path(tmp), ns.archive, floor.broker_port, DEFAULT_TOPIC_PREFIX
                )
                archive.start(OPERATOR, OPERATOR_KEY, SITE)
            console = Console("127.0.0.1", floor.broker_port, DEFAULT_TOPIC_PREFIX, SITE)
            console_task = asyncio.create_task(console.run())
            await asyncio.wait_for(console.ready.wait(), 15)
            if ns.browsers:
                # The browser console reads the floor as the bench's console does.
                broker_url = f"mqtt://127.0.0.1:{floor.broker_port}"
                watch = Watch(Path(tmp), broker_url, [SITE])
                await watch.start()
            per = -(-ns.tables // ns.daemons)
            trees: list[str | None] = [None, *(ns.compare_tree or [])]
            for group in range(ns.daemons):
                first = group * per
                count = min(per, ns.tables - first)
                if count > 0:
                    tree = trees[group % len(trees)]
                    floor.start_group(group, first, count, ns.speed, tree)
            print(
                f"load bench: {ns.tables} tables, {len(floor.daemons)} daemons, "
                f"broker on port {floor.broker_port}; waiting for the wheels",
                flush=True,
            )
            await _until(
                lambda: len(console.identified) >= ns.tables, ns.warmup, "every wheel to identify"
            )
            opened = await open_tables(floor.broker_port, console, floor.tables, ns.warmup)
            if watch is not None:
                await watch.open(ns.browsers, ns.tables)
                print(f"load bench: {ns.browsers} browsers on {watch.web.url}", flush=True)
            print(f"load bench: {opened} tables open; measuring {ns.seconds:.0f} s", flush=True)
            daemon_pids = [p.pid for p in floor.daemons]
            sim_pids = [p.pid for p in floor.sims]
            broker_pid = floor.broker_pids
            groups = {
                "daemons": daemon_pids,
                "sims": sim_pids,
                "broker": broker_pid,
                "console": [os.getpid()],
                **pids_by_tree(floor.daemons, floor.daemon_trees),
            }
            kept = archive.pids() if archive is not None else {}
            archive_cpu = {k: cpu_seconds(v) for k, v in kept.items()}
            window_from = time.time()
            before = {key: _cpu(pids) for key, pids in groups.items()}
            if watch is not None:
                await watch.begin()
            console.measure()
            started = time.monotonic()
            while (left := ns.seconds - (time.monotonic() - started)) > 0:
                await asyncio.sleep(min(left, 30.0))
                window = console.window
                assert window is not None
                print(
                    f"  {time.monotonic() - started:6.0f} s: {window.table_events} table "
                    f"events, {window.device_events} device events",
                    flush=True,
                )
            elapsed = time.monotonic() - started
            after = {key: _cpu(pids) for key, pids in groups.items()}
            window_to = time.time()
            web = await watch.end() if watch is not None else None
            spent = {k: cpu_seconds(archive.pids()[k]) - v for k, v in archive_cpu.items()}
            alive = sum(1 for p in floor.daemons if p.poll() is None)
            window = console.window
            assert window is not None
            figures = report(ns, len(floor.daemons), opened, alive, elapsed, window, before, after)
            figures["web"] = web
            if ns.compare_tree:
                figures["by_tree"] = by_tree(floor.daemon_trees, elapsed, before, after)
            figures["archive"] = None
            if archive is not None:
                # The daemons stop; the archive catches up with what they published.
                for proc in floor.daemons:
                    end(proc, 20)
                held = archive.settle()
                figures["archive"] = archive.figures(
                    since=window_from,
                    until=window_to,
                    tables=ns.tables,
                    speed=ns.speed,
                    cpu=spent,
                )
                figures["archive"]["held_at_end"] = held
                figures["archive"]["journaled"] = journaled(Path(tmp))
            return figures
        finally:
            if console_task is not None:
                console_task.cancel()
                await asyncio.gather(console_task, return_exceptions=True)
            try:
                if watch is not None:
                    await watch.close()
            finally:
                floor.stop()
                if archive is not None:
                    archive.stop()
                    if figures.get("archive"):
                        figures["archive"]["own_word"] = archive.own_word()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="floord load test: tables into one broker")
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=180.0, help="the measured window")
    parser.add_argument("--daemons", type=int, default=4, help="daemon processes sharing them")
    parser.add_argument("--speed", type=float, default=1.0, help="wheel clock (1: real time)")
    parser.add_argument("--warmup", type=float, default=180.0, help="max s to identify/open")
    parser.add_argument("--workdir", default=None, help="where journals go (default: $TMPDIR)")
    parser.add_argument(
        "--nats-cluster",
        action="store_true",
        help="the three-node NATS cluster of examples/nats-cluster/ instead of one Mosquitto",
    )
    parser.add_argument(
        "--archive",
        choices=("sqlite", "postgresql", "none"),
        default="sqlite",
        help="floord archive beside the floor: a SQLite file, a private PostgreSQL, or none",
    )
    parser.add_argument("--compare-tree", action="append", metavar="PATH", help="(bench/trees.py)")
    parser.add_argument(
        "--browsers",
        type=int,
        default=0,
        help="floord web on the site, and this many headless Chromium pages on its floor",
    )
    parser.add_argument("--out", type=Path, default=None, help="JSON file (default: results/)")
    ns = parser.parse_args(argv)
    if ns.tables < 1 or ns.daemons < 1 or not ns.seconds > 0 or not ns.speed > 0:
        parser.error("--tables, --daemons, --seconds and --speed must be positive")
    if ns.browsers < 0:
        parser.error("--browsers must be 0 (no browser console) or more")
    if ns.browsers and chromium_path() is None:
        parser.error("--browsers needs chromium (Debian's `chromium` package)")
    figures = asyncio.run(run(ns))
    print_report(figures)
    out = ns.out or RESULTS / f"load-{figures['tables']}t-{figures['date'].replace(':', '')}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(figures, indent=2) + "\n")
    print(f"  written to {out}")
    return 0 if figures["daemons_alive_at_end"] == figures["daemons"] else 1


if __name__ == "__main__":
    sys.exit(main())
