"""End to end: decks received gate the shoe until inspected (§ 549.5, § 545.4).

Blackjack: simulated card reader and card-recognition shoe on real ptys. Baccarat: the
USB keyboard-wedge shoe simulated through the rig port. Both through the daemon
(`floord run`) and a real Mosquitto; the dealer's and the floorperson's signed commands
go through the broker.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import test_e2e_baccarat as bac
from e2e_support import collecting, start_daemon
from test_e2e_blackjack import CHECKLIST, dealer, floorperson, start_card_sim, write_card_config


def test_blackjack_decks_received_gate_the_shoe_until_inspected(broker, tmp_path: Path) -> None:
    """58 Pa. Code § 549.5(a): "After receiving one or more decks of cards at the table,
    the dealer shall inspect the cards for any defects." A shoe loaded before the
    inspection does not count; after the dealer's inspection and the floorperson's
    verification, the reloaded shoe deals."""
    reader_steps = [{"idle": 6000}]
    shoe_steps = [
        {"idle": 8},
        {"load": {"side": "-"}},
        {"idle": 10},
        {"load": {"side": "-"}},
        {"draw": {"cards": ["2C"]}},
        {"idle": 6000},
    ]
    reader_sim, reader_pty = start_card_sim(tmp_path, "ref-card-reader", {"steps": reader_steps})
    shoe_sim, shoe_pty = start_card_sim(tmp_path, "ref-shoe-recognition", {"steps": shoe_steps})
    daemon = start_daemon(write_card_config(tmp_path, broker.url, reader_pty, shoe_pty))

    async def run() -> None:
        async with collecting(broker.url, "BJ-01") as c:
            await c.event("reader.self_test", lambda b: b["data"]["passed"])
            await c.event("device.identified", lambda b: b["source"] == "shoe")
            reply = await floorperson(broker.url, "inspect", {"checklist": CHECKLIST, "note": ""})
            assert reply["ok"], reply
            assert (await floorperson(broker.url, "open", {}))["ok"]
            received = {"preinspected_preshuffled": False, "decks": 6}
            assert (await floorperson(broker.url, "decks_received", received))["ok"]
            event = await c.event("cards.decks_received")
            assert event["rule"] == "58 Pa. Code § 549.5(a)"
            violation = await c.event(
                "procedure.violation", lambda b: b["data"]["what"] == "decks_not_inspected"
            )
            assert violation["rule"] == "58 Pa. Code § 549.5(a)"
            refused = await dealer(broker.url, "round_start", {"boxes": [1]})
            assert not refused["ok"] and "not been inspected" in str(refused)
            assert (await dealer(broker.url, "decks_inspected", {"defects_found": False}))["ok"]
            verified = await floorperson(broker.url, "decks_inspected", {"defects_found": False})
            assert verified["ok"], verified
            cleared = await c.event("cards.decks_inspected", lambda b: b["data"]["cleared"])
            assert cleared["data"]["step"] == "verified"
            await c.event("shoe.card_drawn", lambda b: b["seq"] > cleared["seq"])  # the burn
            started = await dealer(broker.url, "round_start", {"boxes": [1]})
            assert started["ok"], started
            await c.event("round.started")

    try:
        asyncio.run(run())
    finally:
        assert daemon.terminate() == 0
        reader_sim.kill()
        shoe_sim.kill()


def test_baccarat_decks_received_gate_the_shoe_until_inspected(broker, tmp_path: Path) -> None:
    """58 Pa. Code § 545.4(a): "After receiving the six or more decks of cards at the table,
    the dealer calling the game shall sort and inspect each deck of cards separately, face
    down and the floorperson assigned to the table shall verify the inspection." A stack
    loaded before that does not count; loaded again after it, it is burned and deals."""
    steps = [
        {"wait": 8.0},
        {"type": "NEW"},
        {"wait": 8.0},
        {"type": "NEW"},
        {"draw": ["AS", "7C"]},
        {"wait": 600.0},
    ]
    scenario = bac.write_shoe_scenario(tmp_path, steps)
    daemon = start_daemon(bac.write_config(tmp_path, broker.url, f"usb://sim:{scenario.resolve()}"))

    async def run() -> None:
        async with collecting(broker.url, bac.TABLE) as c:
            await c.event("device.identified", lambda b: b["source"] == "shoe")
            reply = await bac.floorperson(broker.url, "inspect", {"checklist": bac.CHECKLIST})
            assert reply["ok"], reply
            assert (await bac.floorperson(broker.url, "open", {}))["ok"]
            received = {"preinspected_preshuffled": False, "decks": 8}
            assert (await bac.floorperson(broker.url, "decks_received", received))["ok"]
            event = await c.event("cards.decks_received")
            assert event["rule"] == "58 Pa. Code § 545.4(a)"
            assert event["data"]["inspection"] == "required"
            violation = await c.event(
                "procedure.violation", lambda b: b["data"]["what"] == "decks_not_inspected"
            )
            assert violation["rule"] == "58 Pa. Code § 545.4(a)"
            refused = await bac.dealer(broker.url, "round_start", {})
            assert not refused["ok"] and "not been inspected" in str(refused)
            lumped = await bac.dealer(broker.url, "decks_inspected", {"defects_found": False})
            assert not lumped["ok"] and "separately" in str(lumped)
            each = {"defects_found": False, "decks": 8}
            assert (await bac.dealer(broker.url, "decks_inspected", each))["ok"]
            verified = await bac.floorperson(
                broker.url, "decks_inspected", {"defects_found": False}
            )
            assert verified["ok"], verified
            cleared = await c.event("cards.decks_inspected", lambda b: b["data"]["cleared"])
            assert cleared["data"]["step"] == "verified"
            await c.event("cards.burn", lambda b: b["data"]["complete"])
            started = await bac.dealer(broker.url, "round_start", {})
            assert started["ok"], started
            await c.event("round.started")

    try:
        asyncio.run(run())
    finally:
        assert daemon.terminate() == 0
