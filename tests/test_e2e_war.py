"""End to end on a War table (58 Pa. Code § 567.4, § 567.5): a counting dealing shoe
(`floord sim ref-shoe-manual --pty`) dealing when the test asks on its live control
channel, the daemon process, a real Mosquitto, the dealer's and the floorperson's signed
commands through the broker.

Six decks are received and inspected deck by deck (§ 567.4(a)); the dealer shuffles; a
stack loaded before its cut does not count (§ 567.5(e)); the cut is refused under 10
cards (d) and offered first to the first player (b)(1); the cut stack is loaded and a
round dealt; the second cover card comes out in the round, so its end names the betting
area (b)(2) and the cards are reshuffled before the next round (g); the next cut is
offered to that box's player.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from pathlib import Path
from typing import Any

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
from test_sim_control import control_socket

from floord.contract import cite

pytestmark = pytest.mark.system

TABLE = "WR-01"
STACK = 6 * 52
CHECKLIST = {
    "decks_sorted_and_inspected": True,
    "cards_spread_for_first_player": True,
    "cards_washed_and_stacked": True,
}


async def dealer(url: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return await command(url, name, args, by=DEALER, key=DEALER_KEY, table=TABLE)


async def floorperson(url: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return await command(url, name, args, table=TABLE)


def test_a_war_shoe_from_cut_to_cover_card_through_floord_run_567_5(broker, tmp_path: Path) -> None:
    short = tempfile.mkdtemp(prefix="floord-war-")  # a unix socket path is short
    sock = f"{short}/shoe.sock"
    shoe_sim, shoe_pty = start_device_sim(
        tmp_path, "ref-shoe-manual", {"steps": [{"idle": 6000}]}, control=f"unix:{sock}"
    )
    device = {"id": "shoe", "profile": "ref-shoe-manual", "port": shoe_pty}
    table = {"id": TABLE, "game": "war", "rules": {"decks": 6}, "devices": [device]}
    daemon = start_daemon(write_tables_config(tmp_path, broker.url, [table]))
    url = broker.url

    async def run() -> None:
        async with collecting(url, TABLE) as c, control_socket(sock) as ask:
            await c.event("device.identified", lambda b: b["source"] == "shoe")
            assert (await floorperson(url, "inspect", {"checklist": CHECKLIST}))["ok"]
            assert (await floorperson(url, "open", {}))["ok"]
            got = {"preinspected_preshuffled": False, "decks": 6}
            assert (await floorperson(url, "decks_received", got))["ok"]
            inspected = {"defects_found": False, "decks": 6}
            assert (await dealer(url, "decks_inspected", inspected))["ok"]
            assert (await floorperson(url, "decks_inspected", {"defects_found": False}))["ok"]
            assert (await dealer(url, "shuffle", {}))["ok"]
            # § 567.5(e): the stack goes into the shoe after its cut, not before.
            assert (await ask(f'load {{side: "-", cards: {STACK}}}')).startswith("ok load")
            early = await c.event(
                "procedure.violation", lambda b: b["data"]["what"] == "stack_not_cut"
            )
            assert early["rule"] == cite("567.5(e)")
            short_cut = await dealer(url, "cut", {"cards": 9, "by": "player", "box": 1})
            assert not short_cut["ok"]
            assert (await dealer(url, "cut", {"cards": 120, "by": "player", "box": 1}))["ok"]
            cut = await c.event("cards.cut")
            assert cut["rule"] == cite("567.5(d)")
            assert cut["data"]["offered_to"]["rule"] == cite("567.5(b)(1)")
            assert (await ask(f'load {{side: "-", cards: {STACK}}}')).startswith("ok load")
            await c.event("shoe.loaded", lambda b: b["seq"] > early["seq"])
            assert (await dealer(url, "round_start", {"boxes": [1, 2, 3]}))["ok"]
            started = await c.event("round.started")
            assert started["rule"] == cite("567.5(e)") and started["data"]["shoe"] == STACK
            assert (await ask("draw {count: 236, interval: 0.001}")).startswith("ok draw")
            await c.event("shoe.card_drawn", lambda b: b["data"]["count"] == 236, timeout=30)
            assert (await ask("cutting_card {}")).startswith("ok cutting_card")
            cover = await c.event("shoe.cutting_card")
            assert cover["data"]["count"] == 236
            unnamed = await dealer(url, "round_end", {})
            assert not unnamed["ok"] and "cover_card_at" in unnamed["error"]
            assert (await dealer(url, "round_end", {"cover_card_at": 3}))["ok"]
            ended = await c.event("round.ended")
            assert ended["rule"] == cite("567.5(b)(2)") and ended["data"]["next_cut"]["box"] == 3
            due = await c.event("cards.shuffle_required", lambda b: b["seq"] > ended["seq"])
            assert due["rule"] == cite("567.5(g)") and due["data"]["reason"] == "cover_card"
            refused = await dealer(url, "round_start", {"boxes": [1]})
            assert not refused["ok"]
            rejected = await c.event(
                "operator.command_refused", lambda b: b["data"]["name"] == "round_start"
            )
            assert rejected["rule"] == cite("567.5(g)")
            assert (await dealer(url, "shuffle", {}))["ok"]
            assert (await dealer(url, "cut", {"cards": 60, "by": "player", "box": 3}))["ok"]
            recut = await c.event("cards.cut", lambda b: b["seq"] > cut["seq"])
            assert recut["data"]["offered_to"]["box"] == 3 and recut["data"]["designated"]
            violations = [b for b in c.events(c.table.events) if b["type"] == "procedure.violation"]
            assert [v["data"]["what"] for v in violations] == ["stack_not_cut"]

    try:
        asyncio.run(asyncio.wait_for(run(), 150))
    finally:
        try:
            assert daemon.terminate() == 0
        finally:
            shoe_sim.kill()
            shutil.rmtree(short, ignore_errors=True)
