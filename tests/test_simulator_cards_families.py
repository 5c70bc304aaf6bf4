"""Each card device family's messages, heard through a real pty, and its scenario files.

Every message type of the reader, the three shoes and the two shufflers comes from its
scenario steps, with a good checksum under both algorithms and a SEQ one up from the
frame before. The scenario files and the simulators refuse what they cannot play, naming
the file (or step) and key. The host parses with its own code (`card_sim_support`).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from card_sim_support import HANG_S, assert_sequence_increases, on_pty, profile

from floord.profiles import load_profile
from simulators.flf1.card_reader import CardReaderSimulator
from simulators.flf1.card_scenarios import ReaderScenario, ShoeScenario, ShufflerScenario
from simulators.flf1.card_shuffler import CardShufflerSimulator
from simulators.flf1.dealing_shoe import DECK, DealingShoeSimulator
from simulators.run import load_simulator
from simulators.scenario import ScenarioError

pytestmark = pytest.mark.system

SPEED = 10.0
ALGORITHMS = ["crc16-ccitt", "xor8"]
SCENARIOS = Path(__file__).resolve().parent.parent / "simulators" / "scenarios"


def play(simulator: object, algorithm: str, then_test: bool = False) -> list[tuple[str, ...]]:
    """Run a scenario to its end; the messages the host heard (a TST sent near the end)."""
    heard: list[tuple[str, ...]] = []

    async def body() -> None:
        async with on_pty(simulator, algorithm=algorithm) as (host, task):
            if then_test:
                await host.wait_for(lambda f: f.kind == "TMP")
                host.send("TST")
            await asyncio.wait_for(task, HANG_S)
            assert all(f.good for f in host.frames) and host.junk == []
            assert_sequence_increases(host.distinct())
            heard.extend(host.messages())

    asyncio.run(body())
    return heard


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_reader_messages(algorithm: str) -> None:
    steps = [
        {"peek": {"blackjack": False, "card": "9H"}}, {"peek": {"blackjack": True}},
        {"self_test": {"passed": False, "code": 12}}, {"fault": {"code": 11}},
        {"clear": {"code": 11}}, {"tamper": {"code": 3}}, {"idle": 5},
    ]  # fmt: skip
    sim = CardReaderSimulator(
        profile("card_reader", checksum=algorithm, exposes_value=True),
        ReaderScenario.model_validate({"steps": steps}), speed=SPEED,
    )  # fmt: skip
    heard = play(sim, algorithm, then_test=True)
    assert heard == [
        ("IDN", "floord reference", "test-card-reader", "CR-000123", "1.4.2", "exposes_value"),
        ("TSR", "P", "0", "ok"),
        ("PEK", "N", "9H"),
        ("PEK", "Y"),
        ("TSR", "F", "12", "optical sensor dirty"),
        ("FLT", "11", "optical sensor failed"),
        ("FLC", "11"),
        ("TMP", "3", "magnet or foreign object"),
        ("TSR", "F", "12", "optical sensor dirty"),  # the answer to TST: the latest result
    ]


def test_reader_power_on_self_test_from_the_first_step_and_tst_during_a_fault() -> None:
    steps = [{"self_test": {"passed": False, "code": 20, "text": "display dark"}},
             {"fault": {"code": 10}}, {"tamper": {"code": 2}}, {"idle": 5}]  # fmt: skip
    sim = CardReaderSimulator(
        profile("card_reader"), ReaderScenario.model_validate({"steps": steps}), speed=SPEED
    )
    heard = play(sim, "crc16-ccitt", then_test=True)
    assert [m for m in heard if m[0] == "TSR"] == [
        ("TSR", "F", "20", "display dark"),  # at power-on, once
        ("TSR", "F", "10", "hardware fault"),  # TST while fault 10 stands
    ]
    assert heard[0][-1] == "-"  # no capabilities


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_recognition_shoe_messages(algorithm: str) -> None:
    steps = [
        {"load": {"cards": 312}}, {"draw": {"cards": ["KH", "7D"], "interval": 0.5}},
        {"draw": {"count": 2}}, {"face_up": {"card": "5S"}}, {"cutting_card": {}},
        {"empty": {}}, {"fault": {"code": 32}}, {"tamper": {"code": 1}}, {"idle": 5},
    ]  # fmt: skip
    sim = DealingShoeSimulator(
        profile("dealing_shoe", checksum=algorithm, recognition=True),
        ShoeScenario.model_validate({"seed": 4, "steps": steps}), speed=SPEED,
    )  # fmt: skip
    heard = play(sim, algorithm, then_test=True)
    assert heard[0][-1] == "recognition"
    crd = [m for m in heard if m[0] == "CRD"]
    assert crd[:2] == [("CRD", "-", "1", "KH"), ("CRD", "-", "2", "7D")]
    assert [m[2] for m in crd] == ["1", "2", "3", "4"] and all(m[3] in DECK for m in crd)
    rest = [m for m in heard if m[0] not in ("IDN", "CRD", "ACK")]
    assert rest == [
        ("LOD", "-", "312"), ("FUP", "-", "5S"), ("CUT", "-", "4"), ("EMP", "-"),
        ("FLT", "32", "recognition camera failed"), ("TMP", "1", "shoe lid opened during play"),
        ("TSR", "F", "32", "recognition camera failed"),  # TST: the fault still raised
    ]  # fmt: skip


def test_manual_and_double_shoes() -> None:
    manual = DealingShoeSimulator(
        profile("dealing_shoe"),
        ShoeScenario.model_validate({"steps": [{"load": {}}, {"draw": {"count": 2}}]}),
        speed=SPEED,
    )
    heard = play(manual, "crc16-ccitt")
    assert heard[1:] == [("LOD", "-", "-"), ("CRD", "-", "1", "-"), ("CRD", "-", "2", "-")]
    steps = [
        {"load": {"side": "L", "cards": 52}}, {"load": {"side": "R"}},
        {"draw": {"side": "L", "cards": ["AS"]}}, {"draw": {"side": "R", "cards": ["2C", "3C"]}},
        {"draw": {"side": "L", "cards": ["4D"]}}, {"cutting_card": {"side": "R"}},
        {"face_up": {"side": "L", "card": "TD"}}, {"empty": {"side": "R"}},
    ]  # fmt: skip
    double = DealingShoeSimulator(
        profile("dealing_shoe", recognition=True, double=True, checksum="xor8"),
        ShoeScenario.model_validate({"steps": steps}), speed=SPEED,
    )  # fmt: skip
    heard = play(double, "xor8")
    assert heard[0][-1] == "recognition,double"
    assert heard[1:] == [
        ("LOD", "L", "52"), ("LOD", "R", "-"), ("CRD", "L", "1", "AS"), ("CRD", "R", "1", "2C"),
        ("CRD", "R", "2", "3C"), ("CRD", "L", "2", "4D"), ("CUT", "R", "2"), ("FUP", "L", "TD"),
        ("EMP", "R"),
    ]  # fmt: skip


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_shuffler_messages(algorithm: str) -> None:
    steps = [
        {"shuffle": {"batch": "red", "cards": 312, "seconds": 1}}, {"remove": {"batch": "red"}},
        {"jam": {"batch": "blue", "code": 40}}, {"jam": {"code": 42, "text": "lift stuck"}},
        {"door": "open"}, {"door": "closed"}, {"out_of_order": {"code": 41}},
        {"out_of_order": {"code": 0}}, {"mode": "continuous"}, {"mode": "batch"},
        {"fault": {"code": 10}}, {"tamper": {"code": 1}}, {"idle": 5},
    ]  # fmt: skip
    sim = CardShufflerSimulator(
        profile("card_shuffler", checksum=algorithm, continuous=True, batch=True),
        ShufflerScenario.model_validate({"steps": steps}), speed=SPEED,
    )  # fmt: skip
    heard = play(sim, algorithm, then_test=True)
    assert heard == [
        ("IDN", "floord reference", "test-card-shuffler", "AS-000777", "3.2.0",
         "batch,continuous,counting"),
        ("SHS", "red"), ("SHC", "red", "312"), ("BRD", "red", "312"), ("BRM", "red"),
        ("JAM", "blue", "40", "card jam"), ("JAM", "-", "42", "lift stuck"),
        ("DOR", "O"), ("DOR", "C"), ("OOO", "41", "motor failed"), ("OOO", "0", "back in service"),
        ("MOD", "C"), ("MOD", "B"), ("FLT", "10", "hardware fault"),
        ("TMP", "1", "door forced"), ("TSR", "F", "10", "hardware fault"),
    ]  # fmt: skip


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
