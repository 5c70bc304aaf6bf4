"""A table's `second_source:` setting: who else reports its results, and what silence does.

A table that names one settles a result only when the second source agrees within the
window (`floord/engine/core/second_source.py`); the model reads the setting strictly
and makes the engine's value, and `problems` says what the table's devices get wrong
about it in the config's words.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from floord.engine.core.second_source import WINDOW_MAX_S, SecondSource
from floord.games.definition import Families
from floord.games.table_model import ID_PATTERN, StrictModel


class SecondSourceConfig(StrictModel):
    """`second_source: {device: ID | command: dealer_call, window_s: 5, on_silence: hold}`:
    a device of the table whose reports are the second source, or the dealer's signed
    `call_result`; the seconds both reports must fall within; what a silent second source
    does: `warn` (the result stands, the silence recorded) or `hold` (it waits for a
    floorperson's `rule_result`; the default, as floord fails closed)."""

    device: str | None = Field(default=None, pattern=ID_PATTERN)
    command: Literal["dealer_call"] | None = None
    window_s: float = Field(default=5.0, gt=0, le=WINDOW_MAX_S)
    on_silence: Literal["warn", "hold"] = "hold"

    @model_validator(mode="after")
    def _one_source(self) -> SecondSourceConfig:
        if (self.device is None) == (self.command is None):
            raise ValueError("a device or command: dealer_call expected, exactly one of them")
        return self

    def engine_value(self) -> SecondSource:
        return SecondSource(self.device, self.window_s, self.on_silence)


def problems(
    source: SecondSourceConfig | None, families: Families, family: str, where: str
) -> list[str]:
    """What `floord check` refuses: a second source device that is not on the table or
    is not of the `family` that reports the game's results."""
    if source is None or source.device is None:
        return []
    found = [f for f, devices in families.items() if any(d == source.device for d, _ in devices)]
    if not found:
        expected = "a device of this table expected"
        return [f"{where}.second_source.device: {expected}, found {source.device!r}"]
    if found[0] != family:
        return [
            f"{where}.second_source.device: a {family.replace('_', ' ')} device expected "
            f"(one that reports results), found {found[0].replace('_', ' ')} {source.device!r}"
        ]
    return []


def primary_devices(
    source: SecondSourceConfig | None, families: Families, family: str
) -> list[str]:
    """The table's devices of `family` other than the second source's."""
    second = source.device if source is not None else None
    return [d for d, _ in families.get(family, []) if d != second]
