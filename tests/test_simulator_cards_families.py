"""Each card device family's scenario files and what its simulator refuses, in one process.

The scenario files and the simulators refuse what they cannot play, naming the file (or
step) and key; the example scenarios load and fit the reference profiles. Every message
type heard through a real pty is in `test_simulator_cards_families_system.py`.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from card_sim_support import profile

from floord.profiles import load_profile
from simulators.flf1.card_reader import CardReaderSimulator
from simulators.flf1.card_scenarios import ReaderScenario, ShoeScenario, ShufflerScenario
from simulators.flf1.card_shuffler import CardShufflerSimulator
from simulators.flf1.dealing_shoe import DealingShoeSimulator
from simulators.run import load_simulator
from simulators.scenario import ScenarioError

pytestmark = pytest.mark.unit

SCENARIOS = Path(__file__).resolve().parent.parent / "simulators" / "scenarios"


# ----- what a model cannot play, and scenario files ------------------------------------


@pytest.mark.parametrize(
    ("simulator", "quirks", "scenario", "message"),
    [
        (CardReaderSimulator, {}, {"steps": [{"peek": {"blackjack": True, "card": "AS"}}]},
         "steps.0.peek: card: none on a reader without exposes_value"),
        (CardReaderSimulator, {"fault_codes": {11: "eye failed"}},
         {"steps": [{"fault": {"code": 12}}]},
         "steps.0.fault: code: one of the profile's fault codes (11)"),
        (CardReaderSimulator, {"max_frame_length": 40}, {}, "identity: IDN frame of"),
        (DealingShoeSimulator, {"double": True}, {"steps": [{"draw": {"count": 1}}]},
         "steps.0.draw: side: L or R on a double shoe expected, found '-'"),
        (DealingShoeSimulator, {}, {"steps": [{"load": {"side": "L"}}]},
         "steps.0.load: side: '-' on a single shoe expected"),
        (DealingShoeSimulator, {}, {"steps": [{"draw": {"cards": ["AS"]}}]},
         "steps.0.draw: cards: a count on a shoe without recognition"),
        (CardShufflerSimulator, {}, {"steps": [{"idle": 1}, {"mode": "continuous"}]},
         "steps.1.mode: one of ['batch'] expected, found 'continuous'"),
        (CardShufflerSimulator, {}, {"steps": [{"tamper": {"code": 9}}]},
         "steps.0.tamper: code: one of the profile's tamper codes (1, 2)"),
    ],
)  # fmt: skip
def test_simulator_refuses_what_its_model_cannot_play(
    simulator: type, quirks: dict, scenario: dict, message: str
) -> None:
    family = simulator.FAMILY
    with pytest.raises(ScenarioError, match=r"^scenario |^identity") as caught:
        simulator(profile(family, **quirks), simulator.SCENARIO.model_validate(scenario))
    assert message in str(caught.value), caught.value


def test_profiles_that_do_not_fit_are_refused() -> None:
    with pytest.raises(ValueError, match=r"quirks\.checksum: one of crc16-ccitt, xor8"):
        CardReaderSimulator(profile("card_reader", checksum="crc32"))
    with pytest.raises(ValueError, match=r"quirks\.max_resends: an integer >= 0"):
        CardReaderSimulator(profile("card_reader", max_resends=-1))
    with pytest.raises(ValueError, match=r"quirks\.exposes_value: true or false"):
        CardReaderSimulator(profile("card_reader", exposes_value="yes"))
    with pytest.raises(ValueError, match="family card_reader expected, found dealing_shoe"):
        CardReaderSimulator(profile("dealing_shoe"))
    with pytest.raises(ValueError, match="a ReaderScenario expected"):
        CardReaderSimulator(profile("card_reader"), ShoeScenario())  # type: ignore[arg-type]
    for family, simulator in [("card_reader", CardReaderSimulator),
                              ("dealing_shoe", DealingShoeSimulator),
                              ("card_shuffler", CardShufflerSimulator)]:  # fmt: skip
        assert load_simulator(profile(family)) is simulator


@pytest.mark.parametrize(
    ("name", "profile_name"),
    [
        ("reader-normal", "ref-card-reader"),
        ("reader-faults", "ref-card-reader-xv"),
        ("shoe-normal", "ref-shoe-manual"),
        ("shoe-normal", "ref-shoe-recognition"),
        ("shoe-double", "ref-shoe-double"),
        ("shoe-faults", "ref-shoe-recognition"),
        ("shuffler-normal", "ref-shuffler-batch"),
        ("shuffler-faults", "ref-shuffler-batch"),
        ("shuffler-continuous", "ref-shuffler-csm"),
    ],
)
def test_example_scenarios_load_and_fit_the_reference_profiles(
    name: str, profile_name: str
) -> None:
    device_profile = load_profile(profile_name)
    simulator = load_simulator(device_profile)
    scenario = simulator.load_scenario(SCENARIOS / f"{name}.yaml")
    assert scenario.steps
    simulator(device_profile, scenario)


@pytest.mark.parametrize(
    ("model", "text", "key", "found"),
    [
        (ReaderScenario, "identity: {serial: A}\n", "identity.firmware", "nothing"),
        (ReaderScenario, "steps:\n  - peek: {blackjack: true, card: 1H}\n",
         "steps.0.peek.card", "'1H'"),
        (ReaderScenario, "steps:\n  - peek: {blackjack: 'Y'}\n", "steps.0.peek.blackjack", "'Y'"),
        (ReaderScenario, "steps:\n  - self_test: {passed: true, code: 3}\n",
         "steps.0.self_test", "found 3"),
        (ReaderScenario, "steps:\n  - draw: {count: 1}\n", "steps.0.draw", "found {'count': 1}"),
        (ShoeScenario, "steps:\n  - draw: {count: 2, cards: [AS]}\n", "steps.0.draw", "both"),
        (ShoeScenario, "steps:\n  - load: {side: X}\n", "steps.0.load.side", "'X'"),
        (ShoeScenario, "steps:\n  - {idle: 1, empty: {}}\n", "steps.0", "['idle', 'empty']"),
        (ShufflerScenario, "steps:\n  - door: ajar\n", "steps.0.door", "'ajar'"),
        (ShufflerScenario, "steps:\n  - shuffle: {batch: 'a|b', cards: 5}\n",
         "steps.0.shuffle.batch", "'a|b'"),
        (ShufflerScenario, "loop: true\nsteps:\n  - door: open\n", "loop", "found none"),
        (ShufflerScenario, "colour: red\n", "colour", "'red'"),
    ],
)  # fmt: skip
def test_scenario_errors_name_file_key_and_what_was_found(
    tmp_path: Path, model: type, text: str, key: str, found: str
) -> None:
    path = tmp_path / "wrong.yaml"
    path.write_text(text, encoding="utf-8")
    simulator = {ReaderScenario: CardReaderSimulator, ShoeScenario: DealingShoeSimulator,
                 ShufflerScenario: CardShufflerSimulator}[model]  # fmt: skip
    with pytest.raises(ScenarioError) as caught:
        simulator.load_scenario(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: {key}"), message
    assert found in message, message


def test_missing_scenario_file(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="not found"):
        CardReaderSimulator.load_scenario(tmp_path / "absent.yaml")
