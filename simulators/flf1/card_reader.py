"""A simulated card reader device (58 Pa. Code § 549.2(e)), speaking `card-reader.md`.

It peeks at the hole card and says Blackjack or not (`PEK`), with the card itself only on
a model whose profile sets `quirks.exposes_value: true`, and reports its self-test
(`TSR`) at power-on and on the host's `TST`.

Choices where the page is silent: the power-on self-test passes unless the scenario's
first step is a `self_test` (that step is then the power-on result, not sent twice). A
`TST` is answered with a failure naming the latest fault raised and not cleared, else
with the latest self-test result (power-on or a `self_test` step).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from floord.events import Simulator
from simulators.flf1.card_device import Action, CardDevice, DeviceState, Reply, Send, quirk_flag
from simulators.flf1.card_scenarios import ReaderScenario, ReaderStep, SelfTest

FAULTS: dict[int, str] = {
    10: "hardware fault",
    11: "optical sensor failed",
    12: "optical sensor dirty",
    13: "card jammed in the reader",
    20: "display failed",
    90: "link: frame not acknowledged",
}
TAMPERS: dict[int, str] = {1: "case opened", 2: "cable cut", 3: "magnet or foreign object"}
PASSED: tuple[str, str, str] = ("P", "0", "ok")


@dataclass
class ReaderState(DeviceState):
    test: tuple[str, str, str] = PASSED  # the latest self-test: P/F, code, text


class CardReaderSimulator(CardDevice):
    """The reader: `PEK` on each peek, `TSR` at power-on and on `TST`."""

    FAMILY = "card_reader"
    SCENARIO = ReaderScenario
    DEFAULT_IDENTITY = ("CR-000123", "1.4.2")
    FAULTS = FAULTS
    TAMPERS = TAMPERS

    def capability_words(self) -> list[str]:
        return ["exposes_value"] if quirk_flag(self.profile, "exposes_value") else []

    def new_state(self) -> ReaderState:
        return ReaderState()

    def family_problem(self, step: ReaderStep) -> str | None:
        card = step.peek.card if step.peek is not None else None
        if card is not None and "exposes_value" not in self.capabilities:
            return f"card: none on a reader without exposes_value expected, found {card!r}"
        if step.self_test is not None and not step.self_test.passed:
            return self.code_problem(step.self_test.code or 0, self.faults, "fault")
        return None

    def _result(self, spec: SelfTest) -> tuple[str, str, str]:
        if spec.passed:
            return ("P", "0", spec.text or "ok")
        code = spec.code or 0
        return ("F", str(code), spec.text or self.faults[code])

    def family_plan(self, step: ReaderStep, state: ReaderState, rng: random.Random) -> list[Action]:
        if step.peek is not None:
            card = (step.peek.card,) if step.peek.card is not None else ()
            return [Send("PEK", ("Y" if step.peek.blackjack else "N", *card))]
        if step.self_test is not None:
            state.test = self._result(step.self_test)
            return [Send("TSR", state.test)]
        raise ValueError(f"not a card reader step: {step.kind}")

    def power_on_plan(self, steps: list[Any], state: ReaderState) -> tuple[list[Action], int]:
        first = steps[0].self_test if steps else None
        state.test = self._result(first) if first is not None else PASSED
        return [Send("TSR", state.test)], 1 if first is not None else 0

    def answer_test(self, state: ReaderState) -> list[Reply]:
        if state.faults:
            code, text = next(reversed(state.faults.items()))
            return [("TSR", ("F", str(code), text))]
        return [("TSR", state.test)]


SIMULATOR: type[Simulator] = CardReaderSimulator  # mypy checks it is a Simulator
