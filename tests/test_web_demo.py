"""`floord demo` prints the browser console's address; its floor page shows every demo
table live, and an alert acknowledged from the browser is on the table's record.

The demo runs as a newcomer runs it (a subprocess, its own Mosquitto); headless Chromium
(`bench/cdp.py`) opens the `web:` line's address, holds the demo's security officer's
key, and acknowledges RL-03's sector alert from the alerts page. The demo's own event
list (the table's record, as published) then shows `surveillance.alert_acknowledged`.
"""

from __future__ import annotations

import asyncio
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from bench.cdp import chromium, chromium_path
from floord.demo import header as demo_header
from floord.demo.operators import SECURITY

NO_CHROMIUM = "chromium is not installed (scripts/ensure-test-tools.sh installs it as root)"
pytestmark = [pytest.mark.system, pytest.mark.skipif(chromium_path() is None, reason=NO_CHROMIUM)]
ALERT_S = 90  # RL-03 fills its window in some 20 s; a loaded machine takes longer


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
                f"document.getElementById('operator').value = '{SECURITY.id}';"
                f"document.getElementById('key').value = '{SECURITY.secret}';"
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
            assert SECURITY.id in text and "seen from the browser" in text, text
            assert SECURITY.secret not in page.sent_bytes()

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
