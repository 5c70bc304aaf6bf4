"""A simulated roulette wheel sensor kit on a manual wheel, speaking
`docs/protocols/wheel-sensor.md` over FLF/1.

A spin is `ROT|<direction>|<rpm x10>`, `BAL|<direction>`, `REV|<n>` after each lap of the
ball on the track, `NMB` as it slows, then `OBJ` (an object entered the wheel), `OFF`
(the ball left it) or the rest, `POC|<pocket>`. The kit says which wheel it is fitted to
in `IDN` (`single_zero` or `double_zero`, the scenario's `pockets`).

Choices where the page is silent: the spin's `seconds` are spread evenly over its
revolutions; `TST` is answered with `TSR`: a failure naming the latest uncleared fault,
else a pass. The kit does not judge a spin: a same-direction launch or a short one is
reported as it happened.
"""

from __future__ import annotations

import random

from floord.events import Simulator
from simulators.flf1.card_device import Action, CardDevice, DeviceState, Send, Wait
from simulators.flf1.wheel_sensor_scenarios import Spin, WheelSensorScenario, WheelSensorStep

FAULTS: dict[int, str] = {
    10: "hardware fault",
    60: "rotor sensor failed",
    61: "ball track sensor failed",
    62: "pocket sensor failed",
    90: "link: frame not acknowledged",
}
TAMPERS: dict[int, str] = {1: "case opened", 2: "cable cut", 3: "magnet near the wheel"}
WHEEL_WORDS = {37: "single_zero", 38: "double_zero"}


def spin_actions(spin: Spin) -> list[Action]:
    """The frames (and pauses) of one spin, in order."""
    actions: list[Action] = [
        Send("ROT", (spin.rotor, str(round(spin.rpm * 10)))),
        Send("BAL", (spin.ball,) if spin.release is None else (spin.ball, spin.release)),
    ]
    pause = spin.seconds / spin.revolutions if spin.revolutions else 0.0
    for n in range(1, spin.revolutions + 1):
        if pause:
            actions.append(Wait(pause))
        actions.append(Send("REV", (str(n),)))
    if spin.no_more_bets:
        actions.append(Send("NMB", ()))
    if spin.object:
        actions.append(Send("OBJ", ()))
    # The scenario model makes `off` and `pocket` exclusive: the ball leaves or rests.
    if spin.pocket is None:
        actions.append(Send("OFF", ()))
    else:
        actions.append(Send("POC", (spin.pocket,)))
    return actions


class WheelSensorSimulator(CardDevice):
    """The kit: rotor, ball, revolutions, no more bets, the rest, the ball off, an object."""

    FAMILY = "roulette_wheel"
    SCENARIO = WheelSensorScenario
    DEFAULT_IDENTITY = ("WS-000531", "1.0.0")
    FAULTS = FAULTS
    TAMPERS = TAMPERS
    scenario: WheelSensorScenario  # the base class checks it is a SCENARIO

    def capability_words(self) -> list[str]:
        return []  # the wheel word is the scenario's: see `identity_fields`

    def identity_fields(self) -> tuple[str, ...]:
        maker, model, serial, firmware, _words = super().identity_fields()
        return (maker, model, serial, firmware, WHEEL_WORDS[self.scenario.pockets])

    def new_state(self) -> DeviceState:
        return DeviceState()

    def family_problem(self, step: WheelSensorStep) -> str | None:
        spin = step.spin
        if spin is not None and spin.pocket == "00" and self.scenario.pockets != 38:
            return "pocket: 00 is not a pocket of a single-zero wheel (pockets: 37)"
        if spin is not None and spin.release == "00" and self.scenario.pockets != 38:
            return "release: 00 is not a pocket of a single-zero wheel (pockets: 37)"
        return None

    def family_plan(
        self, step: WheelSensorStep, state: DeviceState, rng: random.Random
    ) -> list[Action]:
        if step.spin is None:
            raise ValueError(f"not a wheel sensor step: {step.kind}")
        return spin_actions(step.spin)


SIMULATOR: type[Simulator] = WheelSensorSimulator  # mypy checks it is a Simulator
