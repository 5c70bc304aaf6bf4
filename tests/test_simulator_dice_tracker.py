"""The simulated dice tracker and Pai Gow shaker, in one process: what a model cannot
report is refused, scenario steps are read strictly, and the simulator is found by its
profiles. Their bytes through a real pty, decoded by the real driver, and `floord sim`
with live steps are in `test_simulator_dice_tracker_system.py`.
"""

from __future__ import annotations

import pytest

from floord.profiles import DeviceProfile, load_profile
from simulators.flf1.dice_tracker import DiceTrackerSimulator
from simulators.flf1.dice_tracker_scenarios import DiceScenario
from simulators.run import load_simulator
from simulators.scenario import ScenarioError

pytestmark = pytest.mark.unit

TRACKER = load_profile("ref-dice-tracker")
SHAKER = load_profile("ref-paigow-shaker")


def _profile(base: DeviceProfile, **quirks: object) -> DeviceProfile:
    body = base.model_dump()
    body["quirks"] = {**body["quirks"], "ack_timeout_s": 3.0, **quirks}
    return DeviceProfile.model_validate(body)


def _steps(*steps: dict) -> DiceScenario:
    return DiceScenario.model_validate({"steps": list(steps)})


@pytest.mark.parametrize(
    ("profile", "step", "problem"),
    [
        (SHAKER, {"throw": {"faces": [1, 2]}}, r"steps\.0\.throw: 3 dice expected"),
        (TRACKER, {"throw": {"faces": [1, 2, 3]}}, "2 dice expected, found 3"),
        (SHAKER, {"throw": {"dice": [{"face": 1, "rest": "off"}, {"face": 2}, {"face": 3}]}},
         r"dice\.0\.rest: this model does not report it \(capabilities: none\)"),
        (SHAKER, {"throw": {"dice": [{"face": 1}, {"face": 2, "id": "A"}, {"face": 3}]}},
         r"dice\.1\.id"),
        (SHAKER, {"throw": {"faces": [1, 2, 3], "together": False}}, "together capability"),
        (_profile(TRACKER, far_end=False),
         {"throw": {"dice": [{"face": 1}, {"face": 2, "far_end": False}]}}, r"dice\.1\.far_end"),
        (_profile(TRACKER, cocked=False),
         {"throw": {"dice": [{"face": 1, "lie": "cocked"}, {"face": 2}]}}, r"dice\.0\.lie"),
        (SHAKER, {"dice_set": {"dice": ["A", "B", "C"]}}, r"steps\.0\.dice_set: only a model"),
        (SHAKER, {"select": {"dice": ["A", "B", "C"]}}, r"steps\.0\.select: only a model with"),
        (TRACKER, {"select": {"dice": ["A", "B", "C"]}}, r"steps\.0\.select: dice: 2 expected"),
        (TRACKER, {"replace": {"out": "D9", "new": "D6"}}, "replace: D9 is not in the dice set"),
    ],
)  # fmt: skip
def test_a_model_refuses_what_it_cannot_report(
    profile: DeviceProfile, step: dict, problem: str
) -> None:
    with pytest.raises(ScenarioError, match=problem):
        DiceTrackerSimulator(profile, _steps(step))


@pytest.mark.parametrize(
    ("step", "problem"),
    [
        ({"throw": {"dice": [{"face": 1}, {}]}}, "face expected"),
        ({"throw": {"dice": [{"face": 7}, {"face": 1}]}}, "less than or equal to 6"),
        ({"throw": {"faces": [1, 2], "dice": [{"face": 1}, {"face": 2}]}}, "both"),
        ({"throw": {"dice": [{"face": 1, "id": "A"}, {"face": 2, "id": "A"}]}}, "A twice"),
        ({"throw": {"dice": [{"face": 1, "rest": "floor"}, {"face": 2}]}}, "rest"),
        ({"dice_set": {"dice": ["A", "A"]}}, "A twice"),
        ({"dice_set": {"dice": ["A|B"]}}, "pattern"),
        ({"replace": {"out": "A", "new": "A"}}, "a die other than out"),
        ({"rolls": {"count": 0}}, "greater than or equal to 1"),
        ({"throw": {"dice": [{"face": 1, "seen": False}, {"face": 2}]}}, "seen: false only"),
    ],
)
def test_scenario_steps_are_read_strictly(step: dict, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        _steps(step)


def test_the_simulator_is_found_by_its_profiles_and_needs_two_or_three_dice() -> None:
    assert load_simulator(TRACKER) is DiceTrackerSimulator
    assert load_simulator(SHAKER) is DiceTrackerSimulator
    assert DiceTrackerSimulator(SHAKER).capabilities == []
    assert DiceTrackerSimulator(TRACKER).dice == 2
    with pytest.raises(ValueError, match=r"quirks\.dice: 2 or 3"):
        DiceTrackerSimulator(_profile(TRACKER, dice=4))
    with pytest.raises(ValueError, match="family dice_tracker expected"):
        DiceTrackerSimulator(load_profile("ref-big-six"))
    assert DiceScenario.model_validate({"loop": True, "steps": [{"rolls": {"count": 2}}]}).loop
