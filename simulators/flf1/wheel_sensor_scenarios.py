"""Scenario steps of the simulated roulette wheel sensor kit (`simulators/flf1/wheel_sensor.py`).

Besides the steps every FLF/1 device has (`card_scenarios.CardStep`: idle, fault, clear,
tamper, silence, disconnect, drop_acks, garble, raw), a wheel sensor scenario names the
wheel the kit is fitted to and spins it::

    pockets: 38                # 37 (single zero) or 38 (double zero); default 37
    steps:
      - spin: {rotor: cw, rpm: 17.2, ball: ccw, revolutions: 8, pocket: "17", seconds: 2.0}
      - spin: {rotor: cw, ball: cw, revolutions: 5, pocket: "3"}     # same direction
      - spin: {ball: ccw, revolutions: 2, pocket: "00"}              # under four revolutions
      - spin: {ball: ccw, revolutions: 6, off: true}                 # the ball leaves the wheel
      - spin: {ball: ccw, revolutions: 6, object: true, pocket: "5"} # an object in the wheel
      - spin: {ball: ccw, revolutions: 8, release: "26", pocket: "0"} # BAL names the release

A spin is `ROT`, `BAL`, `REV|1` ... `REV|<revolutions>`, `NMB` (unless
`no_more_bets: false`), then `OBJ` if `object`, then `OFF` if `off` (and no pocket: the
ball is gone), else `POC|<pocket>`.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, model_validator

from simulators.flf1.card_scenarios import CardScenario, CardStep

Pocket = Annotated[str, Field(pattern=r"^(0|00|[1-9]|[12][0-9]|3[0-6])$", strict=True)]


class Spin(BaseModel):
    """One spin of a manual wheel as the kit sees it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    rotor: Literal["cw", "ccw"] = "cw"
    rpm: Annotated[float, Field(ge=0.1, le=99.9, strict=True)] = 17.2
    ball: Literal["cw", "ccw"] = "ccw"
    revolutions: Annotated[int, Field(ge=0, le=60, strict=True)] = 8
    no_more_bets: StrictBool = True
    pocket: Pocket | None = None
    # The pocket of the rotor under the dealer's hand as the ball leaves it (a kit with
    # a rotor encoder reports it in `BAL`, for the dealer signature test).
    release: Pocket | None = None
    off: StrictBool = False
    object: StrictBool = False
    seconds: Annotated[float, Field(ge=0, le=600, strict=True)] = 1.0

    @model_validator(mode="after")
    def _one_ending(self) -> Spin:
        if self.off and self.pocket is not None:
            raise ValueError("pocket: none expected when off is true (the ball left the wheel)")
        if not self.off and self.pocket is None:
            raise ValueError("pocket expected (or off: true)")
        return self


class WheelSensorStep(CardStep):
    spin: Spin | None = None

    def seconds(self) -> float:
        return super().seconds() + (self.spin.seconds if self.spin is not None else 0.0)


class WheelSensorScenario(CardScenario):
    pockets: Literal[37, 38] = 37
    steps: list[WheelSensorStep] = Field(default_factory=list)
