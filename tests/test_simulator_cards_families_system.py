"""Each card device family's messages, heard through a real pty.

Every message type of the reader, the three shoes and the two shufflers comes from its
scenario steps, with a good checksum under both algorithms and a SEQ one up from the
frame before. The host parses with its own code (`card_sim_support`). The scenario files
are checked in `test_simulator_cards_families.py`.
"""

from __future__ import annotations

import asyncio

import pytest
from card_sim_support import HANG_S, assert_sequence_increases, on_pty, profile

from simulators.flf1.card_reader import CardReaderSimulator
from simulators.flf1.card_scenarios import ReaderScenario, ShoeScenario, ShufflerScenario
from simulators.flf1.card_shuffler import CardShufflerSimulator
from simulators.flf1.dealing_shoe import DECK, DealingShoeSimulator

pytestmark = pytest.mark.system


SPEED = 10.0

ALGORITHMS = ["crc16-ccitt", "xor8"]


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
        {"empty": {}}, {"out_of_order": {"code": 30}}, {"out_of_order": {"code": 0}},
        {"fault": {"code": 32}}, {"tamper": {"code": 1}}, {"idle": 5},
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
        ("OOO", "30", "card jam at the exit"), ("OOO", "0", "back in service"),
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
