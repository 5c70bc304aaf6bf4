"""End to end on a Pai Gow table: the simulated shaker on a real pty, shaken live through
its control channel (`floord sim ref-paigow-shaker --pty --control unix:...`), the daemon
process (`floord run`), a real Mosquitto, and signed commands.

58 Pa. Code § 535.2(d): the shaker is "used to shake three dice before each hand of Pai
Gow is dealt to determine the starting position for the dealing of the Pai Gow tiles".
Each shake opens a hand with the position its total names (counted around the table's
`count_order`), a hand dealt from that position is recorded, one dealt from another
position is a violation, and the shaker's fault halts the table, voiding the hand in
play, until an authorised `resume` once the shaker is back.
"""

from __future__ import annotations

import asyncio
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

TABLE = "PG-01"
ORDER = ["dealer", 1, 2, 3, 4, 5, 6]
INSPECTION = {
    "six_player_places_and_dealer": True,
    "layout_approved": True,
    "betting_areas_numbered_1_to_6": True,
    "dead_hand_area_left_of_dealer": True,
    "name_or_logo_on_layout": True,
    "drop_box_and_tip_box": True,
    "shaker_approved": True,
    "shaker_houses_three_dice_unseen": True,
    "shaker_name_or_logo": True,
}
D = cite("535.2(d)")


def write_config(tmp: Path, broker_url: str, port: str) -> Path:
    device = {"id": "shaker", "profile": "ref-paigow-shaker", "port": port}
    table = {"id": TABLE, "game": "pai_gow", "rules": {"count_order": ORDER}, "devices": [device]}
    return write_tables_config(tmp, broker_url, [table])


async def dealer(url: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return await command(url, name, args, by=DEALER, key=DEALER_KEY, table=TABLE)


async def floorperson(url: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return await command(url, name, args, table=TABLE)


def after(seq: int, **data: Any) -> Any:
    """An event later than `seq` whose data has these values."""
    return lambda b: b["seq"] > seq and all(b["data"].get(k) == v for k, v in data.items())


def test_pai_gow_shakes_set_the_starting_position_and_a_shaker_fault_halts_535_2_d(
    broker, tmp_path: Path
) -> None:
    sock = str(tmp_path / "shaker.sock")
    sim, pty = start_device_sim(
        tmp_path, "ref-paigow-shaker", {"steps": [{"idle": 600}]}, control=f"unix:{sock}"
    )
    daemon = start_daemon(write_config(tmp_path, broker.url, pty))

    async def run() -> None:
        async with collecting(broker.url, TABLE) as c, control_socket(sock) as ask:
            await c.event("device.identified", lambda b: b["source"] == "shaker")
            assert (await floorperson(broker.url, "inspect", {"checklist": INSPECTION}))["ok"]
            assert (await floorperson(broker.url, "open", {}))["ok"]

            # A shake: 4 + 2 + 6 = 12, counted from the dealer as 1, names betting area 4.
            assert (await ask("{throw: {faces: [4, 2, 6]}}")).startswith("ok"), "shake"
            position = await c.event("paigow.deal_position")
            assert position["rule"] == D and position["source"] == "engine"
            assert position["data"]["faces"] == [4, 2, 6] and position["data"]["total"] == 12
            assert position["data"]["position"] == 4
            started = await c.event("round.started", lambda b: b["round"] == position["round"])
            assert started["data"]["opened_by"] == "shake" and started["rule"] == D
            assert (await dealer(broker.url, "deal", {"from": 4}))["ok"]
            dealt = await c.event("paigow.dealt")
            assert dealt["round"] == position["round"] and dealt["data"]["as_determined"]
            assert (await dealer(broker.url, "round_end", {}))["ok"]
            await c.event("round.ended", lambda b: b["round"] == position["round"])

            # 6 + 5 + 4 = 15 names the dealer; the tiles dealt from area 3: a violation.
            assert (await ask("{throw: {faces: [6, 5, 4]}}")).startswith("ok")
            second = await c.event("paigow.deal_position", after(dealt["seq"]))
            assert second["data"]["position"] == "dealer" and second["round"] != dealt["round"]
            assert (await dealer(broker.url, "deal", {"from": 3}))["ok"]
            wrong = await c.event("procedure.violation", after(second["seq"]))
            assert wrong["rule"] == D and wrong["round"] == second["round"]
            assert wrong["data"]["what"] == "dealt_from_other_position"
            assert wrong["data"]["dealt_from"] == 3 and wrong["data"]["expected"] == "dealer"
            assert (await dealer(broker.url, "round_end", {}))["ok"]

            # A third hand is shaken, then the shaker jams: the table halts, the hand is void.
            assert (await ask("{throw: {faces: [1, 1, 2]}}")).startswith("ok")
            third = await c.event("paigow.deal_position", after(wrong["seq"]))
            assert third["data"]["position"] == 3
            assert (await ask("fault 72")).startswith("ok")
            halted = await c.event("table.halted", after(third["seq"]))
            assert halted["data"]["device"] == "shaker" and halted["data"]["code"] == "device_fault"
            assert halted["data"]["detail"] == "shaker mechanism jammed"
            voided = await c.event("round.voided", lambda b: b["round"] == third["round"])
            assert voided["data"]["policy"]
            assert not (await dealer(broker.url, "deal", {"from": 3}))["ok"]
            # Only an authorised resume lifts the halt, and only once the shaker is back.
            by_dealer = await dealer(broker.url, "resume", {"reason": "it works"})
            assert by_dealer["ok"] is False
            refused = await c.event("operator.command_refused", after(halted["seq"], name="resume"))
            assert refused["data"]["code"] == "role_not_allowed"
            early = await floorperson(broker.url, "resume", {"reason": "shaker checked"})
            assert early["ok"] is False and "active fault" in early["error"]
            assert (await ask("clear 72")).startswith("ok")
            assert (await ask("disconnect 6")).startswith("ok")
            gone = await c.event("device.offline", after(halted["seq"]))
            await c.event("device.identified", after(gone["seq"]), timeout=30)
            resumed = await floorperson(broker.url, "resume", {"reason": "shaker replaced"})
            assert resumed["ok"], resumed
            back = await c.event("table.resumed")
            assert back["data"]["state"] == "open"
            assert (await ask("{throw: {faces: [2, 2, 2]}}")).startswith("ok")
            fourth = await c.event("paigow.deal_position", after(back["seq"]))
            assert fourth["data"]["position"] == 5 and fourth["data"]["total"] == 6

    try:
        asyncio.run(asyncio.wait_for(run(), 120))
    finally:
        try:
            assert daemon.terminate() == 0
        finally:
            sim.kill()
