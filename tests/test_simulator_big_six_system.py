"""The simulated Big Six wheel through a real pty, heard by the test's own host code.

The host end (`card_sim_support`) splits and checks frames with its own code, and the
driver (`drivers/flf1/big_six.py`) then decodes what the simulator sent: the two sides of
`docs/protocols/big-six.md` meet on real bytes.
"""

from __future__ import annotations

import asyncio

import pytest
from card_sim_support import HANG_S, assert_sequence_increases, on_pty
from test_simulator_big_six import ANGLE, _profile

from drivers.flf1.big_six import BigSixDriver, angle_section
from drivers.flf1.codec import encode_frame
from floord.contract import EventType
from floord.events import DeviceEvent
from floord.profiles import DeviceProfile
from simulators.flf1.big_six import BigSixSimulator, spin_passes
from simulators.flf1.big_six_scenarios import BigSixScenario, Spin

pytestmark = pytest.mark.system


SPEED = 50.0


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


@pytest.mark.parametrize("checksum", ["crc16-ccitt", "xor8"])
def test_a_spin_of_the_angle_wheel_through_a_pty(checksum: str) -> None:
    profile = _profile(ANGLE, checksum=checksum)
    heard = _play(profile, [{"spin": {"direction": "cw", "revolutions": 3, "section": 50,
                                      "seconds": 0.0}},
                            {"spin": {"direction": "ccw", "revolutions": 3, "section": 2,
                                      "between": True, "seconds": 0.0}}])  # fmt: skip
    assert heard[0][:3] == ("IDN", "floord reference", "ref-big-six-angle")
    assert heard[0][-1] == "clapper,angle"
    assert not [m for m in heard if m[0] == "SEC"]
    first = heard[: heard.index(("RST", "50")) + 1]
    angles = [int(m[1]) for m in first if m[0] == "ANG"]
    # clockwise from the joker (angle 0): three readings a section, the angle decreasing
    assert angles[:4] == [3578, 3556, 3533, 3511] and len(angles) == 3 * (3 * 54 + 4)
    assert all(0 <= a < 3600 for a in angles)
    assert [angle_section(a) for a in angles[2::3]] == spin_passes(0, Spin(revolutions=3,
                                                                          section=50))  # fmt: skip
    assert angles[-1] == 3333  # section 50's centre: 50 x 3600/54
    second = heard[len(first) :]
    assert second[0] == ("SPN", "ccw") and second[-1] == ("DIV", "2", "3")
    assert [angle_section(int(m[1])) for m in second if m[0] == "ANG"][-1] == 2
    events = _events(profile, heard)
    assert [e.type for e in events] == [
        EventType.BIGSIX_SPIN_STARTED, *[EventType.BIGSIX_REVOLUTION] * 3,
        EventType.BIGSIX_AT_REST,
        EventType.BIGSIX_SPIN_STARTED, *[EventType.BIGSIX_REVOLUTION] * 3,
        EventType.BIGSIX_BETWEEN_SECTIONS,
    ]  # fmt: skip
    assert events[4].data == {"section": 50}


def test_a_misaligned_rim_faults_the_wheel_at_rest() -> None:
    profile = _profile(ANGLE)
    heard = _play(profile, [
        {"spin": {"revolutions": 3, "section": 13, "seconds": 0.0, "rim_offset": 1}},
        {"spin": {"direction": "ccw", "revolutions": 3, "section": 13, "seconds": 0.0,
                  "rim_offset": -5}},
    ])  # fmt: skip
    events = _events(profile, heard)
    kinds = [e.type for e in events]
    # one section off is tolerated; five is a fault, before the rest is reported
    assert kinds.count(EventType.BIGSIX_AT_REST) == 2 and kinds.count(EventType.DEVICE_FAULT) == 1
    fault = kinds.index(EventType.DEVICE_FAULT)
    assert fault > kinds.index(EventType.BIGSIX_AT_REST)
    assert kinds[fault + 1] == EventType.BIGSIX_AT_REST and events[fault + 1].data == {
        "section": 13}  # fmt: skip
    assert events[fault].data["origin"] == "consistency" and events[fault].data["code"] is None
    assert "is in section 8, but the clapper rests in section 13" in events[fault].data["text"]
    assert EventType.DEVICE_PROTOCOL_ERROR not in kinds
