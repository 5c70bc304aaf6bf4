"""Scenario steps of the simulated Big Six wheel (`simulators/flf1/big_six.py`).

Besides the steps every FLF/1 device has (`card_scenarios.CardStep`: idle, fault, clear,
tamper, silence, disconnect, drop_acks, garble, raw), a Big Six scenario spins the
wheel::

    steps:
      - spin: {direction: cw, revolutions: 4, section: 13, seconds: 2.0}
      - spin: {direction: ccw, revolutions: 3, section: 20, between: true}  # on a divider
      - spin: {revolutions: 2, section: 0}    # too short a spin (58 Pa. Code § 533.2(b))

`section` is where the clapper stops (0, the joker, to 53, clockwise); with
`between: true` it stops on the divider between `section` and the section clockwise of
it. `revolutions` full turns are made first, then the wheel runs on to `section`.

On a model with the `angle` capability (profile `ref-big-six-angle`), `rim_offset: N`
makes the rim encoder misread by N sections (clockwise if positive) for that spin, so
that the rim and the clapper disagree::

      - spin: {revolutions: 3, section: 13, rim_offset: 5}   # the host faults the wheel
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool

from simulators.flf1.card_scenarios import CardScenario, CardStep

SECTIONS = 54


class Spin(BaseModel):
    """One spin: `SPN`, sections passing (`SEC` or `ANG`), revolutions (`REV`), the rest."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    direction: Literal["cw", "ccw"] = "cw"
    revolutions: Annotated[int, Field(ge=0, le=50, strict=True)] = 4
    section: Annotated[int, Field(ge=0, lt=SECTIONS, strict=True)]
    between: StrictBool = False
    seconds: Annotated[float, Field(ge=0, le=600, strict=True)] = 1.0
    rim_offset: Annotated[int, Field(gt=-SECTIONS, lt=SECTIONS, strict=True)] = 0


class BigSixStep(CardStep):
    spin: Spin | None = None

    def seconds(self) -> float:
        return super().seconds() + (self.spin.seconds if self.spin is not None else 0.0)


class BigSixScenario(CardScenario):
    steps: list[BigSixStep] = Field(default_factory=list)
