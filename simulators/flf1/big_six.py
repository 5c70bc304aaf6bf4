"""A simulated Big Six wheel sensor, speaking `docs/protocols/big-six.md` over FLF/1.

A spin is `SPN|<direction>`, then every section passing the clapper (`SEC|<index>`, when
the model has the `sections` capability, or three `ANG|<tenths>` readings of the rim's
angle per section passed, when it has `angle`), `REV|<n>` after each full turn, and the
rest: `RST|<index>`, or `DIV|<left>|<right>` when the clapper stops on a divider. The
wheel remembers where it stopped, so the next spin starts from there.

Choices where the page is silent: the first spin after power-on starts with the joker
(section 0) under the clapper; a clockwise spin brings the sections to the clapper in
decreasing index order (the wheel turns clockwise, so the section anticlockwise of the
clapper arrives next), an anticlockwise one in increasing order. A full turn is 54
section passes from the start; `REV` follows the pass that completes it. The spin's
`seconds` are spread evenly over its passes. `TST` is answered with `TSR`: a failure
naming the latest uncleared fault, else a pass.

The rim's angle is where the clapper is on the rim, clockwise from the joker's centre,
in tenths of a degree (section i is centred on i x 3600/54); a wheel at rest in a
section sits on its centre. The readings of a pass are taken a third, two thirds and
all of the way from the last section's centre to the next one's, rounded to the
nearest tenth (half up), so the last reading of a spin is the centre of the rest
section. A spin's `rim_offset` adds that many sections to every reading (a misaligned
encoder). A model with both `sections` and `angle` is refused: a wheel has one or the
other.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from floord.events import Simulator
from simulators.flf1.big_six_scenarios import SECTIONS, BigSixScenario, BigSixStep, Spin
from simulators.flf1.card_device import Action, CardDevice, DeviceState, Send, Wait, quirk_flag

FAULTS: dict[int, str] = {
    10: "hardware fault",
    50: "clapper sensor failed",
    51: "rim sensor failed",
    52: "index sensor failed",
    90: "link: frame not acknowledged",
}
TAMPERS: dict[int, str] = {1: "case opened", 2: "cable cut", 3: "magnet near the clapper"}


ANGLES = 3600  # tenths of a degree in a turn
READINGS_PER_PASS = 3


def rim_angle(thirds: int) -> int:
    """The angle, in whole tenths (half up), `thirds` thirds of a section clockwise of the
    joker's centre: round(thirds x 3600 / (54 x 3)) mod 3600."""
    return (
        (thirds * 2 * ANGLES + SECTIONS * READINGS_PER_PASS)
        // (2 * SECTIONS * READINGS_PER_PASS)
        % ANGLES
    )


def pass_angles(section: int, step: int, offset: int) -> list[int]:
    """The readings while `section` comes to the clapper from its neighbour, `step`
    (-1 for a clockwise turn, +1 anticlockwise) being the way the index runs."""
    centre = READINGS_PER_PASS * (section + offset)
    return [
        rim_angle(centre - step * (READINGS_PER_PASS - k)) for k in range(1, READINGS_PER_PASS + 1)
    ]


@dataclass
class WheelState(DeviceState):
    position: int = 0  # the section under the clapper


def spin_passes(start: int, spin: Spin) -> list[int]:
    """The sections passing the clapper, in order, from `start` to the stop."""
    step = -1 if spin.direction == "cw" else 1
    distance = ((spin.section - start) * step) % SECTIONS
    return [
        (start + step * (n + 1)) % SECTIONS for n in range(SECTIONS * spin.revolutions + distance)
    ]


class BigSixSimulator(CardDevice):
    """The wheel: spins, sections passing, revolutions, the clapper's rest."""

    FAMILY = "big_six_wheel"
    SCENARIO = BigSixScenario
    DEFAULT_IDENTITY = ("B6-000054", "1.0.0")
    FAULTS = FAULTS
    TAMPERS = TAMPERS

    def capability_words(self) -> list[str]:
        sections = quirk_flag(self.profile, "sections")
        angle = quirk_flag(self.profile, "angle")
        if sections and angle:
            raise ValueError(
                f"profile {self.profile.model}: quirks.sections and quirks.angle "
                "are both true; a wheel has one or the other"
            )
        return ["clapper", *(["sections"] if sections else []), *(["angle"] if angle else [])]

    def family_problem(self, step: BigSixStep) -> str | None:
        if step.spin is not None and step.spin.rim_offset and "angle" not in self.capabilities:
            return "rim_offset: only a model with the angle capability reads the rim's angle"
        return None

    def new_state(self) -> WheelState:
        return WheelState()

    def family_plan(self, step: BigSixStep, state: WheelState, rng: random.Random) -> list[Action]:
        spin = step.spin
        if spin is None:
            raise ValueError(f"not a Big Six step: {step.kind}")
        passes = spin_passes(state.position, spin)
        pause = spin.seconds / len(passes) if passes else 0.0
        actions: list[Action] = [Send("SPN", (spin.direction,))]
        reports = "sections" in self.capabilities
        reads = "angle" in self.capabilities
        step_of_index = -1 if spin.direction == "cw" else 1
        for n, section in enumerate(passes, start=1):
            if pause:
                actions.append(Wait(pause))
            if reports:
                actions.append(Send("SEC", (str(section),)))
            if reads:
                angles = pass_angles(section, step_of_index, spin.rim_offset)
                actions.extend(Send("ANG", (str(angle),)) for angle in angles)
            if n % SECTIONS == 0:
                actions.append(Send("REV", (str(n // SECTIONS),)))
        state.position = spin.section
        if spin.between:
            actions.append(Send("DIV", (str(spin.section), str((spin.section + 1) % SECTIONS))))
        else:
            actions.append(Send("RST", (str(spin.section),)))
        return actions


SIMULATOR: type[Simulator] = BigSixSimulator  # mypy checks it is a Simulator
