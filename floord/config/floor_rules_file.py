"""The floor rules file: the facility's values that every table of a kind must share.

A box's config lists only its own tables, so on its own `floord check` can hold them
only to each other. The floor rules file is the facility's word, kept in one place and
installed unchanged on every box (`floor_rules:` in each config, a path relative to the
config). Each section is optional; a section given binds every table of its kind:

    baccarat:
      vigorish_percent: 5          # § 545.13(g), Baccarat tables (EZ tables aside)
    craps:
      payout_odds:                 # § 537.5(b): the odds above the minimums paid on
        place_win_6: "7 to 6"      # every Craps and Mini-Craps table; a wager not
                                   # listed is paid at its minimum everywhere

The file is checked as strictly as a config: an unknown key, a vigorish other than 4 or
5, odds below a minimum or not "N to D" are each named with the file and the key.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, ValidationError, field_validator

from floord.config.problems import config_problems
from floord.games.table_model import StrictModel
from floord.yaml_files import YamlFileError, read_yaml, top_found


class BaccaratFloor(StrictModel):
    vigorish_percent: Literal[4, 5]


class CrapsFloor(StrictModel):
    payout_odds: dict[str, str] = Field(default_factory=dict)

    @field_validator("payout_odds")
    @classmethod
    def _odds(cls, value: dict[str, str]) -> dict[str, str]:
        # Craps's rules are imported only for a floor rules file that has a craps section.
        from floord.engine.craps.rules import payout_problems

        problems = payout_problems(value, None, {})
        if problems:
            raise ValueError("; ".join(p.removeprefix("payout_odds.") for p in problems))
        return value


class FloorRules(StrictModel):
    baccarat: BaccaratFloor | None = None
    craps: CrapsFloor | None = None


def floor_rules_problems(path: Path) -> tuple[FloorRules | None, list[str]]:
    """The file read and validated, or the lines that say why it cannot be used."""
    try:
        raw = read_yaml(path)
    except YamlFileError as exc:
        return None, [str(exc)]
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        return None, [f"{path}: (top): a mapping of floor rules expected, found {top_found(raw)}"]
    try:
        return FloorRules.model_validate(raw), []
    except ValidationError as exc:
        return None, config_problems(path, exc, FloorRules)
