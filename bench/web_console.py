"""The browser console under a floor's load: 200 tables at 4x real time, 5 browsers open.

The traffic is the load bench's (`bench.load_tables`: a roulette table at 4x real time
makes about 2 events a second) without its daemons: this process publishes each table's
retained state and then its events, QoS 1, `seq` by `seq`, each stamped with the moment
it was made, into a private Mosquitto. `floord web` runs as its own process on
loopback; five headless Chromium pages show the floor. In each page a DOM observer takes,
for every tile whose last event changed, the time from that event's `ts` to the tile on
the page: the broker, the console's model, its flush (100 ms), the WebSocket, the page's
redraw (100 ms at most). The console's CPU and memory are read from /proc.

    python -m bench.web_console [--tables 200] [--rate 2] [--browsers 5] [--seconds 60]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiomqtt
import yaml

from bench.cdp import chromium
from bench.load_console import percentile
from bench.proc_stats import machine, sample
from floord.contract import Envelope, Topics, format_ts
from floord.demo.broker import free_port, mosquitto_binary

RESULTS = Path(__file__).resolve().parent / "results"
SITE = "bench"
OBSERVER = """
window.__lags = []; window.__seen = {};
new MutationObserver(() => {
  const now = Date.now();
  for (const tile of document.querySelectorAll('.tile')) {
    const ts = tile.dataset.ts, key = tile.dataset.key;
    if (ts && window.__seen[key] !== ts) {
      if (window.__seen[key] !== undefined) window.__lags.push(now - Date.parse(ts));
      window.__seen[key] = ts;
    }
  }
}).observe(document.getElementById('tiles'), {childList: true});
true
"""


async def publish(port: int, tables: list[str], rate: float, until: float) -> int:
    """Each table's retained state, then `rate` events a table a second until `until`."""
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
        while time.monotonic() < until:
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
        broker_port, web_port = free_port(), free_port()
        conf = folder / "mosquitto.conf"
        conf.write_text(
            f"listener {broker_port} 127.0.0.1\nallow_anonymous true\n"
            "max_queued_messages 0\npersistence false\nlog_dest none\n"
        )
        broker = subprocess.Popen(
            [binary, "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        config = folder / "web.yaml"
        config.write_text(
            yaml.safe_dump(
                {
                    "listen": f"127.0.0.1:{web_port}",
                    "anonymous": True,
                    "broker": {"url": f"mqtt://127.0.0.1:{broker_port}"},
                }
            )
        )
        web = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "floord",
                "--log-level",
                "warning",
                "web",
                "--config",
                str(config),
            ],
            stdout=subprocess.DEVNULL,
        )
        try:
            await asyncio.sleep(2.0)
            tables = [f"T-{n:03d}" for n in range(1, ns.tables + 1)]
            warm = time.monotonic() + ns.warmup + ns.seconds
            publisher = asyncio.create_task(publish(broker_port, tables, ns.rate, warm))
            async with chromium(folder, background=True) as browser:
                pages = []
                for _ in range(ns.browsers):
                    page = await browser.page(1920, 1080)
                    await page.goto(f"http://127.0.0.1:{web_port}/")
                    pages.append(page)
                for page in pages:
                    await page.wait_for(
                        f"document.querySelectorAll('.tile').length === {ns.tables}", timeout=60
                    )
                await asyncio.sleep(ns.warmup)
                for page in pages:
                    await page.evaluate(OBSERVER)
                before = sample(web.pid)
                started = time.monotonic()
                await asyncio.sleep(ns.seconds)
                after = sample(web.pid)
                elapsed = time.monotonic() - started
                lags: list[float] = []
                for page in pages:
                    lags += await page.evaluate("window.__lags")
            sent = await publisher
        finally:
            for proc in (web, broker):
                proc.terminate()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(10)
                if proc.poll() is None:
                    proc.kill()
    cpu = (after.cpu_s - before.cpu_s) / elapsed * 100 if before and after else None
    return {
        "date": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "machine": machine(),
        "tables": ns.tables,
        "events_per_table_s": ns.rate,
        "browsers": ns.browsers,
        "seconds": round(elapsed, 1),
        "events_published": sent,
        "tile_updates_seen": len(lags),
        "tile_lag_ms_p50": percentile(lags, 0.5),
        "tile_lag_ms_p99": percentile(lags, 0.99),
        "tile_lag_ms_max": max(lags) if lags else None,
        "web_cpu_percent_of_a_core": round(cpu, 1) if cpu is not None else None,
        "web_rss_mib": round(after.rss_mib, 1) if after else None,
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
