"""End to end on a Poker table (58 Pa. Code § 553.5, § 553.6): an automated shuffler
(`floord sim ref-shuffler-batch --pty`) shuffling when the test asks on its live control
channel, the daemon process, a real Mosquitto, the dealer's and the floorperson's signed
commands through the broker.

The shuffler shuffles the red deck; it is not dealt until the dealer cuts it (§ 553.5(e),
§ 553.6(b)), at least 10 cards from the top; a floorperson requires a recut before any
card is dealt (§ 553.6(c)); the round is dealt from the red deck, and after it the red
deck is shuffled again (§ 553.6(a)) while the blue one, shuffled meanwhile in the
shuffler, is cut and dealt.
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

TABLE = "PK-01"
CHECKLIST = {
    "cards_inspected": True,
    "cards_verified": True,
    "cards_spread_for_players": True,
    "decks_washed_and_stacked": True,
}


async def dealer(url: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return await command(url, name, args, by=DEALER, key=DEALER_KEY, table=TABLE)


async def floorperson(url: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return await command(url, name, args, table=TABLE)


def test_a_poker_deck_is_shuffled_cut_and_recut_through_floord_run_553_6(
    broker, tmp_path: Path
) -> None:
    short = tempfile.mkdtemp(prefix="floord-pk-")  # a unix socket path is short
    sock = f"{short}/shuffler.sock"
    sim, pty = start_device_sim(
        tmp_path, "ref-shuffler-batch", {"steps": [{"idle": 6000}]}, control=f"unix:{sock}"
    )
    device = {"id": "shuffler", "profile": "ref-shuffler-batch", "port": pty}
    rules = {"shuffler": "automated", "deck_backs": ["red", "blue"]}
    table = {"id": TABLE, "game": "poker", "rules": rules, "devices": [device]}
    daemon = start_daemon(write_tables_config(tmp_path, broker.url, [table]))
    url = broker.url

    async def refused_rule(c: Any, after: int) -> str:
        refusal = await c.event(
            "operator.command_refused",
            lambda b: b["seq"] > after and b["data"]["name"] == "round_start",
        )
        return str(refusal["rule"])

    async def run() -> None:
        async with collecting(url, TABLE) as c, control_socket(sock) as ask:
            await c.event("device.identified", lambda b: b["source"] == "shuffler")
            assert (await floorperson(url, "inspect", {"checklist": CHECKLIST}))["ok"]
            assert (await floorperson(url, "open", {}))["ok"]
            reply = await ask("shuffle {batch: red, cards: 52, seconds: 0.2}")
            assert reply.startswith("ok shuffle"), reply
            red = await c.event("shuffler.shuffle_completed")
            assert red["data"]["batch"] == "red"
            # § 553.5(e), § 553.6(b): the deck the shuffler shuffled is cut before it is dealt.
            assert not (await dealer(url, "round_start", {}))["ok"]
            assert await refused_rule(c, red["seq"]) == cite("553.6(b)")
            assert not (await dealer(url, "cut", {"cards": 9}))["ok"]
            assert (await dealer(url, "cut", {"cards": 20}))["ok"]
            # § 553.6(c): a floorperson requires a recut before any card is dealt.
            assert not (await dealer(url, "recut", {"reason": "mine"}))["ok"]
            assert (await floorperson(url, "recut", {"reason": "cut with two hands"}))["ok"]
            recut = await c.event("operator.command", lambda b: b["data"]["name"] == "recut")
            assert not (await dealer(url, "round_start", {}))["ok"]
            assert await refused_rule(c, recut["seq"]) == cite("553.6(b)")
            assert (await dealer(url, "cut", {"cards": 26}))["ok"]
            assert (await dealer(url, "round_start", {}))["ok"]
            started = await c.event("round.started")
            assert started["rule"] == cite("553.6(b)")
            assert started["data"]["deck"] == "red" and started["data"]["shuffled"] == "device"
            assert started["data"]["cut"] == {"cards": 26, "by": "dealer"}
            reply = await ask("shuffle {batch: blue, cards: 52, seconds: 0.2}")
            assert reply.startswith("ok shuffle"), reply
            await c.event("shuffler.shuffle_completed", lambda b: b["data"]["batch"] == "blue")
            assert (await dealer(url, "round_end", {}))["ok"]
            ended = await c.event("round.ended")
            assert ended["rule"] == cite("553.6(a)") and ended["data"]["deck"] == "red"
            assert not (await dealer(url, "cut", {"cards": 15, "deck": "red"}))["ok"]
            assert (await dealer(url, "cut", {"cards": 15}))["ok"]
            assert (await dealer(url, "round_start", {}))["ok"]
            second = await c.event("round.started", lambda b: b["seq"] > ended["seq"])
            assert second["data"]["deck"] == "blue"
            violations = [b for b in c.events(c.table.events) if b["type"] == "procedure.violation"]
            assert violations == []

    try:
        asyncio.run(asyncio.wait_for(run(), 150))
    finally:
        try:
            assert daemon.terminate() == 0
        finally:
            sim.kill()
            shutil.rmtree(short, ignore_errors=True)
