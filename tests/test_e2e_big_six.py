"""End to end on a Big Six table: the simulated clapper sensor on a real pty
(`floord sim ref-big-six --pty`), the daemon process, a real Mosquitto.

One scripted wheel plays every case of 58 Pa. Code § 533.2 the engine judges: a valid
spin and its result with the odds of § 533.3(a), the clapper at rest on a divider (the
second § 533.2(c)), a spin of under three revolutions (§ 533.2(b)), a spin the dealer
never announced (§ 533.2(a)), and a clapper sensor failure that halts the table.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from e2e_support import (
    DEALER,
    DEALER_KEY,
    collecting,
    command,
    start_daemon,
    start_device_sim,
    write_tables_config,
)

from floord.contract import cite

pytestmark = pytest.mark.system

TABLE = "B6-01"
INSPECTION = {"sections_glass_covered": True, "payout_odds_displayed": True,
              "clapper_working": True, "layout_approved": True}  # fmt: skip
# The wheel waits long enough between spins for the test to call "no more bets".
STEPS = [
    {"idle": 5},
    {"spin": {"direction": "cw", "revolutions": 4, "section": 13, "seconds": 1.0}},
    {"idle": 3},
    {"spin": {"direction": "ccw", "revolutions": 4, "section": 20, "between": True}},
    {"idle": 3},
    {"spin": {"direction": "cw", "revolutions": 2, "section": 5}},
    {"idle": 3},
    {"spin": {"direction": "cw", "revolutions": 5, "section": 27}},
    {"idle": 2},
    {"fault": {"code": 50}},
    {"idle": 600},
]


def write_config(tmp: Path, broker_url: str, port: str) -> Path:
    device = {"id": "wheel", "profile": "ref-big-six", "port": port}
    return write_tables_config(
        tmp, broker_url, [{"id": TABLE, "game": "big_six", "devices": [device]}]
    )


async def _call_spin(url: str) -> None:
    result = await command(url, "spin", {}, by=DEALER, key=DEALER_KEY, table=TABLE)
    assert result["ok"], result


def test_big_six_spins_judged_under_533_2_and_a_sensor_fault_halts(broker, tmp_path) -> None:
    sim, pty = start_device_sim(tmp_path, "ref-big-six", {"steps": STEPS})
    daemon = start_daemon(write_config(tmp_path, broker.url, pty))

    async def run() -> None:
        async with collecting(broker.url, TABLE) as c:
            await c.event("device.identified", lambda b: b["source"] == "wheel")
            inspect = await command(broker.url, "inspect", {"checklist": INSPECTION}, table=TABLE)
            assert inspect["ok"], inspect
            assert (await command(broker.url, "open", {}, table=TABLE))["ok"]
            await _call_spin(broker.url)

            result = await c.event("bigsix.result")
            assert result["rule"] == cite("533.3(a)")
            assert result["data"]["section"] == 13
            assert result["data"]["symbol"] == "$20" and result["data"]["odds"] == "20 to 1"
            assert result["data"]["revolutions"] == 4
            await c.event("round.ended", lambda b: b["round"] == result["round"])

            await _call_spin(broker.url)
            divider = await c.event("bigsix.no_spin", lambda b: b["rule"] == cite("533.2(c)"))
            assert divider["data"]["respin"] is True
            await c.event("round.voided", lambda b: b["round"] == divider["round"])

            await _call_spin(broker.url)
            short = await c.event("bigsix.no_spin", lambda b: b["rule"] == cite("533.2(b)"))
            assert short["data"]["respin"] is True

            # The fourth spin comes without "no more bets": a violation of § 533.2(a).
            unannounced = await c.event(
                "procedure.violation", lambda b: b["rule"] == cite("533.2(a)")
            )
            assert unannounced["data"]["direction"] == "cw"
            no_call = await c.event(
                "bigsix.no_spin", lambda b: b["data"]["reason"] == "no_more_bets_not_called"
            )
            assert no_call["rule"] == cite("533.2(a)")

            fault = await c.event("device.fault", lambda b: b["source"] == "wheel")
            assert fault["data"]["code"] == 50
            halted = await c.event("table.halted")
            assert halted["data"]["device"] == "wheel", halted
            assert halted["data"]["detail"] == "clapper sensor failed", halted
            refused = await command(broker.url, "spin", {}, by=DEALER, key=DEALER_KEY, table=TABLE)
            assert refused["ok"] is False

    try:
        asyncio.run(run())
    finally:
        try:
            assert daemon.terminate() == 0
        finally:
            sim.kill()
