"""A simulated automated card shuffler (batch or continuous), speaking `card-shuffler.md`.

A batch shuffler (58 Pa. Code § 549.3(d)) shuffles a named batch (`SHS`), counts it
(`SHC`) and offers it (`BRD`) until it is taken for the shoe (`BRM`); a continuous one
(§ 549.15) says so with `MOD|C`. Capabilities in `IDN` come from the profile's quirks:
`continuous` with `quirks.continuous: true`, `batch` otherwise (the page has a batch
shuffler *or* a continuous one; `quirks.batch: true` makes a model that does both), and
`counting` unless `quirks.counting: false` (every shuffler on the pages counts).

Choices where the page is silent: the device starts in batch mode when it can, in
continuous mode otherwise; a `mode` step to a mode the model lacks is refused when the
simulator is built. `OOO` code 0 means back in service (text "back in service" unless
given). `TST` is answered with `TSR`: a failure naming the latest uncleared fault, else a pass.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from floord.events import Simulator
from simulators.flf1.card_device import Action, CardDevice, DeviceState, Send, Wait
from simulators.flf1.card_scenarios import ShufflerScenario, ShufflerStep

FAULTS: dict[int, str] = {
    10: "hardware fault",
    40: "card jam",
    41: "motor failed",
    42: "elevator failed",
    43: "count sensor failed",
    90: "link: frame not acknowledged",
}
TAMPERS: dict[int, str] = {1: "door forced", 2: "cable cut"}
IN_SERVICE = "back in service"


@dataclass
class ShufflerState(DeviceState):
    continuous: bool = False


def _flag(profile_quirks: dict[str, object], key: str, default: bool, model: str) -> bool:
    value = profile_quirks.get(key, default)
    if not isinstance(value, bool):
        raise ValueError(f"profile {model}: quirks.{key}: true or false expected, found {value!r}")
    return value


class CardShufflerSimulator(CardDevice):
    """The shuffler: shuffles, batches, jams, its door, service and mode."""

    FAMILY = "card_shuffler"
    SCENARIO = ShufflerScenario
    DEFAULT_IDENTITY = ("AS-000777", "3.2.0")
    FAULTS = FAULTS
    TAMPERS = TAMPERS

    def capability_words(self) -> list[str]:
        quirks, model = self.profile.quirks, self.profile.model
        continuous = _flag(quirks, "continuous", False, model)
        words = [
            ("batch", _flag(quirks, "batch", not continuous, model)),
            ("continuous", continuous),
            ("counting", _flag(quirks, "counting", True, model)),
        ]
        chosen = [word for word, present in words if present]
        if "batch" not in chosen and "continuous" not in chosen:
            raise ValueError(
                f"profile {model}: quirks: a batch or a continuous shuffler expected, found neither"
            )
        return chosen

    def new_state(self) -> ShufflerState:
        return ShufflerState(continuous="batch" not in self.capabilities)

    def family_problem(self, step: ShufflerStep) -> str | None:
        if step.mode is not None and step.mode not in self.capabilities:
            modes = [word for word in self.capabilities if word != "counting"]
            return f"one of {modes} expected, found {step.mode!r}"
        if step.jam is not None:
            return self.code_problem(step.jam.code, self.faults, "fault")
        if step.out_of_order is not None and step.out_of_order.code != 0:
            return self.code_problem(step.out_of_order.code, self.faults, "fault")
        return None

    def family_plan(
        self, step: ShufflerStep, state: ShufflerState, rng: random.Random
    ) -> list[Action]:
        if step.shuffle is not None:
            batch, cards = step.shuffle.batch, str(step.shuffle.cards)
            return [
                Send("SHS", (batch,)),
                Wait(step.shuffle.seconds),
                Send("SHC", (batch, cards)),
                Send("BRD", (batch, cards)),
            ]
        if step.remove is not None:
            return [Send("BRM", (step.remove.batch,))]
        if step.jam is not None:
            text = step.jam.text or self.faults[step.jam.code]
            return [Send("JAM", (step.jam.batch, str(step.jam.code), text))]
        if step.door is not None:
            return [Send("DOR", ("O" if step.door == "open" else "C",))]
        if step.out_of_order is not None:
            code = step.out_of_order.code
            text = step.out_of_order.text or (self.faults[code] if code else IN_SERVICE)
            return [Send("OOO", (str(code), text))]
        if step.mode is not None:
            state.continuous = step.mode == "continuous"
            return [Send("MOD", ("C" if state.continuous else "B",))]
        raise ValueError(f"not a card shuffler step: {step.kind}")


SIMULATOR: type[Simulator] = CardShufflerSimulator  # mypy checks it is a Simulator
