"""End to end: a Big Six table whose dealer's call of the symbol is its second source.

The simulated clapper sensor on a real pty (`floord sim ref-big-six --pty`), the daemon
process, a real Mosquitto. A call that names the section's symbol settles the spin; one
that names another holds it (an alert; the dealer's next `spin` refused) until the
floorperson's signed ruling names the section.
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

pytestmark = pytest.mark.system

TABLE = "B6-01"
INSPECTION = dict.fromkeys(
    ("sections_glass_covered", "payout_odds_displayed", "clapper_working", "layout_approved"), True
)
STEPS = [
    {"idle": 6},
    {"spin": {"direction": "cw", "revolutions": 4, "section": 13, "seconds": 1.0}},  # $20
    {"idle": 8},
    {"spin": {"direction": "ccw", "revolutions": 4, "section": 20, "seconds": 1.0}},  # $10
    {"idle": 600},
]


async def _dealer(url: str, name: str, args: dict) -> dict:
    return await command(url, name, args, by=DEALER, key=DEALER_KEY, table=TABLE)


def test_big_six_call_confirms_a_dispute_is_ruled(broker, tmp_path: Path) -> None:
    sim, pty = start_device_sim(tmp_path, "ref-big-six", {"steps": STEPS})
    table = {
        "id": TABLE,
        "game": "big_six",
        "devices": [{"id": "wheel", "profile": "ref-big-six", "port": pty}],
        "second_source": {"command": "dealer_call", "window_s": 5, "on_silence": "hold"},
    }
    daemon = start_daemon(write_tables_config(tmp_path, broker.url, [table]))

    async def run() -> None:
        async with collecting(broker.url, TABLE) as c:
            await c.event("device.identified", lambda b: b["source"] == "wheel")
            inspect = await command(broker.url, "inspect", {"checklist": INSPECTION}, table=TABLE)
            assert inspect["ok"], inspect
            assert (await command(broker.url, "open", {}, table=TABLE))["ok"]
            assert (await _dealer(broker.url, "spin", {}))["ok"]
            await c.event("bigsix.at_rest", lambda b: b["data"]["section"] == 13)
            assert (await _dealer(broker.url, "call_result", {"value": "$20"}))["ok"]
            confirmed = await c.event("result.confirmed")
            result = await c.event("bigsix.result")
            assert result["round"] == confirmed["round"] and result["data"]["section"] == 13

            assert (await _dealer(broker.url, "spin", {}))["ok"]
            await c.event("bigsix.at_rest", lambda b: b["data"]["section"] == 20)
            assert (await _dealer(broker.url, "call_result", {"value": "$5"}))["ok"]
            disputed = await c.event("result.disputed")
            await c.event("surveillance.alert", lambda b: b["round"] == disputed["round"])
            refused = await _dealer(broker.url, "spin", {})
            assert not refused["ok"] and "not settled" in refused["error"]
            ruling = {"round": disputed["round"], "section": 20, "note": "video: $10"}
            assert (await command(broker.url, "rule_result", ruling, table=TABLE))["ok"]
            ruled = await c.event("result.ruled")
            assert ruled["data"]["value"] == "$10" and ruled["data"]["agrees_with"] == ["primary"]
            settled = await c.event("bigsix.result", lambda b: b["round"] == disputed["round"])
            assert settled["data"]["section"] == 20 and settled["data"]["symbol"] == "$10"

    try:
        asyncio.run(asyncio.wait_for(run(), 120))
    finally:
        try:
            assert daemon.terminate() == 0
        finally:
            sim.kill()
