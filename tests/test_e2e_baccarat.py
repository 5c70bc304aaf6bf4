"""End to end on a Baccarat table whose shoe is the USB keyboard-wedge shoe, simulated
through the rig port `usb://sim:<scenario-file>`: the daemon process opens it exactly as
a real shoe (pyusb, the unchanged transport and driver), a real Mosquitto carries the
record.

What the shoe tells the table: who it is (its USB descriptors) and each card it reads.
A card drawn while no stack is loaded and no coup is in play is a procedure violation
(58 Pa. Code § 545.9), and no coup starts before the shoe is loaded (§ 545.5(a)).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import yaml
from e2e_support import (
    DEALER,
    DEALER_KEY,
    collecting,
    command,
    stack_cut,
    start_daemon,
    write_tables_config,
)

from floord.contract import cite

pytestmark = pytest.mark.system

TABLE = "BA-01"
CHECKLIST = {"cards_inspected": True}


def write_config(tmp: Path, broker_url: str, shoe_port: str) -> Path:
    device = {"id": "shoe", "profile": "ref-usb-shoe", "port": shoe_port}
    table = {"id": TABLE, "game": "baccarat", "rules": {"decks": 8}, "devices": [device]}
    return write_tables_config(tmp, broker_url, [table], rig=shoe_port.startswith("usb://sim:"))


def write_shoe_scenario(tmp: Path, steps: list[dict]) -> Path:
    path = tmp / "usb-shoe.yaml"
    path.write_text(
        yaml.safe_dump({"profile": "ref-usb-shoe", "serial_number": "RIG-SHOE-1", "steps": steps})
    )
    return path


async def floorperson(url: str, name: str, args: dict) -> dict:
    return await command(url, name, args, table=TABLE)


async def dealer(url: str, name: str, args: dict) -> dict:
    return await command(url, name, args, by=DEALER, key=DEALER_KEY, table=TABLE)


def test_the_simulated_usb_shoe_drives_a_baccarat_table_through_the_daemon(
    broker, tmp_path: Path
) -> None:
    # The shoe is plugged in when the daemon opens it; an ace is drawn 6 s later.
    scenario = write_shoe_scenario(tmp_path, [{"wait": 6.0}, {"draw": ["AS"]}])
    config = write_config(tmp_path, broker.url, f"usb://sim:{scenario.resolve()}")
    daemon = start_daemon(config)

    async def run() -> None:
        async with collecting(broker.url, TABLE) as c:
            identified = await c.event("device.identified", lambda b: b["source"] == "shoe")
            assert identified["data"]["serial"] == "RIG-SHOE-1"
            assert identified["data"]["maker"] == "floord reference"
            assert identified["data"]["capabilities"] == ["recognition"]
            reply = await floorperson(broker.url, "inspect", {"checklist": CHECKLIST})
            assert reply["ok"], reply
            reply = await floorperson(broker.url, "open", {})
            assert reply["ok"], reply
            refused = await dealer(broker.url, "round_start", {})
            assert not refused["ok"]
            assert "the shoe holds no cards" in refused["error"], refused
            recorded = await c.event(
                "operator.command_refused", lambda b: b["data"].get("name") == "round_start"
            )
            assert recorded["rule"] == cite("545.5(a)"), recorded
            wrong = await c.event(
                "procedure.violation", lambda b: b["data"].get("what") == "card_outside_round"
            )
            assert wrong["data"]["card"] == "AS"
            assert wrong["rule"] == cite("545.9")
            assert not [b for b in c.events(c.table.events) if b["type"] == "round.started"]

    try:
        asyncio.run(run())
    finally:
        assert daemon.terminate() == 0


def test_a_coup_is_called_live_from_the_usb_shoe(broker, tmp_path: Path) -> None:
    """The shoe's "new shoe" key, the burn (an ace: one more card, § 545.5(f)), then a
    coup: Player 2S 3D = 5, Banker 9H KC = a natural 9; a third card is not allowed."""
    steps = [
        {"wait": 4.0},
        {"type": "NEW"},
        {"draw": ["AS", "7C"]},
        {"wait": 5.0},
        {"draw": ["2S", "9H", "3D", "KC"]},
        {"wait": 2.0},
        {"draw": ["5D"]},
        {"wait": 600.0},
    ]
    scenario = write_shoe_scenario(tmp_path, steps)
    config = write_config(tmp_path, broker.url, f"usb://sim:{scenario.resolve()}")
    daemon = start_daemon(config)

    async def run() -> None:
        async with collecting(broker.url, TABLE) as c:
            await c.event("device.identified", lambda b: b["source"] == "shoe")
            assert (await floorperson(broker.url, "inspect", {"checklist": CHECKLIST}))["ok"]
            assert (await floorperson(broker.url, "open", {}))["ok"]
            await stack_cut(broker.url, TABLE, shuffle=True)  # § 545.5(a)-(c)
            await c.event("shoe.loaded")
            await c.event("shoe.card_drawn", lambda b: b["data"]["card"] == "7C")
            reply = await dealer(broker.url, "round_start", {})
            assert reply["ok"], reply
            # § 545.8(c): "no more bets" on the record before the coup's first card.
            reply = await dealer(broker.url, "no_more_bets", {})
            assert reply["ok"], reply
            extra = await c.event(
                "procedure.violation", lambda b: b["data"].get("what") == "third_card_not_allowed"
            )
            assert extra["rule"], extra
            hands = [b for b in c.events(c.table.events) if b["type"] == "baccarat.hand"]
            assert hands, "each hand is called as it is dealt"
            reply = await dealer(broker.url, "round_end", {})
            assert reply["ok"], reply
            result = await c.event("baccarat.result")
            assert result["data"]["winner"] == "banker", result
            assert result["data"]["irregularities"] == ["third_card_not_allowed"], result
            assert result["rule"], result

    try:
        asyncio.run(run())
    finally:
        assert daemon.terminate() == 0
