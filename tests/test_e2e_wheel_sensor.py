"""End to end on a manual double-zero roulette wheel fitted with the sensor kit: the
simulated kit on a real pty (`floord sim ref-wheel-sensor --pty`), the daemon process,
a real Mosquitto.

One scripted wheel plays a result and every case of 58 Pa. Code § 531.7 the kit lets
the engine judge: the ball spun with the rotor (a), under four revolutions (b), the ball
off the wheel (c) and an object in the wheel (d); then the kit's tamper switch halts the
table.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from e2e_support import collecting, open_table, start_daemon, start_device_sim, write_config

from floord.contract import cite

pytestmark = pytest.mark.system

GAP = {"idle": 1.5}
STEPS = [
    {"idle": 4},
    {"spin": {"rotor": "cw", "ball": "ccw", "revolutions": 6, "pocket": "00"}},
    GAP,
    {"spin": {"rotor": "cw", "ball": "cw", "revolutions": 6, "pocket": "3"}},
    GAP,
    {"spin": {"rotor": "ccw", "ball": "cw", "revolutions": 2, "pocket": "17"}},
    GAP,
    {"spin": {"rotor": "cw", "ball": "ccw", "revolutions": 6, "off": True}},
    GAP,
    {"spin": {"rotor": "cw", "ball": "ccw", "revolutions": 6, "object": True, "pocket": "5"}},
    GAP,
    {"tamper": {"code": 1}},
    {"idle": 600},
]


def test_a_sensor_kit_wheel_judged_under_531_7_end_to_end(broker, tmp_path: Path) -> None:
    sim, pty = start_device_sim(tmp_path, "ref-wheel-sensor", {"pockets": 38, "steps": STEPS})
    config = write_config(tmp_path, broker.url, pty, "double_zero", "ref-wheel-sensor")
    daemon = start_daemon(config)

    async def run() -> None:
        async with collecting(broker.url) as c:
            await c.event("device.identified", lambda b: b["source"] == "wheel")
            await open_table(broker.url, "double_zero")

            result = await c.event("roulette.result")
            assert result["data"]["number"] == "00"

            def no_spin(paragraph: str):
                return c.event("roulette.no_spin", lambda b: b["rule"] == cite(paragraph))

            same = await no_spin("531.7(a)")
            assert same["data"]["reason"] == "same_direction"
            short = await no_spin("531.7(b)")
            assert short["data"]["reason"] == "too_few_revolutions"
            off = await no_spin("531.7(c)")
            assert off["data"]["reason"] == "ball_off_wheel"
            thing = await no_spin("531.7(d)")
            assert thing["data"]["reason"] == "foreign_object"
            for voided in (same, short, off, thing):
                await c.event("round.voided", lambda b, v=voided: b["round"] == v["round"])
            # No spin after the first produced a result.
            results = [b for b in c.events(c.table.events) if b["type"] == "roulette.result"]
            assert [r["data"]["number"] for r in results] == ["00"]

            tamper = await c.event("device.tamper")
            assert tamper["source"] == "wheel"
            halted = await c.event("table.halted")
            assert halted["data"]["device"] == "wheel"

    try:
        asyncio.run(run())
    finally:
        try:
            assert daemon.terminate() == 0
        finally:
            sim.kill()
