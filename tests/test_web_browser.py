"""The browser console in a real headless Chromium, against a real daemon and Mosquitto.

A simulated SS2 wheel lands on 17 until the table's live pocket test raises an alert.
Chromium, driven over the DevTools protocol (`bench/cdp.py`), shows the floor with the
table's tile; signs in the page, with Web Crypto, exactly what Python signs; holds a
security officer's key and acknowledges the alert from the table page, with a note that
is markup: the daemon records the acknowledgement by that officer, the alerts page shows
the note as text, and the key never left the browser. A table whose every text is markup
(published as a hostile broker client would) is shown as text, nothing of it run. The
wheel falls silent: the table halts and its tile turns. The console restarts: the page
says it is not current, then is brought up to date.

And the demo as a newcomer runs it: its `web:` line's address shows every demo table, and
RL-03's alert acknowledged from the browser is on the table's record (the demo's own
event list shows `surveillance.alert_acknowledged`) and on the History page, read from
the demo's archive.
"""

from __future__ import annotations

import asyncio
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import aiomqtt
import pytest
import yaml
from e2e_support import (
    SITE,
    collecting,
    open_table,
    start_daemon,
    start_sim,
    write_config,
)

from bench.cdp import Page, chromium, chromium_path
from floord.contract import Envelope, Topics
from floord.operator.commands import sign_command
from floord.web.server import WebConsole, build
from floord.web.settings import load_web_config
from floord_demo import header as demo_header
from floord_demo.operators import SECURITY as DEMO_SECURITY

NO_CHROMIUM = "chromium is not installed (scripts/ensure-test-tools.sh installs it as root)"
pytestmark = [pytest.mark.system, pytest.mark.skipif(chromium_path() is None, reason=NO_CHROMIUM)]

SECURITY = "SE-3001"
SECURITY_KEY = "security-3001-secret"
SPINS = 185  # the smallest window a 37-pocket test takes (floord check)
SPEED = 400.0
XSS = '<img src=x onerror="window.__xss=1">'
# Where the docs' screenshots go when FLOORD_SCREENSHOTS names a directory.
SHOTS = os.environ.get("FLOORD_SCREENSHOTS")
ALERT_S = 90  # RL-03 fills its window in some 20 s; a loaded machine takes longer
STOP_S = 12.0


def alerting_config(tmp_path: Path, url: str, pty: str) -> Path:
    """RL-01 with a pocket test over 185 results, and a security officer."""
    path = write_config(tmp_path, url, pty)
    config = yaml.safe_load(path.read_text())
    (tmp_path / "security.key").write_text(SECURITY_KEY + "\n")
    config["operators"].append({"id": SECURITY, "role": "security", "key_file": "security.key"})
    config["surveillance"] = {
        "window": SPINS,
        "level": 0.001,
        "roulette_sectors": 0,
        "dealer_bins": 0,
    }
    path.write_text(yaml.safe_dump(config))
    return path


def tile_js(table: str, tail: str = "") -> str:
    """JavaScript for a table's tile on the floor page (and `tail` after it)."""
    return f"document.querySelector('[data-key=\"{SITE}/{table}\"]'){tail}"


def console(tmp_path: Path, url: str, port: int = 0) -> WebConsole:
    path = tmp_path / "web.yaml"
    config = {"listen": f"127.0.0.1:{port}", "broker": {"url": url}, "anonymous": True}
    path.write_text(yaml.safe_dump(config))
    return WebConsole(build(load_web_config(path)))


async def hostile_table(url: str) -> None:
    """A table whose game, device, alert and event texts are markup (retained)."""
    topics = Topics("floor/v1", SITE, "XSS-1")
    host, port = url.split("://", 1)[1].rsplit(":", 1)
    state = {
        "game": XSS,
        "state": "open",
        "devices": {XSS: {"online": True}},
        "alerts": [{"id": "A00001", "test": XSS, "p_value": 0.0001, "level": 0.001, "window": 9}],
    }
    event = Envelope(
        SITE, "XSS-1", 1, "2026-01-01T00:00:00.000000Z", "device.online", XSS, {"detail": XSS}
    )
    async with aiomqtt.Client(host, int(port)) as client:
        await client.publish(topics.state, json.dumps(state), qos=1, retain=True)
        await client.publish(topics.events, json.dumps(event.to_dict()), qos=1)


async def check_signer(page: Page) -> None:
    """The page's Web Crypto signature of a command is Python's, byte for byte."""
    args = {"alert": "A00001", "note": 'ünï "q" \\ \t 😀 ' + XSS, "é": 1, "z": [True, None, -5]}
    made = await page.evaluate(
        "import('/static/sign.js').then(async (m) => m.buildCommand('ack_alert', 'SE-1', "
        f"{json.dumps(args)}, await m.importKey(' k\u00e9y-1\\n'), new Date(1764921600123), 'abc'))"
    )
    expected = sign_command(
        {
            "id": "abc",
            "name": "ack_alert",
            "by": "SE-1",
            "ts": "2025-12-05T08:00:00.123000Z",
            "args": args,
        },
        " kéy-1".strip().encode(),
    )
    assert made == expected


async def shot(page: Page, name: str) -> None:
    if not SHOTS:
        return
    for width, height in ((1366, 768), (1920, 1080)):
        await page.size(width, height)
        await asyncio.sleep(0.3)
        await page.screenshot(Path(SHOTS) / f"console-{name}-{width}x{height}.png")
    await page.size(1366, 768)


def test_the_browser_console_end_to_end(broker, tmp_path: Path) -> None:
    steps = [{"idle": 1500}, *([{"spin": {"number": "17"}}] * SPINS), {"idle": 60000}]
    sim, pty = start_sim(tmp_path, {"pockets": 37, "seed": 3, "steps": steps}, SPEED)
    daemon = start_daemon(alerting_config(tmp_path, broker.url, pty))

    async def run() -> None:
        web = console(tmp_path, broker.url)
        await web.start()
        serving = asyncio.create_task(web.run())
        try:
            async with collecting(broker.url) as c, chromium(tmp_path) as browser:
                await c.event("device.identified")
                await open_table(broker.url)
                await hostile_table(broker.url)
                floor = await browser.page()
                await floor.goto(web.url)
                await floor.wait_for(tile_js("RL-01", ""), what="RL-01's tile")
                await check_signer(floor)
                # The hostile table: every text shown as text, nothing run.
                await floor.wait_for(tile_js("XSS-1", ""))
                tile = await floor.evaluate(tile_js("XSS-1", ".innerText"))
                assert XSS in tile
                table = await browser.page()
                await table.goto(f"{web.url}table?site={SITE}&table=XSS-1")
                await table.wait_for("document.querySelector('#devices li')", what="devices")
                text = await table.evaluate("document.body.innerText")
                assert text.count(XSS) >= 3, text
                for page in (floor, table):
                    assert await page.evaluate("document.querySelectorAll('img').length") == 0
                    assert await page.evaluate("window.__xss === undefined")
                # The alert, acknowledged from the table page with the officer's key.
                raised = await c.event("surveillance.alert", timeout=120)
                alert = raised["data"]["id"]
                await table.goto(f"{web.url}table?site={SITE}&table=RL-01")
                await table.wait_for(f"document.querySelector('[data-alert=\"{alert}\"] button')")
                await shot(table, "table")
                await table.evaluate(
                    f"document.getElementById('operator').value = '{SECURITY}';"
                    f"document.getElementById('key').value = '{SECURITY_KEY}';"
                    "document.getElementById('hold-key').click()"
                )
                await table.wait_for(
                    "document.getElementById('key').value === '' && "
                    f"!document.querySelector('[data-alert=\"{alert}\"] button').disabled"
                )
                await table.evaluate(
                    f"const row = document.querySelector('[data-alert=\"{alert}\"]');"
                    f"row.querySelector('.note').value = {json.dumps(XSS)};"
                    "row.querySelector('button').click()"
                )
                acked = await c.event("surveillance.alert_acknowledged", timeout=30)
                assert acked["data"]["id"] == alert and acked["data"]["by"] == SECURITY
                assert acked["data"]["note"] == XSS
                await table.wait_for(
                    f"!document.querySelector('[data-alert=\"{alert}\"]')",
                    what="the alert to leave the table page",
                )
                alerts = await browser.page()
                await alerts.goto(f"{web.url}alerts")
                await alerts.wait_for(f"document.querySelector('#acked [data-alert=\"{alert}\"]')")
                row = await alerts.evaluate(
                    f"document.querySelector('#acked [data-alert=\"{alert}\"]').innerText"
                )
                assert SECURITY in row and XSS in row, row
                await shot(alerts, "alerts")
                # The key never left the browser, and is nowhere it could be read back.
                for page in (floor, table, alerts):
                    assert SECURITY_KEY not in page.sent_bytes()
                    stored = await page.evaluate(
                        "JSON.stringify([localStorage, sessionStorage, document.cookie])"
                    )
                    assert SECURITY_KEY not in stored
                    assert await page.evaluate("window.__xss === undefined")
                # The wheel falls silent: the table halts and its tile turns.
                sim.kill()
                await floor.wait_for(
                    tile_js("RL-01", ".dataset.colour === 'halted'"),
                    timeout=30,
                    what="RL-01 halted",
                )
                await shot(floor, "floor")
                # The console restarts: not current meanwhile, then up to date.
                web.stop()
                # Within floord-web.service's TimeoutStopSec (15 s), browsers connected.
                await asyncio.wait_for(serving, STOP_S)
                await floor.wait_for("document.body.classList.contains('not-current')")
                web = console(tmp_path, broker.url, web.port)
                await web.start()
                serving = asyncio.create_task(web.run())
                await floor.wait_for(
                    "!document.body.classList.contains('not-current') && "
                    + tile_js("RL-01", ".dataset.colour === 'halted'"),
                    timeout=30,
                    what="the floor up to date after the restart",
                )
        finally:
            web.stop()
            await serving

    try:
        asyncio.run(run())
    finally:
        assert daemon.terminate() == 0
        sim.kill()


async def _listed_in_the_history(page: Page, history: str, timeout_s: float = 30.0) -> str:
    """The first row of the History page at `history`, once it lists one: the page reads
    the archive once, when it loads, and the archive stores an event a batch after the
    record has it (on a loaded machine, seconds after), so the page is loaded again until
    it lists the row, as a person presses reload."""
    found = "document.querySelector('#rows tr.event .text')"
    deadline = time.monotonic() + timeout_s
    while True:
        await page.goto(history)
        try:
            await page.wait_for(found, timeout=2, what="the acknowledgement in the archive")
            return found
        except AssertionError:
            if time.monotonic() > deadline:
                raise


def test_the_demo_floor_in_the_browser(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "floord", "demo", "--seconds", "150"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    lines: queue.Queue[str | None] = queue.Queue()
    seen: list[str] = []

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line.rstrip("\n"))
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()

    def until(prefix: str, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = lines.get(timeout=0.5)
            except queue.Empty:
                continue
            if line is None:
                break
            seen.append(line)
            if prefix in line:
                return line
        raise AssertionError(f"no {prefix!r} from the demo:\n" + "\n".join(seen[-30:]))

    async def run(url: str, tables: list[str]) -> None:
        async with chromium(tmp_path) as browser:
            page = await browser.page()
            await page.goto(url)
            every = " && ".join(
                f"document.querySelector('[data-key=\"demo/{t}\"]')" for t in tables
            )
            await page.wait_for(every, timeout=30, what="every demo table's tile")
            await page.goto(f"{url}alerts")
            row = "document.querySelector('#open [data-alert=\"A00001\"] button')"
            await page.wait_for(row, timeout=ALERT_S, what="RL-03's alert")
            await page.evaluate(
                f"document.getElementById('operator').value = '{DEMO_SECURITY.id}';"
                f"document.getElementById('key').value = '{DEMO_SECURITY.secret}';"
                "document.getElementById('hold-key').click()"
            )
            await page.wait_for(f"!{row}.disabled", what="the key held")
            await page.evaluate(
                "const r = document.querySelector('#open [data-alert=\"A00001\"]');"
                "r.querySelector('.note').value = 'seen from the browser';"
                "r.querySelector('button').click()"
            )
            acked = "document.querySelector('#acked [data-alert=\"A00001\"]')"
            await page.wait_for(acked, timeout=30, what="the acknowledgement on the record")
            text = await page.evaluate(f"{acked}.innerText")
            assert DEMO_SECURITY.id in text and "seen from the browser" in text, text
            assert DEMO_SECURITY.secret not in page.sent_bytes()
            # The demo's archive took the acknowledgement: its History page lists it.
            await page.evaluate("document.getElementById('history-link').click()")
            await page.wait_for("location.pathname === '/history'", what="the History page")
            found = await _listed_in_the_history(
                page, f"{url}history?table=RL-03&type=surveillance.alert_acknowledged"
            )
            text = await page.evaluate(f"{found}.textContent")
            assert "seen from the browser" in text, text

    try:
        web = until(demo_header.WEB, 60).removeprefix(demo_header.WEB)
        url = web.split()[0]
        assert url.startswith("http://127.0.0.1:") and url.endswith("/"), web
        listed = until(demo_header.TABLES, 10).removeprefix(demo_header.TABLES)
        tables = listed.split(" (", 1)[0].split()
        assert len(tables) >= 11, listed
        asyncio.run(run(url, tables))
        until(" surveillance.alert_acknowledged ", 30)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0
