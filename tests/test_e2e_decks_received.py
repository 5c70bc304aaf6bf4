"""End to end: decks received gate the shoe until inspected (§ 549.5, § 545.4, § 571.4,
§ 55x.4).

Blackjack: simulated card reader and card-recognition shoe on real ptys. Baccarat: the
USB keyboard-wedge shoe simulated through the rig port. Mississippi Stud and Three Card
Poker: the simulated counting shuffler on a pty. All through the daemon
(`floord run`) and a real Mosquitto; the dealer's and the floorperson's signed commands
go through the broker.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import test_e2e_baccarat as bac
import test_e2e_stud as stud
from e2e_support import (
    DEALER,
    DEALER_KEY,
    collecting,
    command,
    stack_cut,
    start_daemon,
    start_device_sim,
    write_tables_config,
)
from test_e2e_blackjack import CHECKLIST, dealer, floorperson, start_card_sim, write_card_config

pytestmark = pytest.mark.system


def test_blackjack_decks_received_gate_the_shoe_until_inspected(broker, tmp_path: Path) -> None:
    """58 Pa. Code § 549.5(a): "After receiving one or more decks of cards at the table,
    the dealer shall inspect the cards for any defects." (b), (c): then spread for the
    first player, washed and stacked. A shoe loaded before the inspection does not count;
    after the dealer's inspection, the floorperson's verification and the dealer's spread,
    the reloaded shoe deals."""
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
            spread = {"defects_found": False, "washed": True}
            assert (await dealer(broker.url, "decks_spread", spread))["ok"]
            cleared = await c.event("cards.decks_spread", lambda b: b["data"]["cleared"])
            assert cleared["rule"] == "58 Pa. Code § 549.5(b)"
            await stack_cut(broker.url, "BJ-01")  # § 549.6(b)-(d), before the shoe
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
            spread = {"defects_found": False, "washed": True}
            assert (await bac.dealer(broker.url, "decks_spread", spread))["ok"]  # § 545.4(b)
            cleared = await c.event("cards.decks_spread", lambda b: b["data"]["cleared"])
            assert cleared["rule"] == "58 Pa. Code § 545.4(b)"
            await stack_cut(broker.url, bac.TABLE, shuffle=True)  # § 545.5(a)-(c)
            await c.event("cards.burn", lambda b: b["data"]["complete"])
            started = await bac.dealer(broker.url, "round_start", {})
            assert started["ok"], started
            await c.event("round.started")

    try:
        asyncio.run(run())
    finally:
        assert daemon.terminate() == 0


def test_stud_change_decks_gate_the_shuffler_until_inspected(broker, tmp_path: Path) -> None:
    """58 Pa. Code § 571.4(a): "... after receiving the cards at the table, the dealer
    shall inspect the cards for defects." (b): "... the verification by the floorperson
    assigned to the table ...". The floorperson's `change_decks` (§ 571.3(c)) is the
    receipt; a shuffle before the inspection does not count, one after it deals."""
    steps = [
        {"idle": 8},
        {"shuffle": {"batch": "deck", "cards": 52, "seconds": 1}},
        {"idle": 8},
        {"shuffle": {"batch": "deck", "cards": 52, "seconds": 1}},
        {"idle": 600},
    ]
    sim, pty = start_device_sim(tmp_path, "ref-shuffler-batch", {"steps": steps})
    daemon = start_daemon(stud.write_config(tmp_path, broker.url, pty))

    async def command_as(name: str, args: dict, *, by_dealer: bool = False) -> dict:
        who = {"by": DEALER, "key": DEALER_KEY} if by_dealer else {}
        return await command(broker.url, name, args, table=stud.TABLE, **who)

    async def run() -> None:
        async with collecting(broker.url, stud.TABLE) as c:
            await c.event("device.identified", lambda b: b["source"] == "shuffler")
            checklist = {"cards_inspected": True, "cards_verified": True}
            assert (await command_as("inspect", {"checklist": checklist}))["ok"]
            assert (await command_as("open", {}))["ok"]
            assert (await command_as("change_decks", {}))["ok"]
            changed = await c.event("cards.decks_changed")
            assert changed["rule"] == "58 Pa. Code § 571.3(c)(1)"
            assert changed["data"]["inspection"] == "required"
            assert changed["data"]["preinspected_preshuffled"] is None
            early = await c.event(
                "procedure.violation", lambda b: b["data"]["what"] == "decks_not_inspected"
            )
            assert early["rule"] == "58 Pa. Code § 571.4(a)" and early["data"]["step"] == "shuffle"
            refused = await command_as("round_start", {"boxes": [1]}, by_dealer=True)
            assert not refused["ok"] and "not been inspected" in str(refused)
            ok = {"defects_found": False}
            assert (await command_as("decks_inspected", ok, by_dealer=True))["ok"]
            assert (await command_as("decks_inspected", ok))["ok"]
            spread = {"defects_found": False, "washed": True}  # § 571.4(b), (c)
            assert (await command_as("decks_spread", spread, by_dealer=True))["ok"]
            cleared = await c.event("cards.decks_spread", lambda b: b["data"]["cleared"])
            assert cleared["rule"] == "58 Pa. Code § 571.4(b)"
            await c.event("shuffler.shuffle_completed", lambda b: b["seq"] > cleared["seq"])
            started = await command_as("round_start", {"boxes": [1]}, by_dealer=True)
            assert started["ok"], started

    try:
        asyncio.run(run())
    finally:
        try:
            assert daemon.terminate() == 0
        finally:
            sim.kill()


def test_carnival_decks_received_gate_the_shuffler_until_inspected(broker, tmp_path: Path) -> None:
    """58 Pa. Code § 565.4(a): "After receiving one or more decks of cards at the table, the
    dealer shall inspect the cards for any defects." (b): "Following the inspection of the
    cards by the dealer and the verification by the floorperson assigned to the table ..."
    A shuffle of the decks received before that does not count; one after it deals."""
    steps = [
        {"idle": 8},
        {"shuffle": {"batch": "deck", "cards": 52, "seconds": 1}},
        {"idle": 8},
        {"shuffle": {"batch": "deck", "cards": 52, "seconds": 1}},
        {"idle": 600},
    ]
    sim, pty = start_device_sim(tmp_path, "ref-shuffler-batch", {"steps": steps})
    device = {"id": "shuffler", "profile": "ref-shuffler-batch", "port": pty}
    table = {"id": "TC-01", "game": "three_card_poker", "rules": {"shuffler": "counting"}}
    daemon = start_daemon(
        write_tables_config(tmp_path, broker.url, [{**table, "devices": [device]}])
    )

    async def command_as(name: str, args: dict, *, by_dealer: bool = False) -> dict:
        who = {"by": DEALER, "key": DEALER_KEY} if by_dealer else {}
        return await command(broker.url, name, args, table="TC-01", **who)

    async def run() -> None:
        async with collecting(broker.url, "TC-01") as c:
            await c.event("device.identified", lambda b: b["source"] == "shuffler")
            checklist = dict.fromkeys(
                ("cards_inspected", "cards_verified", "cards_spread_and_washed"), True
            )
            assert (await command_as("inspect", {"checklist": checklist}))["ok"]
            assert (await command_as("open", {}))["ok"]
            received = {"preinspected_preshuffled": False}
            assert (await command_as("decks_received", received))["ok"]
            event = await c.event("cards.decks_received")
            assert event["rule"] == "58 Pa. Code § 565.4(a)"
            assert event["data"]["due_at"] is None  # no deck-change period in the seeds
            early = await c.event(
                "procedure.violation", lambda b: b["data"]["what"] == "decks_not_inspected"
            )
            assert early["rule"] == "58 Pa. Code § 565.4(a)" and early["data"]["step"] == "shuffle"
            refused = await command_as("round_start", {"boxes": [1]}, by_dealer=True)
            assert not refused["ok"] and "not been inspected" in str(refused)
            ok = {"defects_found": False}
            assert (await command_as("decks_inspected", ok, by_dealer=True))["ok"]
            assert (await command_as("decks_inspected", ok))["ok"]
            cleared = await c.event("cards.decks_inspected", lambda b: b["data"]["cleared"])
            assert cleared["rule"] == "58 Pa. Code § 565.4(b)"
            await c.event("shuffler.shuffle_completed", lambda b: b["seq"] > cleared["seq"])
            started = await command_as("round_start", {"boxes": [1]}, by_dealer=True)
            assert started["ok"], started
            assert (await c.event("round.started"))["rule"] == "58 Pa. Code § 565.5(c)(1)"

    try:
        asyncio.run(run())
    finally:
        try:
            assert daemon.terminate() == 0
        finally:
            sim.kill()
