"""The simulated Big Six wheel in one process: the angle wheel refuses what it cannot be,
the rim readings of a pass, the wheel running on from where it stopped, and the
simulator found by its profile. Its frames through a real pty, decoded by the driver,
are in `test_simulator_big_six_system.py`.
"""

from __future__ import annotations

import pytest

from drivers.flf1.big_six import angle_section
from floord.profiles import DeviceProfile, load_profile
from simulators.flf1.big_six import BigSixSimulator, pass_angles, spin_passes
from simulators.flf1.big_six_scenarios import BigSixScenario, Spin
from simulators.run import load_simulator
from simulators.scenario import ScenarioError

pytestmark = pytest.mark.unit

REF = load_profile("ref-big-six")
ANGLE = load_profile("ref-big-six-angle")


def _profile(base: DeviceProfile = REF, **quirks: object) -> DeviceProfile:
    body = base.model_dump()
    body["quirks"] = {**body["quirks"], "ack_timeout_s": 3.0, **quirks}
    return DeviceProfile.model_validate(body)


def test_the_angle_wheel_refuses_what_it_cannot_be() -> None:
    spin = {"spin": {"section": 3, "rim_offset": 2}}
    with pytest.raises(ScenarioError, match=r"steps\.0\.spin: rim_offset: only a model"):
        BigSixSimulator(REF, BigSixScenario.model_validate({"steps": [spin]}))
    with pytest.raises(ValueError, match="rim_offset"):
        BigSixScenario.model_validate({"steps": [{"spin": {"section": 3, "rim_offset": 54}}]})
    with pytest.raises(ValueError, match="one or the other"):
        BigSixSimulator(_profile(ANGLE, sections=True))
    assert load_simulator(ANGLE) is BigSixSimulator
    assert BigSixSimulator(_profile(sections=False)).capabilities == ["clapper"]


def test_the_rim_readings_of_a_pass() -> None:
    # a third, two thirds and all the way from the last centre to the next, half up
    assert pass_angles(1, 1, 0) == [22, 44, 67]
    assert pass_angles(53, -1, 0) == [3578, 3556, 3533]
    assert pass_angles(0, 1, 0) == [3556, 3578, 0]
    assert pass_angles(13, -1, 5) == pass_angles(18, -1, 0)
    for section in range(54):
        for step in (-1, 1):
            readings = [angle_section(a) for a in pass_angles(section, step, 0)]
            assert readings == [(section - step) % 54, section, section]


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
