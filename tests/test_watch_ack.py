"""The console acknowledges a live surveillance alert: a real daemon, a real Mosquitto.

A simulated SS2 wheel (on a real pty) lands on 17 185 times; the daemon's live
pocket test (window 185, `surveillance:` in the config) raises `surveillance.alert`. The
console, headless at 80x24, shows it in the row. A floorperson's console presses `a`
twice and the table refuses (`ack_alert` is for a supervisor or security): the refusal
is on screen. Security's console does the same, the table records
`surveillance.alert_acknowledged` by that officer, and the row's alert clears.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from e2e_support import (
    FP,
    FP_KEY,
    SITE,
    collecting,
    open_table,
    start_daemon,
    start_sim,
    topics,
    write_config,
)
from textual.pilot import Pilot
from textual.widgets import Static
from watch_support import screen_text

from floord.watch.app import WatchApp
from floord.watch.feed import ReplaySigner, WatchFeed
from floord.watch.model import FloorModel

pytestmark = pytest.mark.system

SECURITY = "SE-3001"
SECURITY_KEY = b"security-3001-secret"
SPINS = 185  # the smallest window a 37-pocket test takes (floord check)
SPEED = 150.0
TABLE = (SITE, "RL-01")


def alerting_config(tmp_path: Path, url: str, pty: str) -> Path:
    """RL-01 with a pocket test over 185 results, and a security officer."""
    path = write_config(tmp_path, url, pty)
    config = yaml.safe_load(path.read_text())
    (tmp_path / "security.key").write_bytes(SECURITY_KEY + b"\n")
    config["operators"].append({"id": SECURITY, "role": "security", "key_file": "security.key"})
    config["surveillance"] = {
        "window": SPINS,
        "level": 0.001,
        "roulette_sectors": 0,
        "dealer_bins": 0,
    }
    path.write_text(yaml.safe_dump(config))
    return path


async def until(pilot: Pilot[None], check: Callable[[], bool], what: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}:\n{screen_text(pilot.app)}")
        await pilot.pause(0.1)


def console(url: str, operator: str, key: bytes) -> tuple[FloorModel, WatchApp]:
    model = FloorModel("floor/v1", can_replay=True)
    feed = WatchFeed(model, url=url, signer=ReplaySigner(operator, key))
    return model, WatchApp(model, feed, refresh_s=0.05)


def row_line(text: str, table: str) -> str:
    return next(line for line in text.splitlines() if line.startswith(f" {table} "))


async def ack_from(url: str, operator: str, key: bytes) -> tuple[str, str, FloorModel]:
    """Open a console as `operator`, press `a` twice on RL-01; the screen once answered,
    and the detail view's text."""
    model, app = console(url, operator, key)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(
            pilot,
            lambda: TABLE in model.tables and bool(model.tables[TABLE].alerts),
            "the alert",
            30,
        )
        await until(pilot, lambda: app.selected == TABLE, "RL-01 selected", 10)
        await pilot.pause(0.2)
        shown = screen_text(app)
        alert_id = sorted(model.tables[TABLE].alerts)[0]
        assert f"{alert_id} pocket" in row_line(shown, "RL-01"), shown
        await pilot.press("a")
        await pilot.pause(0.1)
        assert f"acknowledge alert {alert_id} on {SITE}/RL-01? press a again" in screen_text(app)
        await pilot.press("a")
        view = model.tables[TABLE]
        await until(
            pilot,
            lambda: view.command is not None and view.command.ok is not None,
            "the table's answer",
            20,
        )
        if view.command is not None and view.command.ok:
            await until(pilot, lambda: alert_id not in view.alerts, "the alert to clear", 20)
        await pilot.pause(0.3)
        return screen_text(app), str(app.query_one("#detail", Static).content), model


def test_the_console_acknowledges_a_live_alert_and_a_floorperson_is_refused(
    broker, tmp_path: Path
) -> None:
    steps = [{"idle": 1500}, *([{"spin": {"number": "17"}}] * SPINS), {"idle": 60000}]
    sim, pty = start_sim(tmp_path, {"pockets": 37, "seed": 3, "steps": steps}, SPEED)
    daemon = start_daemon(alerting_config(tmp_path, broker.url, pty))

    async def run() -> None:
        async with collecting(broker.url) as c:
            await c.event("device.identified")
            await open_table(broker.url)
            raised = await c.event("surveillance.alert", timeout=120)
            alert_id = raised["data"]["id"]

            shown, detail, model = await ack_from(broker.url, FP, FP_KEY)
            refused = model.tables[TABLE].command
            assert refused is not None and refused.ok is False
            assert refused.error is not None
            assert "'ack_alert' may be issued by security, supervisor" in refused.error
            assert f"ack_alert {alert_id}" in shown and "refused" in shown, shown
            assert alert_id in model.tables[TABLE].alerts  # still open
            # The table's own record of it, in the detail view, as a sentence.
            assert f"{FP}'s ack_alert refused (role_not_allowed): 'ack_alert' may be" in detail

            shown, detail, model = await ack_from(broker.url, SECURITY, SECURITY_KEY)
            acked = await c.event("surveillance.alert_acknowledged")
            assert acked["data"]["id"] == alert_id and acked["data"]["by"] == SECURITY
            assert f"{SITE}/RL-01: ack_alert {alert_id}" in shown and "accepted" in shown, shown
            assert model.tables[TABLE].command is not None
            assert model.tables[TABLE].command.ok is True
            assert alert_id not in row_line(shown, "RL-01"), shown
            assert "alerts 0" in shown.splitlines()[0], shown
            assert f"{SECURITY} (security): ack_alert alert {alert_id}, note " in detail
            assert f"alert {alert_id} acknowledged by {SECURITY}: acknowledged at" in detail
            assert "{" not in detail
            refusals = c.events(topics().events)
            assert any(
                e["type"] == "operator.command_refused" and e["data"]["by"] == FP for e in refusals
            )

    try:
        asyncio.run(run())
    finally:
        assert daemon.terminate() == 0
        sim.kill()
