"""The browser console under a floor's load: 200 tables at 4x real time, 5 browsers open.

The traffic is the load bench's (`bench.load_tables`: a roulette table at 4x real time
makes about 2 events a second) without its daemons: this process publishes each table's
retained state and then its events, QoS 1, `seq` by `seq`, each stamped with the moment
it was made, into a private Mosquitto. `floord web` runs as its own process on
loopback; five headless Chromium pages show the floor. In each page a DOM observer takes,
for every tile whose last event changed, the time from that event's `ts` to the tile on
the page: the broker, the console's model, its flush (100 ms), the WebSocket, the page's
redraw (100 ms at most). The console's CPU and memory, and the browsers' CPU, are read
from /proc (`bench/web_pages.py`, shared with `bench.load_tables --browsers`, which
measures the same behind real daemons).

    python -m bench.web_console [--tables 200] [--rate 2] [--browsers 5] [--seconds 60]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiomqtt

from bench.proc_stats import dies_with_bench, end, machine
from bench.web_pages import Watch
from floord.contract import Envelope, Topics, format_ts
from floord_demo.broker import free_port, mosquitto_binary

RESULTS = Path(__file__).resolve().parent / "results"
SITE = "bench"


async def publish(port: int, tables: list[str], rate: float, stop: asyncio.Event) -> int:
    """Each table's retained state, then `rate` events a table a second until `stop`."""
    sent = 0
    async with aiomqtt.Client("127.0.0.1", port, max_queued_outgoing_messages=0) as client:
        for table in tables:
            state = {"game": "roulette", "state": "open", "devices": {"wheel": {"online": True}}}
            await client.publish(Topics("floor/v1", SITE, table).state, json.dumps(state), 1, True)
        seqs = dict.fromkeys(tables, 0)
        tick = 0.05
        per_tick = len(tables) * rate * tick
        owed = 0.0
        turn = 0
        next_at = time.monotonic()
        while not stop.is_set():
            owed += per_tick
            while owed >= 1:
                owed -= 1
                table = tables[turn % len(tables)]
                turn += 1
                seqs[table] += 1
                event = Envelope(
                    SITE,
                    table,
                    seqs[table],
                    format_ts(datetime.now(UTC)),
                    "roulette.result",
                    "engine",
                    {"number": str(turn % 37)},
                )
                await client.publish(
                    Topics("floor/v1", SITE, table).events, json.dumps(event.to_dict()), qos=1
                )
                sent += 1
            next_at += tick
            await asyncio.sleep(max(0.0, next_at - time.monotonic()))
    return sent


async def run(ns: argparse.Namespace) -> dict[str, Any]:
    binary = mosquitto_binary()
    if binary is None:
        raise SystemExit("web bench: mosquitto not found (scripts/ensure-test-tools.sh)")
    with tempfile.TemporaryDirectory(prefix="floord-web-bench-") as tmp:
        folder = Path(tmp)
        broker_port = free_port()
        conf = folder / "mosquitto.conf"
        conf.write_text(
            f"listener {broker_port} 127.0.0.1\nallow_anonymous true\n"
            "max_queued_messages 0\npersistence false\nlog_dest none\n"
        )
        broker = subprocess.Popen(
            [binary, "-c", str(conf)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=dies_with_bench(),
        )
        watch = Watch(folder, f"mqtt://127.0.0.1:{broker_port}")
        stop = asyncio.Event()
        publisher: asyncio.Task[int] | None = None
        try:
            await watch.start()
            tables = [f"T-{n:03d}" for n in range(1, ns.tables + 1)]
            publisher = asyncio.create_task(publish(broker_port, tables, ns.rate, stop))
            await watch.open(ns.browsers, ns.tables)
            await asyncio.sleep(ns.warmup)
            await watch.begin()
            await asyncio.sleep(ns.seconds)
            web = await watch.end()
            stop.set()
            sent = await publisher
        finally:
            if publisher is not None and not publisher.done():
                publisher.cancel()
                await asyncio.gather(publisher, return_exceptions=True)
            try:
                await watch.close()
            finally:
                end(broker, 10)
    return {
        "date": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "machine": machine(),
        "tables": ns.tables,
        "events_per_table_s": ns.rate,
        "events_published": sent,
        **web,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="floord web under a floor's load")
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--rate", type=float, default=2.0, help="events a table a second")
    parser.add_argument("--browsers", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=60.0, help="the measured window")
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument("--out", type=Path, default=None, help="JSON file (default: results/)")
    ns = parser.parse_args(argv)
    figures = asyncio.run(run(ns))
    print(json.dumps(figures, indent=2))
    out = ns.out or RESULTS / f"web-{ns.tables}t-{figures['date'].replace(':', '')}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(figures, indent=2) + "\n")
    print(f"written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
