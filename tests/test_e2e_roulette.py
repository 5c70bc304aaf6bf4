"""End to end: a simulated SS2 on a real pty, the real daemon, a real Mosquitto.

A spin becomes `roulette.result`; a ball spun the same way as the rotor becomes
`roulette.no_spin` under 58 Pa. Code § 531.7(a) and floord asks the wheel to re-spin.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from e2e_support import collecting, open_table, start_daemon, start_sim, topics, write_config

pytestmark = pytest.mark.system

SPEED = 10.0


def test_spin_becomes_result_and_same_direction_is_no_spin(broker, tmp_path: Path) -> None:
    scenario = {
        "pockets": 37,
        "seed": 7,
        "steps": [
            # 6 s real time: the daemon starts, identifies the wheel and the table opens
            # before the first spin, even on a loaded machine.
            {"idle": 60},
            {"spin": {"number": "17", "direction": "cw"}},
            {
                "spin": {
                    "number": "5",
                    "direction": "ccw",
                    "warn": "same_direction",
                    "respin_number": "23",
                }
            },
            {"idle": 600},
        ],
    }
    sim, pty = start_sim(tmp_path, scenario, SPEED)
    daemon = start_daemon(write_config(tmp_path, broker.url, pty))
    t = topics()

    async def scenario_run() -> None:
        async with collecting(broker.url) as c:
            await c.event("device.identified")
            await open_table(broker.url)
            result = await c.event("roulette.result")
            assert result["data"]["number"] == "17"
            assert result["data"]["colour"] == "black"
            assert result["rule"] == "58 Pa. Code § 531.5(a)"
            assert result["round"]
            straight = [w for w in result["data"]["winning_wagers"] if w["wager"] == "straight"]
            assert straight and straight[0]["odds"] == "35 to 1"

            no_spin = await c.event("roulette.no_spin")
            assert no_spin["rule"] == "58 Pa. Code § 531.7(a)"
            voided = await c.event("round.voided")
            assert voided["round"] == no_spin["round"]
            respin = await c.wait_for(
                lambda tp, b: (
                    tp == t.device_events("wheel")
                    and b["type"] == "device.command_result"
                    and b["data"]["name"] == "respin"
                ),
                what="the re-spin command's result",
            )
            assert respin["data"]["ok"] is True
            second = await c.event("roulette.result", lambda b: b["data"]["number"] == "23")
            assert second["round"] != no_spin["round"]
            # The table's record is one gap-free seq order.
            seqs = [b["seq"] for b in c.events(t.events)]
            assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
            # The device has its own stream with its own seq.
            dev = [b["seq"] for b in c.events(t.device_events("wheel"))]
            assert dev == list(range(1, len(dev) + 1))

    try:
        asyncio.run(scenario_run())
    finally:
        assert daemon.terminate() == 0
        sim.kill()


def test_a_wheel_of_another_kind_than_the_rules_halts_the_table(broker, tmp_path: Path) -> None:
    """The table is approved for a single-zero wheel; a double-zero wheel is plugged in."""
    sim, pty = start_sim(tmp_path, {"pockets": 38, "steps": [{"idle": 60000}]}, SPEED)
    daemon = start_daemon(write_config(tmp_path, broker.url, pty, wheel="single_zero"))

    async def run() -> None:
        async with collecting(broker.url) as c:
            identified = await c.event("device.identified")
            assert identified["data"]["pockets"] == 38
            halted = await c.event("table.halted")
            assert halted["data"]["code"] == "wheel_mismatch"
            assert halted["rule"] == "58 Pa. Code § 531.1(b)"

    try:
        asyncio.run(run())
    finally:
        assert daemon.terminate() == 0
        sim.kill()
