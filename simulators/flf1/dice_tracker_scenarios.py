"""Scenario steps of the simulated dice tracker and Pai Gow shaker
(`simulators/flf1/dice_tracker.py`).

Besides the steps every FLF/1 device has (`card_scenarios.CardStep`: idle, fault, clear,
tamper, silence, disconnect, drop_acks, garble, raw), a dice scenario says which dice are
at the table, which the shooter took, and how each throw went::

    steps:
      - dice_set: {dice: [D1, D2, D3, D4, D5]}     # SET: the dice at the table
      - select: {dice: [D2, D4]}                   # SEL: the shooter's two dice
      - throw: {faces: [3, 4]}                     # a proper throw: THR, faces 3 and 4
      - throw: {dice: [{face: 6}, {rest: "off"}]}  # the second die left the table
      - throw: {dice: [{face: 2, rest: die}, {face: 5}]}   # one die on the other
      - throw: {dice: [{face: 1, lie: cocked}, {face: 4}]}  # a cocked die
      - throw: {faces: [5, 5], together: false}    # not out of the hand together
      - replace: {out: D4, new: D6}                # a die replaced: SET again
      - rolls: {count: 12, interval: 1.0}          # a shooter's run of proper throws
      - dice_set: {dice: []}                       # the dice taken off the table: SET|-

A die of `throw.dice` has `face` (1 to 6; left out: not read, which only a die off the
table, in the dice cup or cocked on more than one side may be), `id` (default: the die
the shooter selected in that place), `rest` (table, off, die, bank, cup, rail; default
table; write `"off"` in quotes, as YAML reads a bare off as false), `lie` (flat, cocked,
cocked_multi; default flat) and `far_end` (default true). `faces: [a, b]` is the short
form of dice that are all proper. `seconds` is how long the dice are in the air before
the device reports the throw. `rolls` throws random faces (the scenario's `seed`), every
throw proper, `interval` seconds apart.

What the model can report is the profile's: a Pai Gow shaker (three dice, no
capability) takes only faces; a step asking it for a rest, a flag, an id, a set or a
selection is refused when the simulator is built.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictStr,
    field_validator,
    model_validator,
)

from simulators.flf1.card_scenarios import CardScenario, CardStep

Face = Annotated[int, Field(ge=1, le=6, strict=True)]
DieId = Annotated[StrictStr, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,15}$")]
Rest = Literal["table", "off", "die", "bank", "cup", "rail"]
Lie = Literal["flat", "cocked", "cocked_multi"]
MAX_SET = 32


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _unique(ids: list[str], what: str) -> None:
    twice = sorted({i for i in ids if ids.count(i) > 1})
    if twice:
        raise ValueError(f"{what}: each die once expected, found {', '.join(twice)} twice")


class Die(_Strict):
    """One die of a throw as the device saw it."""

    face: Face | None = None
    id: DieId | None = None
    rest: Rest = "table"
    lie: Lie = "flat"
    far_end: StrictBool = True
    # The camera could not read the die's id: `-` in its place (the page's unread id).
    id_read: StrictBool = True
    # A die off the table or in the cup the camera did not see: `-` for its lie and
    # far_end (the page's unseen die).
    seen: StrictBool = True

    @field_validator("rest", mode="before")
    @classmethod
    def _quoted_off(cls, value: object) -> object:
        # YAML 1.1 reads a bare `off` as false: say so rather than "found False".
        if value is False:
            raise ValueError('write "off" in quotes (a bare off is YAML for false)')
        return value

    @model_validator(mode="after")
    def _face_read(self) -> Die:
        if self.face is None and self.rest not in ("off", "cup") and self.lie != "cocked_multi":
            raise ValueError(
                "face expected (only a die off the table, in the cup or cocked_multi has none)"
            )
        if not self.seen and self.rest not in ("off", "cup"):
            raise ValueError("seen: false only for a die off the table or in the cup")
        return self


class Throw(_Strict):
    """One throw: its dice (or `faces`, all proper), whether they left the hand together."""

    dice: Annotated[list[Die], Field(min_length=2, max_length=3)] | None = None
    faces: Annotated[list[Face], Field(min_length=2, max_length=3)] | None = None
    together: StrictBool = True
    seconds: Annotated[float, Field(ge=0, le=600, strict=True)] = 0.5

    @model_validator(mode="after")
    def _dice_or_faces(self) -> Throw:
        if (self.dice is None) == (self.faces is None):
            raise ValueError(
                "exactly one of dice, faces expected, found "
                f"{'both' if self.dice is not None else 'neither'}"
            )
        _unique([d.id for d in self.all_dice() if d.id is not None], "dice")
        return self

    def all_dice(self) -> list[Die]:
        if self.dice is not None:
            return list(self.dice)
        return [Die(face=face) for face in self.faces or []]


class Rolls(_Strict):
    """`count` proper throws of random faces, `interval` seconds apart: a shooter's run."""

    count: Annotated[int, Field(ge=1, le=10_000, strict=True)]
    interval: Annotated[float, Field(ge=0, le=60, strict=True)] = 1.0


class DiceSet(_Strict):
    """The dice at the table (§ 537.7(a)); empty: none (`SET|-`)."""

    dice: Annotated[list[DieId], Field(max_length=MAX_SET)]

    @model_validator(mode="after")
    def _once(self) -> DiceSet:
        _unique(list(self.dice), "dice")
        return self


class Select(_Strict):
    """The dice the shooter selected (§ 537.7(c)): as many as a throw holds."""

    dice: Annotated[list[DieId], Field(min_length=2, max_length=3)]

    @model_validator(mode="after")
    def _once(self) -> Select:
        _unique(list(self.dice), "dice")
        return self


class Replace(_Strict):
    """A die of the set taken out (`out`) and another put in its place (`new`)."""

    out: DieId
    new: DieId

    @model_validator(mode="after")
    def _another(self) -> Replace:
        if self.out == self.new:
            raise ValueError(f"new: a die other than out expected, found {self.new!r}")
        return self


class DiceStep(CardStep):
    dice_set: DiceSet | None = None
    select: Select | None = None
    replace: Replace | None = None
    throw: Throw | None = None
    rolls: Rolls | None = None

    def seconds(self) -> float:
        throwing = self.throw.seconds if self.throw is not None else 0.0
        rolling = self.rolls.count * self.rolls.interval if self.rolls is not None else 0.0
        return super().seconds() + throwing + rolling


class DiceScenario(CardScenario):
    steps: list[DiceStep] = Field(default_factory=list)
