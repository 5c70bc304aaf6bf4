"""Scenario files for the wheel simulators: what a simulated wheel does, step by step.

A scenario is a YAML file a test, a demo or an engineer writes to make a simulated wheel
behave in a given way (fair spins, a same-direction void, a motor fault, a cut frame).
Loading is strict, like profiles and configs: an unknown key, a wrong type or a number the
wheel cannot produce is an error naming the file, the key, what was expected and what was
found, because a scenario that silently does something else makes a test lie.

File form::

    pockets: 37            # 37 (single zero) or 38 (double zero)
    mode: 1158             # the wheel's mode bits (128: automatic status frames)
    power_on_quiet: 0      # seconds the wheel sends nothing after start
    loop: false            # run the steps again and again
    seed: 0                # the random generator's seed (numbers, speeds, cut points)
    steps:
      - idle: 2                          # state 6 for 2 s
      - spin: {number: "17", direction: cw}
      - spin: {warn: same_direction, respin_number: "5"}
      - fault: {code: 5}
      - raw: "00;0"                      # a line sent verbatim, then CR LF
      - cut: true                        # a status frame cut short, its tail, a fresh frame
      - silence: 3                       # nothing sent, input ignored
      - disconnect: 2                    # the link drops for 2 s

YAML reads an unquoted `00` as the integer 0, so numbers must be quoted strings: the
strict string check turns that trap into an error instead of a wrong result.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictStr,
    model_validator,
)

from floord.profiles import load_strict_yaml

# The vendor's self-test fault codes (see the reference): a scenario may raise only these.
FAULT_CODES: frozenset[int] = frozenset({1, 2, 3, 4, 5, 6, 7, 8, 11, 12, 13, 21, 22, 23, 100})
DEFAULT_MODE = 1158  # as seen in the field: 1024 | 128 (automatic status) | 4 | 2
MAX_DURATION_S = 86_400.0
STEP_KINDS: tuple[str, ...] = (
    "idle",
    "spin",
    "fault",
    "raw",
    "cut",
    "silence",
    "disconnect",
    "power_cycle",
)

WarnKind = Literal["same_direction", "failed_launch", "ball_not_detected"]


class ScenarioError(ValueError):
    """A scenario that cannot be used; the message names the file, key, expected and found."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def pocket_labels(pockets: int) -> tuple[str, ...]:
    """The numbers a wheel with `pockets` pockets can produce, as the wheel writes them."""
    labels = tuple(str(n) for n in range(37))
    return (*labels, "00") if pockets == 38 else labels


class SpinSpec(_Strict):
    """One game. A null number is drawn uniformly over the wheel's pockets."""

    number: StrictStr | None = None
    direction: Literal["cw", "ccw"] | None = None
    # The rotor's speed this game (rpm); null: drawn in the wheel's usual range. A rotor
    # far off its usual speed is what the spin physics envelope test looks for.
    rpm: float | None = Field(default=None, ge=0.1, le=99.9, strict=True)
    warn: WarnKind | None = None
    warn_for: float | None = Field(default=None, gt=0, le=MAX_DURATION_S, strict=True)
    respin_number: StrictStr | None = None

    @model_validator(mode="after")
    def _respin_only_after_a_void(self) -> SpinSpec:
        if self.respin_number is not None and self.warn != "same_direction":
            raise ValueError(
                "respin_number: only with warn: same_direction (the one warning a host "
                f"voids with *R), found warn {self.warn!r}"
            )
        if self.warn_for is not None and self.warn is None:
            raise ValueError("warn_for: only with a warn, found warn None")
        return self


class FaultSpec(_Strict):
    """A component fault. `permanent` powers the wheel down until the host sends `*P 1`."""

    code: int = Field(strict=True)
    permanent: StrictBool = False

    @model_validator(mode="after")
    def _known_code(self) -> FaultSpec:
        if self.code not in FAULT_CODES:
            known = ", ".join(str(c) for c in sorted(FAULT_CODES))
            raise ValueError(f"code: one of {known} expected, found {self.code}")
        return self


class Step(_Strict):
    """One step: exactly one of the keys below is present."""

    idle: float | None = Field(default=None, ge=0, le=MAX_DURATION_S, strict=True)
    spin: SpinSpec | None = None
    fault: FaultSpec | None = None
    raw: StrictStr | None = Field(default=None, min_length=1, max_length=64)
    cut: Literal[True] | None = None
    silence: float | None = Field(default=None, gt=0, le=MAX_DURATION_S, strict=True)
    disconnect: float | None = Field(default=None, gt=0, le=MAX_DURATION_S, strict=True)
    # Maintenance switches the wheel off for this long and on again: silent while off,
    # then back with its faults cleared (the way a fault is cleared on a real wheel).
    power_cycle: float | None = Field(default=None, gt=0, le=MAX_DURATION_S, strict=True)

    @model_validator(mode="before")
    @classmethod
    def _bare_spin_is_random(cls, data: Any) -> Any:
        # `- spin:` (null) reads as a random fair spin, the same as `- spin: {}`.
        if isinstance(data, dict) and "spin" in data and data["spin"] is None:
            return {**data, "spin": {}}
        return data

    @model_validator(mode="after")
    def _exactly_one(self) -> Step:
        present = [k for k in STEP_KINDS if getattr(self, k) is not None]
        if len(present) != 1:
            raise ValueError(
                f"exactly one of {', '.join(STEP_KINDS)} expected, found {present or 'none'}"
            )
        if self.raw is not None and not all(" " <= ch <= "~" for ch in self.raw):
            raise ValueError(f"raw: printable ASCII without CR/LF expected, found {self.raw!r}")
        return self

    @property
    def kind(self) -> str:
        return next(k for k in STEP_KINDS if getattr(self, k) is not None)


class Scenario(_Strict):
    """A whole scenario. No steps at all means random fair spins for ever."""

    pockets: Literal[37, 38] = 37
    mode: int = Field(default=DEFAULT_MODE, ge=0, le=65535, strict=True)
    power_on_quiet: float = Field(default=0.0, ge=0, le=MAX_DURATION_S, strict=True)
    loop: StrictBool = False
    seed: int = Field(default=0, strict=True)
    steps: list[Step] = Field(default_factory=list)

    @model_validator(mode="after")
    def _numbers_fit_the_wheel(self) -> Scenario:
        allowed = pocket_labels(self.pockets)
        for index, step in enumerate(self.steps):
            if step.spin is None:
                continue
            for key in ("number", "respin_number"):
                value = getattr(step.spin, key)
                if value is not None and value not in allowed:
                    raise ValueError(
                        f"steps.{index}.spin.{key}: one of 0..36"
                        f"{' or 00' if self.pockets == 38 else ''} for a {self.pockets}-pocket"
                        f" wheel expected, found {value!r}"
                    )
        return self

    @classmethod
    def fair(cls, *, pockets: Literal[37, 38] = 37, seed: int = 0) -> Scenario:
        """Random fair spins for ever: what a simulator does without a scenario file."""
        return cls(pockets=pockets, seed=seed, loop=True, steps=[Step(spin=SpinSpec())])


def load_scenario(path: str | Path) -> Scenario:
    """Read and validate a scenario file; raise `ScenarioError` naming file, key and fault."""
    path = Path(path)
    if not path.is_file():
        raise ScenarioError(f"{path}: scenario file not found")
    return load_strict_yaml(path, Scenario, ScenarioError)
