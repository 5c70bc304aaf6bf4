"""Scenario files for the simulated card devices: reader, shoe and shuffler, step by step.

A scenario makes a simulated device behave in a given way (a Blackjack peek, a double
shoe's draws, a jammed shuffler, a link that loses ACKs). Loading is strict like every
floord file: an unknown key, a wrong type or a card that is not a card is an error naming
the file and the key, because a scenario that silently does something else makes a test
lie. Whether the *model* can do a step (a card from a reader without `exposes_value`, a
side on a single shoe, a code outside the profile's table) is checked by the simulator
against its profile when it is built.

File form (the keys of every family, then each family's own)::

    identity: {serial: "CR-000123", firmware: "1.4.2"}   # optional
    power_on_quiet: 0        # seconds the device says nothing after power-on
    loop: false              # play the steps again and again (needs a step that takes time)
    seed: 0                  # random cards for `draw: {count: n}` on a recognition shoe
    steps:
      - idle: 2              # nothing happens (heartbeats flow)
      - fault: {code: 11, text: "optical sensor failed"}   # text defaults to the table's
      - clear: {code: 11}
      - tamper: {code: 1}
      - silence: 3           # nothing sent, not even heartbeats; nothing heard
      - disconnect: 2        # TCP: the client is dropped; pty: the line is dead
      - drop_acks: 2         # ignore the host's next 2 ACKs
      - garble: true         # the next frame once with a wrong checksum, then resent
      - raw: "\\x02junk"      # bytes verbatim (latin-1), nothing added
    # reader:   peek: {blackjack: false, card: "9H"}   self_test: {passed: false, code: 12}
    # shoe:     load: {side: "-", cards: 312}   draw: {cards: [KH, 7D], side: "-", interval: 0.3}
    #           draw: {count: 5}   face_up: {card: 5S}   cutting_card: {}   empty: {}
    #           out_of_order: {code: 30}   (code 0: back in service)
    # shuffler: shuffle: {batch: red, cards: 312, seconds: 20}   remove: {batch: red}
    #           jam: {batch: blue, code: 40}   door: open   out_of_order: {code: 41}
    #           mode: continuous

YAML reads a bare `-` as the start of a list: write the single-shoe side as `"-"` (it is
also the default).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr, model_validator

from floord.profiles import load_strict_yaml
from simulators.scenario import ScenarioError

MAX_DURATION_S = 86_400.0
FIELD_PATTERN = r"^[ -{}~]+$"  # printable ASCII 0x20-0x7E except `|`, not empty

Text = Annotated[StrictStr, Field(min_length=1, max_length=64, pattern=FIELD_PATTERN)]
Word = Annotated[StrictStr, Field(min_length=1, max_length=24, pattern=r"^[!-{}~]+$")]
Card = Annotated[StrictStr, Field(pattern=r"^[A2-9TJQK][SHDC]$")]
Code = Annotated[int, Field(ge=0, le=999, strict=True)]
Seconds = Annotated[float, Field(gt=0, le=MAX_DURATION_S, strict=True)]
Side = Literal["L", "R", "-"]

ScenarioT = TypeVar("ScenarioT", bound="CardScenario")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Identity(_Strict):
    """What the device says in `IDN` besides its profile's maker and model."""

    serial: Word
    firmware: Word


class CodeText(_Strict):
    """A fault or tamper: the text defaults to the code's meaning in the table."""

    code: Code
    text: Text | None = None


class Clear(_Strict):
    code: Code


class CardStep(_Strict):
    """One step of any card device: exactly one key present (each family adds its own)."""

    idle: Annotated[float, Field(ge=0, le=MAX_DURATION_S, strict=True)] | None = None
    fault: CodeText | None = None
    clear: Clear | None = None
    tamper: CodeText | None = None
    silence: Seconds | None = None
    disconnect: Seconds | None = None
    drop_acks: Annotated[int, Field(ge=1, le=1000, strict=True)] | None = None
    garble: Literal[True] | None = None
    raw: Annotated[StrictStr, Field(min_length=1, max_length=256)] | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> CardStep:
        kinds = self.kinds()
        present = [k for k in kinds if getattr(self, k) is not None]
        if len(present) != 1:
            raise ValueError(
                f"exactly one of {', '.join(kinds)} expected, found {present or 'none'}"
            )
        if self.raw is not None and any(ord(ch) > 0xFF for ch in self.raw):
            raise ValueError(f"raw: characters up to \\xff expected, found {self.raw!r}")
        return self

    @classmethod
    def kinds(cls) -> tuple[str, ...]:
        return tuple(name for name in cls.model_fields)

    @property
    def kind(self) -> str:
        return next(k for k in self.kinds() if getattr(self, k) is not None)

    def seconds(self) -> float:
        """Device seconds this step takes by itself (what makes a loop safe to repeat)."""
        waits = (self.idle, self.silence, self.disconnect)
        return sum(w for w in waits if w is not None)


class CardScenario(_Strict):
    """What every family's scenario holds besides its steps."""

    identity: Identity | None = None
    power_on_quiet: Annotated[float, Field(ge=0, le=MAX_DURATION_S, strict=True)] = 0.0
    loop: StrictBool = False
    seed: int = Field(default=0, strict=True)
    steps: list[Any] = Field(default_factory=list)

    @model_validator(mode="after")
    def _loop_takes_time(self) -> CardScenario:
        if self.loop and not sum(step.seconds() for step in self.steps) > 0:
            raise ValueError(
                "loop: true needs steps that take time (idle, silence, disconnect, a draw of "
                "several cards, a shuffle), found none"
            )
        return self


# ----- card reader ---------------------------------------------------------------------


class Peek(_Strict):
    blackjack: StrictBool
    card: Card | None = None


class SelfTest(_Strict):
    """A self-test result: passed means code 0; a failure needs a non-zero code."""

    passed: StrictBool
    code: Code | None = None
    text: Text | None = None

    @model_validator(mode="after")
    def _code_fits(self) -> SelfTest:
        if self.passed and self.code not in (None, 0):
            raise ValueError(f"code: 0 for a passed self-test expected, found {self.code}")
        if not self.passed and not self.code:
            raise ValueError(
                f"code: a non-zero code for a failed self-test expected, found {self.code}"
            )
        return self


class ReaderStep(CardStep):
    peek: Peek | None = None
    self_test: SelfTest | None = None


class ReaderScenario(CardScenario):
    steps: list[ReaderStep] = Field(default_factory=list)


# ----- dealing shoe --------------------------------------------------------------------


class Load(_Strict):
    side: Side = "-"
    cards: Annotated[int, Field(ge=1, le=10_000, strict=True)] | None = None


class Draw(_Strict):
    """Cards drawn one by one, `interval` seconds apart: named cards, or `count` of them."""

    cards: Annotated[list[Card], Field(min_length=1, max_length=1000)] | None = None
    count: Annotated[int, Field(ge=1, le=1000, strict=True)] | None = None
    side: Side = "-"
    interval: Annotated[float, Field(ge=0, le=60, strict=True)] = 0.3

    @model_validator(mode="after")
    def _cards_or_count(self) -> Draw:
        if (self.cards is None) == (self.count is None):
            raise ValueError(
                "exactly one of cards, count expected, found "
                f"{'both' if self.cards is not None else 'neither'}"
            )
        return self

    @property
    def size(self) -> int:
        return len(self.cards) if self.cards is not None else int(self.count or 0)


class FaceUp(_Strict):
    card: Card
    side: Side = "-"


class SideOnly(_Strict):
    side: Side = "-"


class ShoeStep(CardStep):
    load: Load | None = None
    draw: Draw | None = None
    face_up: FaceUp | None = None
    cutting_card: SideOnly | None = None
    empty: SideOnly | None = None
    out_of_order: CodeText | None = None

    def seconds(self) -> float:
        drawing = self.draw.interval * (self.draw.size - 1) if self.draw is not None else 0.0
        return super().seconds() + drawing


class ShoeScenario(CardScenario):
    steps: list[ShoeStep] = Field(default_factory=list)


# ----- card shuffler -------------------------------------------------------------------


class Shuffle(_Strict):
    """`SHS`, then after `seconds` `SHC` with the card count, then `BRD`."""

    batch: Word
    cards: Annotated[int, Field(ge=0, le=10_000, strict=True)]
    seconds: Annotated[float, Field(ge=0, le=3600, strict=True)] = 0.0


class Batch(_Strict):
    batch: Word


class Jam(_Strict):
    batch: Word = "-"
    code: Code
    text: Text | None = None


class ShufflerStep(CardStep):
    shuffle: Shuffle | None = None
    remove: Batch | None = None
    jam: Jam | None = None
    door: Literal["open", "closed"] | None = None
    out_of_order: CodeText | None = None
    mode: Literal["batch", "continuous"] | None = None

    def seconds(self) -> float:
        shuffling = self.shuffle.seconds if self.shuffle is not None else 0.0
        return super().seconds() + shuffling


class ShufflerScenario(CardScenario):
    steps: list[ShufflerStep] = Field(default_factory=list)


def load_card_scenario(path: str | Path, model: type[ScenarioT]) -> ScenarioT:
    """Read and validate a scenario file; raise `ScenarioError` naming file, key and fault."""
    path = Path(path)
    if not path.is_file():
        raise ScenarioError(f"{path}: scenario file not found")
    return load_strict_yaml(path, model, ScenarioError)
