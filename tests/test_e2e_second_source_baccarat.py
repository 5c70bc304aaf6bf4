"""End to end: a Baccarat table whose dealer's announcement is its second source.

The USB keyboard-wedge shoe simulated through the rig port (`usb://sim:`), the daemon
process, a real Mosquitto. The dealer announces the wrong hand (§ 545.12(a) has the
dealer announce which hand won): the coup is held, with an alert, no coup starts, until
the floorperson settles it as its cards were read.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from e2e_support import collecting, stack_cut, start_daemon, write_tables_config
from test_e2e_baccarat import CHECKLIST, TABLE, dealer, floorperson, write_shoe_scenario

pytestmark = pytest.mark.system


def test_a_wrong_announcement_holds_the_coup_until_ruled(broker, tmp_path: Path) -> None:
    steps = [
        {"wait": 4.0},
        {"type": "NEW"},
        {"draw": ["AS", "7C"]},
        {"wait": 5.0},
        {"draw": ["2S", "9H", "3D", "KC"]},  # Player 5, Banker a natural 9
        {"wait": 600.0},
    ]
    scenario = write_shoe_scenario(tmp_path, steps)
    port = f"usb://sim:{scenario.resolve()}"
    table = {
        "id": TABLE,
        "game": "baccarat",
        "rules": {"decks": 8},
        "devices": [{"id": "shoe", "profile": "ref-usb-shoe", "port": port}],
        "second_source": {"command": "dealer_call", "window_s": 30, "on_silence": "hold"},
    }
    daemon = start_daemon(write_tables_config(tmp_path, broker.url, [table], rig=True))

    async def run() -> None:
        async with collecting(broker.url, TABLE) as c:
            await c.event("device.identified", lambda b: b["source"] == "shoe")
            assert (await floorperson(broker.url, "inspect", {"checklist": CHECKLIST}))["ok"]
            assert (await floorperson(broker.url, "open", {}))["ok"]
            await stack_cut(broker.url, TABLE, shuffle=True)
            await c.event("shoe.card_drawn", lambda b: b["data"]["card"] == "7C")
            assert (await dealer(broker.url, "round_start", {}))["ok"]
            assert (await dealer(broker.url, "no_more_bets", {}))["ok"]
            await c.event("baccarat.hand", lambda b: b["data"]["card"] == "KC")
            assert (await dealer(broker.url, "round_end", {}))["ok"]
            reply = await dealer(broker.url, "call_result", {"value": "player"})
            assert reply["ok"], reply
            disputed = await c.event("result.disputed")
            assert disputed["data"]["primary"]["value"] == "banker"
            await c.event("surveillance.alert", lambda b: b["round"] == disputed["round"])
            refused = await dealer(broker.url, "round_start", {})
            assert not refused["ok"], refused
            ruling = {"round": disputed["round"], "value": "banker", "note": "cards: 5 v 9"}
            reply = await floorperson(broker.url, "rule_result", ruling)
            assert reply["ok"], reply
            result = await c.event("baccarat.result")
            assert result["round"] == disputed["round"] and result["data"]["winner"] == "banker"
            await c.event("round.ended", lambda b: b["round"] == disputed["round"])

    try:
        asyncio.run(asyncio.wait_for(run(), 120))
    finally:
        assert daemon.terminate() == 0
