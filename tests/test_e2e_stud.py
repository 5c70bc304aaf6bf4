"""End to end on a Mississippi Stud table dealt from the hand with a counting shuffler:
the simulated shuffler on a real pty (`floord sim ref-shuffler-batch --pty`), the daemon
process, a real Mosquitto.

A counting shuffler that counts other than 52 cards after a shuffle takes the deck off
the table (58 Pa. Code § 571.5(b)): `cards.deck_removed` on the table's record.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from e2e_support import collecting, start_daemon, start_device_sim, write_tables_config

from floord.contract import cite

pytestmark = pytest.mark.system

TABLE = "MS-01"


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
