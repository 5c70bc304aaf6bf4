"""End to end: a cutting card placed too deep in a Blackjack stack (58 Pa. Code § 549.6(e)).

A simulated card reader and card-recognition shoe on real ptys, the daemon (`floord
run`), a real Mosquitto: the shoe's own `LOD` and `CUT` counts are all floord needs.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from e2e_support import (
    collecting,
    new_decks_inspected,
    stack_cut,
    start_daemon,
    topics,
    write_tables_config,
)
from test_e2e_blackjack import CHECKLIST, floorperson, start_card_sim

pytestmark = pytest.mark.system


def test_a_cutting_card_too_deep_is_a_violation_through_floord_run(broker, tmp_path: Path) -> None:
    """§ 549.6(e): "The dealer shall then take the entire stack of cards that was just cut
    and align them along the side of the dealing shoe which has a mark that will allow the
    dealer to insert the cutting card in the stack at a position at least approximately
    one-quarter of the way in from the bottom of the stack."

    Two decks (104 cards): the cutting card comes out after 93 cards, 11 from the bottom,
    where floord accepts no fewer than 13 (a quarter, 26, less a quarter deck)."""
    reader_steps = [{"idle": 6000}]
    shoe_steps = [
        {"idle": 8},
        {"load": {"side": "-", "cards": 104}},
        {"draw": {"count": 93, "interval": 0.01}},
        {"cutting_card": {}},
        {"idle": 6000},
    ]
    reader_sim, reader_pty = start_card_sim(tmp_path, "ref-card-reader", {"steps": reader_steps})
    shoe_sim, shoe_pty = start_card_sim(tmp_path, "ref-shoe-recognition", {"steps": shoe_steps})
    config = write_tables_config(
        tmp_path,
        broker.url,
        [
            {
                "id": "BJ-01",
                "game": "blackjack",
                "rules": {"decks": 2},
                "devices": [
                    {"id": "reader", "profile": "ref-card-reader", "port": reader_pty},
                    {"id": "shoe", "profile": "ref-shoe-recognition", "port": shoe_pty},
                ],
            }
        ],
    )
    daemon = start_daemon(config)

    async def run() -> None:
        async with collecting(broker.url, "BJ-01") as c:
            await c.event("reader.self_test", lambda b: b["data"]["passed"])
            await c.event("device.identified", lambda b: b["source"] == "shoe")
            reply = await floorperson(broker.url, "inspect", {"checklist": CHECKLIST, "note": ""})
            assert reply["ok"], reply
            for name in ("open", "change_decks"):
                assert (await floorperson(broker.url, name, {}))["ok"], name
            await new_decks_inspected(broker.url, "BJ-01")  # the receipt (§ 549.5(a))
            await stack_cut(broker.url, "BJ-01")  # § 549.6(b)-(d), before the shoe
            loaded = await c.event("shoe.loaded")
            assert loaded["data"]["cards"] == 104
            cut = await c.event("shoe.cutting_card", timeout=30)
            assert cut["data"]["count"] == 93
            v = await c.event(
                "procedure.violation", lambda b: b["data"]["what"] == "cutting_card_too_deep"
            )
            assert v["rule"] == "58 Pa. Code § 549.6(e)"
            assert (v["data"]["stack"], v["data"]["behind"], v["data"]["least"]) == (104, 11, 13)
            assert not [
                b
                for b in c.events(topics("BJ-01").events)
                if b["type"] == "procedure.violation"
                and b["data"]["what"] in ("cards_missing", "cards_extra")
            ]

    try:
        asyncio.run(run())
    finally:
        assert daemon.terminate() == 0
        reader_sim.kill()
        shoe_sim.kill()
