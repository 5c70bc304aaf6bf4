"""End to end on a Mississippi Stud table dealt from the hand with a counting shuffler:
the simulated shuffler on a real pty (`floord sim ref-shuffler-batch --pty`), the daemon
process, a real Mosquitto; and a table dealing from an automated shoe that goes out of
order (`floord sim ref-shoe-automated --pty`).

A counting shuffler that counts other than 52 cards after a shuffle takes the deck off
the table (58 Pa. Code § 571.5(b)): `cards.deck_removed` on the table's record.
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
    new_decks_inspected,
    start_daemon,
    start_device_sim,
    write_tables_config,
)

from floord.contract import cite

pytestmark = pytest.mark.system

TABLE = "MS-01"
G = cite("571.13(g)")


def write_config(tmp: Path, broker_url: str, shuffler_port: str) -> Path:
    device = {"id": "shuffler", "profile": "ref-shuffler-batch", "port": shuffler_port}
    rules = {"dealing": "hand", "shuffler": "counting", "decks": 1}
    table = {"id": TABLE, "game": "mississippi_stud", "rules": rules, "devices": [device]}
    return write_tables_config(tmp, broker_url, [table])


def test_a_shuffle_counting_51_cards_removes_the_deck_571_5_b(broker, tmp_path: Path) -> None:
    steps = [{"idle": 3}, {"shuffle": {"batch": "red", "cards": 51, "seconds": 1}}, {"idle": 600}]
    sim, pty = start_device_sim(tmp_path, "ref-shuffler-batch", {"steps": steps})
    daemon = start_daemon(write_config(tmp_path, broker.url, pty))

    async def run() -> None:
        async with collecting(broker.url, TABLE) as c:
            await c.event("device.identified", lambda b: b["source"] == "shuffler")
            removed = await c.event("cards.deck_removed")
            assert removed["rule"] == cite("571.5(b)")
            assert removed["data"]["cards"] == 51
            assert removed["data"]["expected"] == 52
            assert removed["data"]["reason"] == "shuffler_count"
            assert removed["data"]["deck"] == "deck"  # the one deck of a one-deck table

    try:
        asyncio.run(run())
    finally:
        try:
            assert daemon.terminate() == 0
        finally:
            sim.kill()


def test_a_shoe_out_of_order_is_covered_before_dealing_another_way_571_13_g(
    broker, tmp_path: Path
) -> None:
    """§ 571.13(g): an automated dealing shoe that "malfunctions and cannot be used ...
    shall be covered or have a sign indicating that [it] is out of order placed on the
    device before any other method of shuffling or dealing may be utilized at that table."

    The simulated automated shoe (`ref-shoe-automated`) on a real pty sends `OOO`; the
    dealer's round is refused citing (g) until the floorperson's `cover_shoe`, then a
    round dealt from a manual shoe starts (the table shuffles by hand: no shuffler)."""
    steps = [{"idle": 4}, {"out_of_order": {"code": 30, "text": "dispenser jammed"}}, {"idle": 600}]
    sim, pty = start_device_sim(tmp_path, "ref-shoe-automated", {"steps": steps})
    device = {"id": "shoe", "profile": "ref-shoe-automated", "port": pty}
    rules = {"dealing": "automated_shoe", "shuffler": "none", "decks": 1}
    table = {"id": TABLE, "game": "mississippi_stud", "rules": rules, "devices": [device]}
    daemon = start_daemon(write_tables_config(tmp_path, broker.url, [table]))

    async def floor(name: str, args: dict) -> dict:
        return await command(broker.url, name, args, table=TABLE)

    async def dealer(name: str, args: dict) -> dict:
        return await command(broker.url, name, args, by=DEALER, key=DEALER_KEY, table=TABLE)

    async def run() -> None:
        async with collecting(broker.url, TABLE) as c:
            await c.event("device.identified", lambda b: b["source"] == "shoe")
            checklist = {"cards_inspected": True, "cards_verified": True}
            assert (await floor("inspect", {"checklist": checklist, "note": ""}))["ok"]
            assert (await floor("open", {}))["ok"]
            assert (await floor("change_decks", {}))["ok"]
            await new_decks_inspected(broker.url, TABLE)
            ooo = await c.event("shoe.out_of_order")
            assert ooo["data"] == {"code": 30, "text": "dispenser jammed"}
            warning = await c.event(
                "table.warning", lambda b: b["data"]["what"] == "shoe_out_of_order"
            )
            assert warning["rule"] == G
            refused = await dealer("round_start", {"boxes": [1]})
            assert not refused["ok"] and "cover_shoe" in refused["error"]
            event = await c.event(
                "operator.command_refused", lambda b: b["data"]["name"] == "round_start"
            )
            assert event["rule"] == G
            cover = {"deal_by": "manual_shoe", "reason": "dispenser jam", "marked": "sign"}
            assert (await floor("cover_shoe", cover))["ok"]
            covered = await c.event("table.device_covered")
            assert covered["rule"] == G and covered["data"]["deal_by"] == "manual_shoe"
            assert covered["data"]["report"]["out_of_order"]["code"] == 30
            assert (await dealer("cut", {"cards": 20}))["ok"]  # shuffled by hand: cut
            started = await dealer("round_start", {"boxes": [1]})
            assert started["ok"], started
            round_started = await c.event("round.started")
            assert round_started["data"]["dealing"] == "manual_shoe"

    try:
        asyncio.run(run())
    finally:
        try:
            assert daemon.terminate() == 0
        finally:
            sim.kill()
