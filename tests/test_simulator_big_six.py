"""The simulated Big Six wheel through a real pty, heard by the test's own host code.

The host end (`card_sim_support`) splits and checks frames with its own code, and the
driver (`drivers/big_six.py`) then decodes what the simulator sent: the two sides of
`docs/protocols/big-six.md` meet on real bytes.
"""

from __future__ import annotations

import asyncio

import pytest
from card_sim_support import HANG_S, assert_sequence_increases, on_pty

from drivers.big_six import BigSixDriver
from drivers.framed_codec import encode_frame
from floord.contract import EventType
from floord.events import DeviceEvent
from floord.profiles import DeviceProfile, load_profile
from simulators.big_six import BigSixSimulator, spin_passes
from simulators.big_six_scenarios import BigSixScenario, Spin
from simulators.link import load_simulator
from simulators.scenario import ScenarioError

SPEED = 50.0
REF = load_profile("ref-big-six")


def _profile(**quirks: object) -> DeviceProfile:
    body = REF.model_dump()
    body["quirks"] = {**body["quirks"], "ack_timeout_s": 3.0, **quirks}
    return DeviceProfile.model_validate(body)


def _play(profile: DeviceProfile, steps: list[dict]) -> list[tuple[str, ...]]:
    scenario = BigSixScenario.model_validate({"steps": steps})
    simulator = BigSixSimulator(profile, scenario, speed=SPEED)
    heard: list[tuple[str, ...]] = []

    async def body() -> None:
        async with on_pty(simulator, algorithm=profile.quirks["checksum"]) as (host, task):
            await asyncio.wait_for(task, HANG_S)
            assert all(f.good for f in host.frames) and host.junk == []
            assert_sequence_increases([f for f in host.distinct() if f.kind != "ACK"])
            heard.extend(host.messages())

    asyncio.run(body())
    return heard


def _events(profile: DeviceProfile, heard: list[tuple[str, ...]]) -> list[DeviceEvent]:
    """What the real driver makes of the frames the simulator sent, in order."""
    driver = BigSixDriver(profile)
    events = []
    for seq, (kind, *fields) in enumerate(heard):
        frame = encode_frame(seq % 256, kind, tuple(fields), driver.quirks.checksum)
        events += [o for o in driver.feed(frame, float(seq) * 0.1) if isinstance(o, DeviceEvent)]
    return events


@pytest.mark.parametrize("checksum", ["crc16-ccitt", "xor8"])
def test_a_spin_through_a_pty_reports_sections_revolutions_and_rest(checksum: str) -> None:
    profile = _profile(checksum=checksum)
    heard = _play(profile, [{"spin": {"direction": "cw", "revolutions": 3, "section": 50,
                                      "seconds": 0.0}}])  # fmt: skip
    assert heard[0][:2] == ("IDN", "floord reference") and heard[0][-1] == "clapper,sections"
    assert heard[1] == ("SPN", "cw")
    sections = [int(m[1]) for m in heard if m[0] == "SEC"]
    # clockwise from the joker: 53, 52, ... 0, three times, then on to 50
    assert sections[:3] == [53, 52, 51] and len(sections) == 3 * 54 + 4
    assert [m for m in heard if m[0] == "REV"] == [("REV", "1"), ("REV", "2"), ("REV", "3")]
    assert heard[-1] == ("RST", "50")
    events = _events(profile, heard)
    assert [e.type for e in events] == [
        EventType.BIGSIX_SPIN_STARTED, EventType.BIGSIX_REVOLUTION,
        EventType.BIGSIX_REVOLUTION, EventType.BIGSIX_REVOLUTION, EventType.BIGSIX_AT_REST,
    ]  # fmt: skip
    assert events[-1].data == {"section": 50}


def test_a_wheel_without_sections_a_divider_and_a_fault() -> None:
    profile = _profile(sections=False)
    heard = _play(profile, [
        {"spin": {"direction": "ccw", "revolutions": 1, "section": 53, "between": True,
                  "seconds": 0.0}},
        {"fault": {"code": 50}},
        {"tamper": {"code": 3}},
    ])  # fmt: skip
    assert heard[0][-1] == "clapper"
    assert heard[1:] == [("SPN", "ccw"), ("REV", "1"), ("DIV", "53", "0"),
                         ("FLT", "50", "clapper sensor failed"),
                         ("TMP", "3", "magnet near the clapper")]  # fmt: skip
    events = _events(profile, heard)
    assert events[2].type == EventType.BIGSIX_BETWEEN_SECTIONS
    assert events[2].data == {"left": 53, "right": 0}
    assert events[3].type == EventType.DEVICE_FAULT


def test_the_wheel_runs_on_from_where_it_stopped() -> None:
    first = spin_passes(0, Spin(direction="ccw", revolutions=0, section=5))
    assert first == [1, 2, 3, 4, 5]
    assert spin_passes(5, Spin(direction="cw", revolutions=0, section=3)) == [4, 3]
    assert len(spin_passes(7, Spin(direction="cw", revolutions=2, section=7))) == 108


def test_the_simulator_is_found_by_its_profile_and_refuses_bad_steps() -> None:
    assert load_simulator(REF) is BigSixSimulator
    with pytest.raises(ValueError, match="section"):
        BigSixScenario.model_validate({"steps": [{"spin": {"section": 54}}]})
    with pytest.raises(ValueError, match="exactly one"):
        BigSixScenario.model_validate({"steps": [{"spin": {"section": 1}, "idle": 1.0}]})
    scenario = BigSixScenario.model_validate({"steps": [{"fault": {"code": 41}}]})
    with pytest.raises(ScenarioError, match=r"steps\.0\.fault"):
        BigSixSimulator(REF, scenario)
