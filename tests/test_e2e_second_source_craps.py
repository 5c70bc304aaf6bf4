"""End to end: a Craps table whose stickperson's call of the sum is its second source.

The simulated camera dice tracker on a real pty, thrown live on its control channel, the
daemon process, a real Mosquitto. The stickperson's `call_result` of the same sum calls
the roll (§ 537.10(a)); another sum holds it, with an alert, and the next throw is no
roll, until the boxperson rules the faces as § 537.10(c)(1) has a disputed face decided.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from pathlib import Path

import pytest
import yaml
from e2e_support import FP, PREFIX, SITE, collecting, start_daemon, start_device_sim
from test_e2e_craps import BOX, INSPECTION, KEYS, STICK, TABLE, Pit
from test_sim_control import control_socket

pytestmark = pytest.mark.system

ROLES = {"floorperson": FP, "boxperson": BOX, "stickperson": STICK}


def _config(tmp: Path, url: str, port: str) -> Path:
    operators = []
    for role, who in ROLES.items():
        (tmp / f"{who}.key").write_bytes(KEYS[who] + b"\n")
        operators.append({"id": who, "role": role, "key_file": f"{who}.key"})
    table = {
        "id": TABLE,
        "game": "craps",
        "devices": [{"id": "dice", "profile": "ref-dice-tracker", "port": port}],
        "second_source": {"command": "dealer_call", "window_s": 10, "on_silence": "hold"},
    }
    config = {
        "site": SITE,
        "broker": {"url": url, "topic_prefix": PREFIX},
        "journal": str(tmp / "journal.db"),
        "operators": operators,
        "tables": [table],
    }
    path = tmp / "floord.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


async def play(pit: Pit) -> None:
    await pit.next("device.identified")
    await pit.step("{dice_set: {dice: [D1, D2, D3, D4, D5]}}")
    await pit.next("craps.dice", action="set")
    await pit.call(FP, "inspect", checklist=INSPECTION)
    await pit.call(FP, "open")
    await pit.call(STICK, "shooter", seat=1)
    await pit.step("{select: {dice: [D2, D4]}}")
    await pit.next("craps.dice", action="selected", dice=["D2", "D4"])

    # The call agrees: the roll is called (a natural on the come out).
    await pit.step("{throw: {faces: [3, 4], seconds: 0}}")
    await pit.next("round.started")
    await pit.call(STICK, "call_result", value=7)
    await pit.next("result.confirmed", value="7")
    roll = await pit.next("craps.roll", total=7, decision="natural")
    assert roll["data"]["called_by"] is None

    # The call disagrees: held, alerted, the next throw is no roll, the boxperson rules.
    await pit.step("{throw: {faces: [4, 4], seconds: 0}}")
    started = await pit.next("round.started")
    await pit.call(STICK, "call_result", value=9)
    disputed = await pit.next("result.disputed")
    assert disputed["round"] == started["round"]
    await pit.c.event("surveillance.alert", lambda b: b["round"] == started["round"])
    await pit.step("{throw: {faces: [1, 1], seconds: 0}}")
    held = await pit.c.event("procedure.violation", lambda b: b["data"]["what"] == "result_held")
    assert held["data"]["held_round"] == started["round"]
    ruling = {"round": started["round"], "faces": [4, 4], "note": "faces seen: 4 and 4"}
    await pit.call(BOX, "rule_result", **ruling)
    ruled = await pit.next("result.ruled", value="8")
    assert ruled["data"]["by"] == BOX and ruled["data"]["agrees_with"] == ["primary"]
    called = await pit.next("craps.roll", total=8, decision="point_established")
    assert called["data"]["called_by"] == BOX and called["round"] == started["round"]


def test_a_stickpersons_call_confirms_and_the_boxperson_rules(broker, tmp_path: Path) -> None:
    short = tempfile.mkdtemp(prefix="floord-craps2-")  # a unix socket path is short
    sock = f"{short}/dice.sock"
    sim, pty = start_device_sim(
        tmp_path, "ref-dice-tracker", {"steps": [{"idle": 6000}]}, control=f"unix:{sock}"
    )
    daemon = start_daemon(_config(tmp_path, broker.url, pty))

    async def run() -> None:
        async with collecting(broker.url, TABLE) as c, control_socket(sock) as ask:
            await play(Pit(broker.url, c, ask))

    try:
        asyncio.run(asyncio.wait_for(run(), 120))
    finally:
        try:
            assert daemon.terminate() == 0
        finally:
            sim.kill()
            shutil.rmtree(short, ignore_errors=True)
