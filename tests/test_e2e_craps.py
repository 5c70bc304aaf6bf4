"""End to end on a Craps table: the simulated camera dice tracker on a real pty
(`floord sim ref-dice-tracker --pty --control unix:...`), the daemon process, a real
Mosquitto, and the boxperson's, stickperson's, dealer's and floorperson's signed calls.

One shooter plays from the come out to the loser 7 (58 Pa. Code § 537.11(a)(1)): an
invalid roll, a die off the table (§ 537.9(a)); points made on 4, 5, 6 and 8, four
different unique points, so the surveillance department is notified (§ 537.12(a)(6));
a throw whose dice left the hand apart, held and called "no roll" by the boxperson
(§ 537.9(b)(1), (d)(1)); the Fire Bet placed before the come out (§ 537.12(a)(1)) won at
Table A on the loser 7 (§ 537.12(a)(5), § 537.5(g)). The tracker throws each roll when
the test asks on its live control channel, and every call is checked.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from e2e_support import (
    DEALER,
    DEALER_KEY,
    FP,
    FP_KEY,
    PREFIX,
    SITE,
    Collector,
    collecting,
    command,
    start_daemon,
    start_device_sim,
)
from test_sim_control import control_socket

from floord.contract import cite

pytestmark = pytest.mark.system

TABLE = "CR-01"
BOX, BOX_KEY = "BX-3001", b"boxperson-3001-secret"
STICK, STICK_KEY = "ST-4001", b"stickperson-4001-secret"
INSPECTION = {"layout_approved": True, "no_call_bets_shown": True, "drop_box_and_tip_box": True}
KEYS = {FP: FP_KEY, DEALER: DEALER_KEY, BOX: BOX_KEY, STICK: STICK_KEY}


def write_config(tmp: Path, broker_url: str, port: str) -> Path:
    operators = []
    for (who, key), role in zip(KEYS.items(), ("floorperson", "dealer", "boxperson",
                                               "stickperson"), strict=True):  # fmt: skip
        (tmp / f"{who}.key").write_bytes(key + b"\n")
        operators.append({"id": who, "role": role, "key_file": f"{who}.key"})
    table = {"id": TABLE, "game": "craps", "rules": {"fire_bet": "A"},
             "devices": [{"id": "dice", "profile": "ref-dice-tracker", "port": port}]}  # fmt: skip
    config = {
        "site": SITE,
        "broker": {"url": broker_url, "topic_prefix": PREFIX},
        "journal": str(tmp / "journal.db"),
        "operators": operators,
        "tables": [table],
    }
    path = tmp / "floord.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


class Pit:
    """The table as the test plays it: the tracker's control channel, the calls, the record."""

    def __init__(self, url: str, c: Collector, ask: Any) -> None:
        self.url, self.c, self.ask = url, c, ask
        self.seq = 0

    async def call(self, who: str, name: str, **args: Any) -> dict[str, Any]:
        reply = await command(self.url, name, args, by=who, key=KEYS[who], table=TABLE)
        assert reply["ok"], (who, name, args, reply)
        return reply

    async def next(self, kind: str, **data: Any) -> dict[str, Any]:
        """The next `kind` event after the last one awaited, its data holding `data`."""
        seq = self.seq
        found = await self.c.event(
            kind,
            lambda b: b["seq"] > seq and all(b["data"].get(k) == v for k, v in data.items()),
        )
        self.seq = found["seq"]
        return found

    async def step(self, line: str) -> None:
        reply = await self.ask(line)
        assert reply.startswith("ok "), (line, reply)

    async def throw(self, d1: int, d2: int, **more: Any) -> dict[str, Any]:
        """A proper throw of d1 and d2, and floord's call of it."""
        await self.step(f"{{throw: {{faces: [{d1}, {d2}], seconds: 0}}}}")
        roll = await self.next("craps.roll", faces=[d1, d2])
        assert roll["rule"] == cite("537.10(a)") and roll["data"]["total"] == d1 + d2
        for key, value in more.items():
            assert roll["data"][key] == value, (key, roll["data"])
        return roll

    async def make_point(self, a: tuple[int, int], b: tuple[int, int], unique: int) -> None:
        """The point a establishes, made with b; the Fire Bet marker counts `unique`."""
        await self.throw(*a, decision="point_established", point=sum(a), marker="on")
        made = await self.throw(*b, decision="point_made", point=None, marker="off")
        assert made["data"]["point_before"] == sum(a)
        marker = await self.next("craps.fire_bet", action="point_marker", point=sum(a))
        assert marker["rule"] == cite("537.12(a)(4)")
        assert marker["data"]["unique_points"] == unique
        await self.next("round.ended", outcome="point_made")


async def play(pit: Pit) -> None:
    await pit.next("device.identified")
    await pit.step("{dice_set: {dice: [D1, D2, D3, D4, D5]}}")
    dice = await pit.next("craps.dice", action="set")
    assert dice["rule"] == cite("537.7(a)") and len(dice["data"]["dice"]) == 5
    await pit.call(FP, "inspect", checklist=INSPECTION)
    await pit.call(FP, "open")
    await pit.next("table.opened")

    # § 537.12(a)(1): the Fire Bet before the new shooter's come out, by the dealer.
    await pit.call(DEALER, "fire_bet", seat=3, amount=5)
    fire = await pit.next("craps.fire_bet", action="accepted")
    assert fire["rule"] == cite("537.12(a)(1)") and fire["data"]["seat"] == 3
    await pit.call(STICK, "shooter", seat=1)
    shooter = await pit.next("craps.shooter", action="new")
    assert shooter["rule"] == cite("537.7(b)") and shooter["data"]["seat"] == 1
    await pit.step("{select: {dice: [D2, D4]}}")
    await pit.next("craps.dice", action="selected", dice=["D2", "D4"])

    # § 537.9(a): a die off the table makes the come out roll invalid.
    await pit.step('{throw: {dice: [{face: 5, id: D2}, {id: D4, rest: "off"}], seconds: 0}}')
    invalid = await pit.next("craps.no_roll", reason="off_the_table")
    assert invalid["rule"] == cite("537.9(a)") and invalid["data"]["invalid"] is True
    voided = await pit.next("round.voided")
    assert voided["round"] == invalid["round"] and voided["rule"] == cite("537.9(a)")

    await pit.make_point((2, 2), (1, 3), unique=1)
    await pit.make_point((2, 3), (1, 4), unique=2)
    await pit.throw(3, 3, decision="point_established", point=6)

    # § 537.9(b)(1): the dice left the hand apart: held; the boxperson calls "no roll".
    await pit.step("{throw: {faces: [5, 2], together: false, seconds: 0}}")
    held = await pit.next("craps.throw_held")
    assert held["rule"] == cite("537.9(b)(1)") and held["data"]["total"] == 7
    await pit.call(BOX, "no_roll", reason="not_together")
    no_roll = await pit.next("craps.no_roll", reason="not_together")
    assert no_roll["rule"] == cite("537.9(b)(1)") and no_roll["data"]["called_by"] == BOX
    assert no_roll["round"] == held["round"] and no_roll["data"]["point"] == 6

    made = await pit.throw(2, 4, decision="point_made")
    assert made["data"]["point_before"] == 6
    assert (await pit.next("craps.fire_bet", action="point_marker"))["data"]["unique_points"] == 3
    await pit.make_point((4, 4), (5, 3), unique=4)

    # § 537.12(a)(6): four different unique points: surveillance notified. The notice
    # came with the fourth marker, before its round ended: look for it from the start.
    notice = await pit.c.event("surveillance.notice")
    assert notice["rule"] == cite("537.12(a)(6)")
    assert notice["data"]["points"] == [4, 5, 6, 8]
    assert notice["data"]["fire_bets"] == [
        {"seat": 3, "amount": 5, "points": [4, 5, 6, 8], "made_by": [1, 1, 1, 1]}
    ]

    # § 537.11(a)(1): a loser 7 passes the dice; § 537.12(a)(5): the Fire Bet is paid.
    await pit.throw(4, 5, decision="point_established", point=9)
    seven = await pit.throw(3, 4, decision="loser_7", point=None, marker="off")
    lost = {w["wager"] for w in seven["data"]["outcomes"]["lose"]}
    assert {"pass_line", "place_win_9"} <= lost
    await pit.next("round.ended", outcome="loser_7")
    paid = await pit.next("craps.fire_bet", action="won")
    assert paid["rule"] == cite("537.3(a)(40)(i)") and paid["data"]["odds"] == "24 to 1"
    assert paid["data"]["settled_rule"] == cite("537.12(a)(5)")
    passed = await pit.next("craps.shooter", action="passed")
    assert passed["rule"] == cite("537.11(a)(1)") and passed["data"]["reason"] == "loser_7"
    assert passed["data"]["points"] == [4, 5, 6, 8]

    # The shooter is gone: a Fire Bet for the next shooter is taken again, a dealer's
    # "no roll" at Craps is refused (§ 537.9(d)(1)).
    refused = await command(pit.url, "no_roll", {"reason": "improper"}, by=DEALER,
                            key=DEALER_KEY, table=TABLE)  # fmt: skip
    assert refused["ok"] is False


def test_a_craps_shooter_from_come_out_to_loser_7_through_floord_run(broker, tmp_path) -> None:
    short = tempfile.mkdtemp(prefix="floord-craps-")  # a unix socket path is short
    sock = f"{short}/dice.sock"
    sim, pty = start_device_sim(
        tmp_path, "ref-dice-tracker", {"steps": [{"idle": 6000}]}, control=f"unix:{sock}"
    )
    daemon = start_daemon(write_config(tmp_path, broker.url, pty))

    async def run() -> None:
        async with collecting(broker.url, TABLE) as c, control_socket(sock) as ask:
            await play(Pit(broker.url, c, ask))

    try:
        asyncio.run(asyncio.wait_for(run(), 150))
    finally:
        try:
            assert daemon.terminate() == 0
        finally:
            sim.kill()
            shutil.rmtree(short, ignore_errors=True)
