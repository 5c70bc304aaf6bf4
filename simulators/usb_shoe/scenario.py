"""The scenario file a simulated USB shoe plays, read strictly.

The hardware-in-the-loop rig port `usb://sim:<scenario-file>` of `floord/transport/usb.py`
(docs/protocols/usb-wedge-shoe.md) plays a small YAML file, so a rig engineer scripts
the shoe without writing Python::

    profile: ref-usb-shoe        # the device profile whose ids and card codes to use
    serial_number: SIM-0001      # optional; null for a shoe without one
    interval_s: 0.3              # between two cards of a `draw` (the default)
    steps:
      - wait: 2.5                # seconds before the next line is typed
      - draw: [AS, KH, 9D]       # cards, typed as the profile's codes
      - type: "ZZ"               # a line typed as is (an unknown code, say)

A file that cannot be played as written is a `ScenarioError`, one line.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, model_validator

from floord.profiles import DeviceProfile
from simulators.usb_shoe.keyboard import Typed, card_script


class ScenarioError(ValueError):
    """A USB shoe scenario file that cannot be played as written."""


class _Step(BaseModel):
    """One step: exactly one of `wait` (seconds), `draw` (cards) or `type` (a line)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    wait: Annotated[float, Field(gt=0, le=86_400)] | None = None
    draw: Annotated[list[str], Field(min_length=1)] | None = None  # cards: "AS", "TH"
    type: Annotated[str, Field(min_length=1, max_length=64)] | None = None

    @model_validator(mode="after")
    def _one(self) -> _Step:
        if sum(v is not None for v in (self.wait, self.draw, self.type)) != 1:
            raise ValueError("exactly one of wait, draw or type expected")
        return self


class UsbShoeScenario(BaseModel):
    """The scenario file of `scenario_backend` (see the module docstring)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    profile: Annotated[str, Field(min_length=1, max_length=64)]
    serial_number: Annotated[str, Field(min_length=1, max_length=64)] | None = "SIM-0001"
    interval_s: Annotated[float, Field(gt=0, le=3600)] = 0.3
    steps: list[_Step] = Field(default_factory=list)


def scenario_script(profile: DeviceProfile, scenario: UsbShoeScenario) -> list[Typed]:
    """The typed lines of a scenario; a `wait` delays the line after it."""
    script: list[Typed] = []
    delay = 0.0
    for step in scenario.steps:
        if step.wait is not None:
            delay += step.wait
            continue
        lines = (
            card_script(profile, step.draw, scenario.interval_s)
            if step.draw is not None
            else [Typed(str(step.type), 0.0)]
        )
        first = lines[0]
        script += [Typed(first.text, first.after_s + delay), *lines[1:]]
        delay = 0.0
    return script
