"""The simulated roulette wheel sensor kit through a real pty, heard by the test's own host
code, then decoded by the real driver (`drivers/flf1/wheel_sensor.py`): the two sides of
`docs/protocols/wheel-sensor.md` meet on real bytes.
"""

from __future__ import annotations

import asyncio

import pytest
from card_sim_support import HANG_S, assert_sequence_increases, on_pty

from drivers.flf1.codec import encode_frame
from drivers.flf1.wheel_sensor import WheelSensorDriver
from floord.contract import EventType
from floord.events import DeviceEvent
from floord.profiles import DeviceProfile, load_profile
from simulators.flf1.wheel_sensor import WheelSensorSimulator
from simulators.flf1.wheel_sensor_scenarios import WheelSensorScenario
from simulators.run import load_simulator
from simulators.scenario import ScenarioError

pytestmark = pytest.mark.system

SPEED = 50.0
REF = load_profile("ref-wheel-sensor")
W = EventType


def _profile(**quirks: object) -> DeviceProfile:
    body = REF.model_dump()
    body["quirks"] = {**body["quirks"], "ack_timeout_s": 3.0, **quirks}
    return DeviceProfile.model_validate(body)


def _play(profile: DeviceProfile, scenario: dict) -> list[tuple[str, ...]]:
    simulator = WheelSensorSimulator(
        profile, WheelSensorScenario.model_validate(scenario), speed=SPEED
    )
    heard: list[tuple[str, ...]] = []

    async def body() -> None:
        async with on_pty(simulator, algorithm=profile.quirks["checksum"]) as (host, task):
            await asyncio.wait_for(task, HANG_S)
            assert all(f.good for f in host.frames) and host.junk == []
            assert_sequence_increases([f for f in host.distinct() if f.kind != "ACK"])
            heard.extend(host.messages())

    asyncio.run(body())
    return heard


def _events(profile: DeviceProfile, heard: list[tuple[str, ...]], pockets: int) -> list:
    """What the real driver makes of the frames the simulator sent, in order."""
    driver = WheelSensorDriver(profile, pockets=pockets)
    out = []
    for seq, (kind, *fields) in enumerate(heard):
        raw = encode_frame(seq % 256, kind, tuple(fields), driver.quirks.checksum)
        out += [(o.type, o.data) for o in driver.feed(raw, seq * 0.1) if isinstance(o, DeviceEvent)]
    return out


@pytest.mark.parametrize("checksum", ["crc16-ccitt", "xor8"])
def test_spins_through_a_pty_report_direction_revolutions_pocket_off_and_object(
    checksum: str,
) -> None:
    profile = _profile(checksum=checksum)
    heard = _play(profile, {"pockets": 38, "steps": [
        {"spin": {"rotor": "cw", "rpm": 17.2, "ball": "ccw", "revolutions": 5, "pocket": "00",
                  "seconds": 0.1}},
        {"spin": {"rotor": "ccw", "rpm": 9.5, "ball": "ccw", "revolutions": 2, "pocket": "17",
                  "seconds": 0.0}},
        {"spin": {"revolutions": 6, "off": True, "seconds": 0.0}},
        {"spin": {"revolutions": 4, "object": True, "no_more_bets": False, "pocket": "0",
                  "seconds": 0.0}},
    ]})  # fmt: skip
    assert heard[0] == ("IDN", "floord reference", "ref-wheel-sensor", "WS-000531", "1.0.0",
                        "double_zero")  # fmt: skip
    laps = [("REV", str(n)) for n in range(1, 6)]
    assert heard[1:10] == [("ROT", "cw", "172"), ("BAL", "ccw"), *laps, ("NMB",), ("POC", "00")]
    assert heard[10:15] == [("ROT", "ccw", "95"), ("BAL", "ccw"), ("REV", "1"), ("REV", "2"),
                            ("NMB",)]  # fmt: skip
    assert heard[15] == ("POC", "17")
    assert heard[-4:] == [("REV", "3"), ("REV", "4"), ("OBJ",), ("POC", "0")]
    assert ("OFF",) in heard and ("POC", "17") in heard
    out = _events(profile, heard, pockets=38)
    assert not [e for e in out if e[0] == W.DEVICE_PROTOCOL_ERROR]
    starts = [d for t, d in out if t == W.WHEEL_GAME_STARTED]
    assert [s["spin"] for s in starts] == [1, 2, 3, 4]
    assert starts[1]["rotor_direction"] == "ccw" and starts[1]["rotor_rpm"] == 9.5
    launches = [d for t, d in out if t == W.WHEEL_BALL_LAUNCHED]
    assert [(d["rotor_direction"], d["ball_direction"]) for d in launches][:2] == [
        ("cw", "ccw"), ("ccw", "ccw")]  # fmt: skip
    assert [d["number"] for t, d in out if t == W.WHEEL_NUMBER] == ["00", "17", "0"]
    assert [d for t, d in out if t == W.WHEEL_BALL_OFF] == [{"spin": 3}]
    assert [d for t, d in out if t == W.WHEEL_FOREIGN_OBJECT] == [{"spin": 4}]
    last_counts = [d["count"] for t, d in out if t == W.WHEEL_BALL_REVOLUTIONS]
    assert last_counts == [1, 2, 3, 4, 5, 1, 2, 1, 2, 3, 4, 5, 6, 1, 2, 3, 4]


def test_a_single_zero_kit_says_so_and_a_fault_and_tamper_pass() -> None:
    profile = _profile()
    heard = _play(profile, {"steps": [
        {"spin": {"revolutions": 0, "pocket": "36", "no_more_bets": False, "seconds": 0.0}},
        {"fault": {"code": 61}},
        {"tamper": {"code": 3}},
    ]})  # fmt: skip
    assert heard[0][-1] == "single_zero"
    assert heard[1:] == [("ROT", "cw", "172"), ("BAL", "ccw"), ("POC", "36"),
                         ("FLT", "61", "ball track sensor failed"),
                         ("TMP", "3", "magnet near the wheel")]  # fmt: skip
    kinds = [t for t, _ in _events(profile, heard, pockets=37)]
    assert kinds == [W.WHEEL_GAME_STARTED, W.WHEEL_BALL_LAUNCHED, W.WHEEL_NUMBER,
                     W.DEVICE_FAULT, W.DEVICE_TAMPER]  # fmt: skip


def test_the_simulator_is_found_by_its_profile_and_refuses_bad_steps() -> None:
    assert load_simulator(REF) is WheelSensorSimulator
    with pytest.raises(ValueError, match="pocket"):
        WheelSensorScenario.model_validate({"steps": [{"spin": {"pocket": "37"}}]})
    with pytest.raises(ValueError, match="pocket expected"):
        WheelSensorScenario.model_validate({"steps": [{"spin": {"revolutions": 5}}]})
    with pytest.raises(ValueError, match="off is true"):
        WheelSensorScenario.model_validate({"steps": [{"spin": {"off": True, "pocket": "1"}}]})
    with pytest.raises(ValueError, match="pockets"):
        WheelSensorScenario.model_validate({"pockets": 39, "steps": []})
    single_00 = WheelSensorScenario.model_validate({"steps": [{"spin": {"pocket": "00"}}]})
    with pytest.raises(ScenarioError, match=r"steps\.0\.spin: pocket: 00"):
        WheelSensorSimulator(REF, single_00)
    scenario = WheelSensorScenario.model_validate({"steps": [{"fault": {"code": 41}}]})
    with pytest.raises(ScenarioError, match=r"steps\.0\.fault"):
        WheelSensorSimulator(REF, scenario)
