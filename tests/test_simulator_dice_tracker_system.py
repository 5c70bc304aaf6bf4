"""The simulated dice tracker and Pai Gow shaker through a real pty, heard by the test's
own host code and decoded by the real driver, and `floord sim` taking dice steps live
over its control socket. Scenario files and wire forms are in
`test_simulator_dice_tracker.py`.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from card_sim_support import HANG_S, PtyHost, assert_sequence_increases, on_pty
from test_sim_control import control_socket, running
from test_simulator_dice_tracker import SHAKER, TRACKER, _profile, _steps

from drivers.flf1.codec import encode_frame
from drivers.flf1.dice_tracker import DiceTrackerDriver
from floord.contract import EventType
from floord.events import DeviceEvent
from floord.profiles import DeviceProfile
from simulators.flf1.dice_tracker import DiceTrackerSimulator
from simulators.flf1.dice_tracker_scenarios import DiceScenario

pytestmark = pytest.mark.system


SPEED = 50.0

SCENARIOS = Path(__file__).resolve().parents[1] / "simulators" / "scenarios"


def _play(profile: DeviceProfile, scenario: DiceScenario) -> list[tuple[str, ...]]:
    simulator = DiceTrackerSimulator(profile, scenario, speed=SPEED)
    heard: list[tuple[str, ...]] = []

    async def body() -> None:
        async with on_pty(simulator, algorithm=profile.quirks["checksum"]) as (host, task):
            await asyncio.wait_for(task, HANG_S)
            assert host.junk == []
            assert_sequence_increases([f for f in host.distinct() if f.kind != "ACK"])
            heard.extend(host.messages())

    asyncio.run(body())
    return heard


def _file(name: str) -> DiceScenario:
    scenario = DiceTrackerSimulator.load_scenario(SCENARIOS / f"{name}.yaml")
    assert isinstance(scenario, DiceScenario)
    return scenario


def _events(profile: DeviceProfile, heard: list[tuple[str, ...]]) -> list[DeviceEvent]:
    """What the real driver makes of the frames the simulator sent, in order."""
    driver = DiceTrackerDriver(profile)
    events = []
    for seq, (kind, *fields) in enumerate(heard):
        frame = encode_frame(seq % 256, kind, tuple(fields), driver.quirks.checksum)
        events += [o for o in driver.feed(frame, float(seq) * 0.1) if isinstance(o, DeviceEvent)]
    return events


def _throws(events: list[DeviceEvent]) -> list[dict]:
    return [e.data for e in events if e.type == EventType.DICE_THROW]


@pytest.mark.parametrize("checksum", ["crc16-ccitt", "xor8"])
def test_a_shooter_through_a_pty(checksum: str) -> None:
    profile = _profile(TRACKER, checksum=checksum)
    heard = _play(profile, _file("dice-shooter"))
    assert heard[0] == ("IDN", "floord reference", "ref-dice-tracker", "DT-000537", "1.0.0",
                        "die_ids,rest,cocked,far_end,together")  # fmt: skip
    assert heard[1:3] == [("SET", "D1", "D2", "D3", "D4", "D5"), ("SEL", "D2", "D4")]
    events = _events(profile, heard)
    assert [e.type for e in events] == [EventType.DICE_SET, EventType.DICE_SELECTED,
                                        *[EventType.DICE_THROW] * 11]  # fmt: skip
    throws = _throws(events)
    assert [t["throw"] for t in throws] == list(range(1, 12))
    assert [[d["face"] for d in t["dice"]] for t in throws][:4] == [[3, 4], [2, 4], [5, 3], [1, 5]]
    assert throws[-1]["dice"][0]["face"] == 6 and throws[-1]["dice"][1]["face"] == 1
    for throw in throws:  # every throw of a shooter's run is proper, with the shooter's dice
        assert throw["together"] is True
        assert [(d["id"], d["rest"], d["lie"], d["far_end"]) for d in throw["dice"]] == [
            ("D2", "table", "flat", True), ("D4", "table", "flat", True)]  # fmt: skip
        assert all(1 <= d["face"] <= 6 for d in throw["dice"])


def test_invalid_throws_and_a_replaced_die_as_the_engine_will_see_them() -> None:
    profile = _profile(TRACKER)
    events = _events(profile, _play(profile, _file("dice-invalid")))
    sets = [e.data["dice"] for e in events if e.type == EventType.DICE_SET]
    assert sets == [["D1", "D2", "D3", "D4", "D5"], ["D1", "D6", "D3", "D4", "D5"]]
    selected = [e.data["dice"] for e in events if e.type == EventType.DICE_SELECTED]
    assert selected == [["D1", "D2"], ["D1", "D6"]]  # the shooter's D2 was replaced
    dice = [[(d["id"], d["face"], d["rest"], d["lie"], d["far_end"]) for d in t["dice"]]
            for t in _throws(events)]  # fmt: skip
    assert dice == [
        [("D1", 4, "table", "flat", True), ("D2", 4, "table", "flat", True)],
        [("D1", 6, "table", "flat", True), ("D2", None, "off", "flat", True)],
        [("D1", 2, "die", "flat", True), ("D6", 5, "table", "flat", True)],  # D6 for D2
        [("D1", 1, "table", "cocked", True), ("D6", 4, "table", "flat", True)],
        [("D1", 3, "table", "flat", True), ("D6", None, "table", "cocked_multi", True)],
        [("D1", 5, "table", "flat", True), ("D6", 5, "table", "flat", True)],
        [("D1", 2, "table", "flat", False), ("D6", 3, "table", "flat", True)],
        [("D1", 6, "bank", "flat", True), ("D6", 6, "table", "flat", True)],
        [("D1", 1, "rail", "flat", True), ("D6", None, "cup", "flat", True)],
        [("D5", 3, "table", "flat", True), ("D6", 4, "table", "flat", True)],
    ]
    assert [t["together"] for t in _throws(events)].count(False) == 1
    assert EventType.DEVICE_PROTOCOL_ERROR not in [e.type for e in events]


def test_an_unread_id_and_an_unseen_die_as_the_engine_will_see_them() -> None:
    """The page: an id the camera could not read is `-`; a die off the table or in the cup
    it did not see leaves its lie and far_end `-` too. The driver takes both."""
    profile = _profile(TRACKER)
    scenario = _steps(
        {"throw": {"dice": [{"face": 3, "id_read": False}, {"face": 4}], "seconds": 0}},
        {"throw": {"dice": [{"face": 2}, {"rest": "off", "seen": False, "id_read": False}],
                   "seconds": 0}},
    )  # fmt: skip
    heard = _play(profile, scenario)
    assert heard[-2:] == [
        ("THR", "Y", "-", "3", "table", "flat", "Y", "D2", "4", "table", "flat", "Y"),
        ("THR", "Y", "D1", "2", "table", "flat", "Y", "-", "-", "off", "-", "-"),
    ]
    events = _events(profile, heard)
    assert EventType.DEVICE_PROTOCOL_ERROR not in [e.type for e in events]
    first, second = _throws(events)
    assert first["dice"][0]["id"] is None and first["dice"][1]["id"] == "D2"
    assert second["dice"][1] == {"id": None, "face": None, "rest": "off", "lie": None,
                                 "far_end": None}  # fmt: skip


def test_faults_tamper_and_a_garbled_frame_resent() -> None:
    profile = _profile(TRACKER, ack_timeout_s=0.5)
    heard = _play(profile, _file("dice-faults"))
    assert ("FLT", "70", "camera failed") in heard and ("FLC", "70") in heard
    assert ("TMP", "3", "camera obstructed") in heard  # the profile's text for its code
    events = _events(profile, heard)
    kinds = [e.type for e in events]
    assert kinds.count(EventType.DICE_THROW) == 4
    assert kinds.count(EventType.DEVICE_FAULT) == 1 and EventType.DEVICE_TAMPER in kinds


def test_a_shaker_reports_only_its_three_faces() -> None:
    profile = _profile(SHAKER)
    heard = _play(profile, _file("shaker"))
    assert heard[0][-1] == "-" and heard[1] == ("THR", "-", *("-", "4", "-", "-", "-"),
                                                *("-", "2", "-", "-", "-"),
                                                *("-", "6", "-", "-", "-"))  # fmt: skip
    events = _events(profile, heard)
    throws = _throws(events)
    assert len(throws) == 6 and throws[0]["together"] is None
    for throw in throws:
        assert len(throw["dice"]) == 3
        for die in throw["dice"]:
            assert 1 <= die["face"] <= 6
            assert (die["id"], die["rest"], die["lie"], die["far_end"]) == (None,) * 4
    assert events[-1].type == EventType.DEVICE_FAULT and events[-1].data["code"] == 72


def test_floord_sim_runs_the_tracker_and_takes_dice_steps_live(tmp_path: Path) -> None:
    sock = str(tmp_path / "dice.sock")
    with running(tmp_path, "ref-dice-tracker", f"unix:{sock}", None, speed=1.0) as sim:

        async def run() -> None:
            host = PtyHost(sim.pty, "crc16-ccitt", auto_ack=True)
            try:
                async with control_socket(sock) as ask:
                    await host.wait_kind("IDN")
                    assert (await ask("dice_set {dice: [A1, A2, A3, A4, A5]}")).startswith("ok")
                    await host.wait_for(lambda f: f.kind == "SET" and len(f.fields) == 5)
                    assert (await ask("select {dice: [A1, A2]}")).startswith("ok select")
                    reply = await ask('throw {dice: [{face: 6}, {rest: "off"}], seconds: 0}')
                    assert reply.startswith("ok throw"), reply
                    await host.wait_for(
                        lambda f: (
                            f.kind == "THR"
                            and f.fields[1:6] == ("A1", "6", "table", "flat", "Y")
                            and f.fields[7:9] == ("-", "off")
                        )
                    )
                    assert (await ask("replace out=A3 new=A9")).startswith("ok replace")
                    after = await host.wait_for(lambda f: f.kind == "SET" and "A9" in f.fields)
                    assert (await ask("replace out=A1 new=A7")).startswith("ok replace")
                    await host.wait_for(lambda f: f.kind == "SEL" and f.fields == ("A7", "A2"))
                    # A3 was in the cup: its replacement changed the set, not the shooter's dice
                    assert [f.fields for f in host.distinct(after) if f.kind == "SEL"] == [
                        ("A7", "A2")
                    ]
                    unquoted = await ask("throw {dice: [{face: 6}, {rest: off}]}")
                    assert 'write "off" in quotes' in unquoted, unquoted
                    bad = await ask("throw faces=[1,2,3]")
                    assert bad.startswith("error: throw: 2 dice expected, found 3"), bad
                    assert (await ask("fault 70")).startswith('ok fault {"code": 70}')
                    await host.wait_for(lambda f: f.kind == "FLT" and f.fields[0] == "70")
                    help_line = await ask("help")
                    assert "throw {dice?, faces?, together?, seconds?}" in help_line, help_line
                    assert "fault codes 10,70,71,72,90" in help_line
                    assert sim.proc.poll() is None
            finally:
                host.close()

        asyncio.run(asyncio.wait_for(run(), 60))
