"""The browser console measured from inside its pages, for the benches that load it.

`floord web` runs as a process of its own (anonymous, on a free loopback port, reading the
bench's broker as a surveillance console does), so its CPU and memory are its own and
not the bench's. Headless Chromium pages (`bench/cdp.py`) show its floor page; in each
page a DOM observer notes, for every tile whose table's latest event changed, the time
from that event's `ts` (the moment it was made) to the tile on the page: whatever lay
between (a daemon's commit and publish, the broker, the console's model and its flush,
the WebSocket, the page's redraw) is in it. `bench.web_console` (synthetic events) and
`bench.load_tables --browsers N` (real daemons) share this code, so both measure alike.
"""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from bench.cdp import Browser, Page, chromium
from bench.load_console import percentile
from bench.proc_stats import Sample, end, family, sample, waited_s
from floord_demo.broker import free_port

# Installed before the page's own script: when each tile's body (its table's key and
# latest `ts`) came in on the page's WebSocket, before the page itself reads the frame.
ARRIVALS = """
window.__arrived = new Map();
const Native = window.WebSocket;
window.WebSocket = class extends Native {
  constructor(...args) {
    super(...args);
    this.addEventListener('message', (event) => {
      const now = Date.now();
      let body;
      try { body = JSON.parse(event.data); } catch (e) { return; }
      if (body.type !== 'tiles') return;
      for (const t of body.tiles) {
        const seen = t.key + ' ' + t.last_ts;
        if (t.last_ts && !window.__arrived.has(seen)) window.__arrived.set(seen, now);
      }
    });
  }
};
"""

# A tile's first sighting only notes its `ts`; every later change of it is one lag, split
# where its body came in on the WebSocket (-1 if that was before the observer began).
OBSERVER = """
window.__lags = []; window.__seen = {};
new MutationObserver(() => {
  const now = Date.now();
  for (const tile of document.querySelectorAll('.tile')) {
    const ts = tile.dataset.ts, key = tile.dataset.key;
    if (ts && window.__seen[key] !== ts) {
      if (window.__seen[key] !== undefined) {
        const made = Date.parse(ts), came = window.__arrived.get(key + ' ' + ts);
        window.__lags.push([now - made, came === undefined ? -1 : came - made]);
      }
      window.__arrived.delete(key + ' ' + ts);
      window.__seen[key] = ts;
    }
  }
}).observe(document.getElementById('tiles'), {childList: true});
true
"""


class WebProcess:
    """`floord web` in its own process on loopback, anonymous, reading `broker_url`."""

    def __init__(self, folder: Path, broker_url: str, sites: list[str] | None = None) -> None:
        self.folder = folder
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.log = folder / "web.log"
        settings: dict[str, Any] = {
            "listen": f"127.0.0.1:{self.port}",
            "anonymous": True,
            "broker": {"url": broker_url},
        }
        if sites:
            settings["sites"] = sites
        self.config = folder / "web.yaml"
        self.config.write_text(yaml.safe_dump(settings, sort_keys=False))
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log.open("wb") as log:
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "floord",
                    "--log-level",
                    "warning",
                    "web",
                    "--config",
                    str(self.config),
                ],
                stdout=log,
                stderr=log,
            )

    async def ready(self, timeout: float = 30.0) -> None:
        """Until it takes a connection; SystemExit with its last log line if it stopped."""
        deadline = time.monotonic() + timeout
        while True:
            if self.proc is None or self.proc.poll() is not None:
                last = (self.log.read_text(errors="replace").strip().splitlines() or [""])[-1]
                raise SystemExit(f"bench: floord web stopped: {last}")
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", self.port)
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit("bench: floord web did not listen") from None
                await asyncio.sleep(0.1)
                continue
            writer.close()
            await writer.wait_closed()
            return

    def sample(self) -> Sample | None:
        return None if self.proc is None else sample(self.proc.pid)

    def stop(self) -> None:
        if self.proc is not None:
            end(self.proc, 10)


async def open_floor(browser: Browser, url: str, count: int, tables: int) -> list[Page]:
    """`count` pages on the floor page, each once it shows `tables` tiles."""
    pages = []
    for _ in range(count):
        page = await browser.page(1920, 1080)
        await page.send("Page.addScriptToEvaluateOnNewDocument", {"source": ARRIVALS})
        await page.goto(url)
        pages.append(page)
    for page in pages:
        await page.wait_for(
            f"document.querySelectorAll('.tile').length === {tables}",
            timeout=60,
            what=f"{tables} tiles on the floor page",
        )
    return pages


async def observe(pages: list[Page]) -> None:
    """From now on, each page notes its tiles' lags."""
    for page in pages:
        await page.evaluate(OBSERVER)


@dataclass
class Lags:
    """Each tile change's lag in ms: from its event's `ts` to the tile on the page, and of
    that, to its body on the page's WebSocket (the daemon, the broker, floord web and its
    flush) and from there to the tile (the page's redraw timer and its work)."""

    tile: list[float]
    to_socket: list[float]
    on_page: list[float]


async def tile_lags(pages: list[Page]) -> Lags:
    """Every lag the pages noted since `observe`."""
    lags = Lags([], [], [])
    for page in pages:
        for total, came in await page.evaluate("window.__lags"):
            lags.tile.append(total)
            if came >= 0:
                lags.to_socket.append(came)
                lags.on_page.append(total - came)
    return lags


@dataclass
class Usage:
    """CPU seconds of floord web and of the browser's processes at one moment."""

    web: Sample | None
    web_waited_s: float | None
    browsers_cpu_s: float

    @classmethod
    def now(cls, web: WebProcess, browser: Browser) -> Usage:
        pids = family(browser.proc.pid)
        cpu = sum(s.cpu_s for s in (sample(p) for p in pids) if s is not None)
        waited = None if web.proc is None else waited_s(web.proc.pid)
        return cls(web.sample(), waited, cpu)


def figures(lags: Lags, before: Usage, after: Usage, elapsed: float, pages: int) -> dict[str, Any]:
    """The tile lag and what the console and the browsers used, as JSON-able figures."""

    def rounded(value: float | None) -> float | None:
        return None if value is None else round(value, 1)

    web_cpu = waited = None
    if before.web is not None and after.web is not None:
        web_cpu = round(100.0 * (after.web.cpu_s - before.web.cpu_s) / elapsed, 1)
    if before.web_waited_s is not None and after.web_waited_s is not None:
        waited = round(1000.0 * (after.web_waited_s - before.web_waited_s) / elapsed, 1)

    def spread(values: list[float]) -> dict[str, Any]:
        return {
            "p50": rounded(percentile(values, 0.50)),
            "p99": rounded(percentile(values, 0.99)),
            "max": rounded(max(values, default=None)),
        }

    return {
        "browsers": pages,
        "seconds": round(elapsed, 1),
        "tile_updates_seen": len(lags.tile),
        "tile_lag_ms": {
            **spread(lags.tile),
            "over_1s": sum(1 for lag in lags.tile if lag > 1000.0),
            "to_the_pages_socket": spread(lags.to_socket),
            "socket_to_tile": spread(lags.on_page),
        },
        "web_cpu_percent_of_one_core": web_cpu,
        # Ready to run, waiting for a core: ms a second of the window.
        "web_waited_for_a_core_ms_per_s": waited,
        "web_rss_mib": None if after.web is None else round(after.web.rss_mib, 1),
        "web_peak_rss_mib": None if after.web is None else round(after.web.peak_rss_mib, 1),
        "browsers_cpu_percent_of_one_core": round(
            100.0 * (after.browsers_cpu_s - before.browsers_cpu_s) / elapsed, 1
        ),
    }


class Watch:
    """floord web and `count` pages on its floor: start, open, begin, end, close.

    Between `begin` and `end` the pages note their tiles' lags and /proc is read for
    the console's and the browsers' CPU; `end` gives the figures of that window."""

    def __init__(self, folder: Path, broker_url: str, sites: list[str] | None = None) -> None:
        self.folder = folder
        self.web = WebProcess(folder, broker_url, sites)
        self.stack = contextlib.AsyncExitStack()
        self.browser: Browser | None = None
        self.pages: list[Page] = []
        self.before: Usage | None = None
        self.started = 0.0

    async def start(self) -> None:
        self.web.start()
        await self.web.ready()

    async def open(self, count: int, tables: int) -> None:
        self.browser = await self.stack.enter_async_context(chromium(self.folder, background=True))
        self.pages = await open_floor(self.browser, self.web.url, count, tables)

    async def begin(self) -> None:
        assert self.browser is not None
        await observe(self.pages)
        self.before = Usage.now(self.web, self.browser)
        self.started = time.monotonic()

    async def end(self) -> dict[str, Any]:
        assert self.browser is not None and self.before is not None
        after = Usage.now(self.web, self.browser)
        elapsed = time.monotonic() - self.started
        lags = await tile_lags(self.pages)
        return figures(lags, self.before, after, elapsed, len(self.pages))

    async def close(self) -> None:
        """The browser and the console stopped, whatever state they are in."""
        try:
            await self.stack.aclose()
        finally:
            self.web.stop()
