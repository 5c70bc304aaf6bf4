"""End to end: a roulette table whose second source is a device behind a remote adapter.

The SS2 (a simulator on a real pty, in the daemon's process) is the table's wheel; a
wheel sensor kit, standing for a result camera, is the second source: its simulator is
on a pty of its own, driven live through its control channel, and its adapter runs as
its own process (`floord adapter`), so its `wheel.number` reaches the table over MQTT on
`P/devices/kit/events`. The kit's number that agrees confirms the SS2's; one that does
not holds the round, with an alert, until the floorperson's signed ruling settles it.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest
from e2e_support import (
    Process,
    collecting,
    command,
    open_table,
    start_daemon,
    start_device_sim,
    start_sim,
    topics,
    write_tables_config,
)
from test_sim_control import control_socket

pytestmark = pytest.mark.system

SPEED = 5.0


def _number(value: str) -> Any:
    return lambda b: b["data"].get("number") == value and b["source"] == "wheel"


def test_a_remote_devices_numbers_confirm_or_dispute_the_wheels(broker, tmp_path: Path) -> None:
    short = tempfile.mkdtemp(prefix="floord-kit-")  # a unix socket path is short
    sock = f"{short}/kit.sock"
    kit_sim, kit_pty = start_device_sim(
        tmp_path, "ref-wheel-sensor", {"steps": [{"idle": 6000}]}, control=f"unix:{sock}"
    )
    scenario = {
        "pockets": 37,
        "seed": 8,
        "steps": [
            {"idle": 60},  # 12 s: the daemon, the adapter and both devices come up
            {"spin": {"number": "32"}},
            {"idle": 40},
            {"spin": {"number": "11"}},
            {"idle": 3000},
        ],
    }
    sim, pty = start_sim(tmp_path, scenario, SPEED)
    table = {
        "id": "RL-01",
        "game": "roulette",
        "rules": {"wheel": "single_zero"},
        "devices": [
            {"id": "wheel", "profile": "cammegh-ss2", "port": pty},
            {"id": "kit", "profile": "ref-wheel-sensor", "port": kit_pty, "adapter": "remote"},
        ],
        "second_source": {"device": "kit", "window_s": 5, "on_silence": "hold"},
    }
    config = write_tables_config(tmp_path, broker.url, [table])
    args = ["adapter", "-c", str(config), "--table", "RL-01", "--device", "kit"]
    adapter = Process(args, stdout=subprocess.DEVNULL)
    daemon = start_daemon(config)
    t = topics()

    async def run() -> None:
        async with collecting(broker.url) as c, control_socket(sock) as ask:

            async def kit_reports(pocket: str) -> None:
                reply = await ask(f'{{spin: {{pocket: "{pocket}", seconds: 0.2}}}}')
                assert reply.startswith("ok "), reply

            await c.event("device.identified", lambda b: b["source"] == "wheel", timeout=60)
            await c.event("device.identified", lambda b: b["source"] == "kit", timeout=60)
            await open_table(broker.url)
            # The kit agrees: its event comes over MQTT from the adapter process.
            await c.event("wheel.number", _number("32"), timeout=60)
            await kit_reports("32")
            confirmed = await c.event("result.confirmed")
            assert confirmed["data"]["second"]["source"] == "kit"
            remote = [b for b in c.events(t.device_events("kit")) if b["type"] == "wheel.number"]
            assert remote and remote[0]["data"]["number"] == "32", "published by the adapter"
            result = await c.event("roulette.result", lambda b: b["data"]["number"] == "32")
            assert result["round"] == confirmed["round"]

            # The kit disagrees: held, alerted, ruled.
            await c.event("wheel.number", _number("11"), timeout=60)
            await kit_reports("12")
            disputed = await c.event("result.disputed")
            assert disputed["data"]["second"] == {
                "source": "kit",
                "value": "12",
                "at": disputed["data"]["second"]["at"],
            }
            alert = await c.event("surveillance.alert")
            assert alert["round"] == disputed["round"]
            ruling = {"round": disputed["round"], "value": "12", "note": "camera right"}
            reply = await command(broker.url, "rule_result", ruling)
            assert reply["ok"], reply
            ruled = await c.event("result.ruled")
            assert ruled["data"]["agrees_with"] == ["second"]
            settled = await c.event("roulette.result", lambda b: b["data"]["number"] == "12")
            assert settled["round"] == disputed["round"]

    try:
        asyncio.run(asyncio.wait_for(run(), 150))
    finally:
        try:
            assert daemon.terminate() == 0
            assert adapter.terminate() == 0
        finally:
            sim.kill()
            kit_sim.kill()
            shutil.rmtree(short, ignore_errors=True)
