"""Minibaccarat, Midibaccarat and Baccarat (58 Pa. Code ch. 541, 543, 545): one shoe."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from floord.engine.baccarat.engine import BaccaratEngine
from floord.engine.baccarat.rules import DEFAULTS
from floord.engine.baccarat.rules import BaccaratRules as EngineRules
from floord.games.definition import Families, GameDefinition, slot_problems
from floord.games.table_model import DeviceConfig, GameTable, StrictModel
from floord.table.vocabulary import TableEngine


class BaccaratRules(StrictModel):
    """Rules Submission options of a Mini-, Midi- or Baccarat table (ch. 541, 543, 545);
    the defaults are the engine's (`floord.engine.baccarat.rules.DEFAULTS`)."""

    decks: int = Field(default=DEFAULTS["decks"], ge=6, le=8, description="decks in the shoe")
    vigorish_percent: Literal[4, 5] = DEFAULTS["vigorish_percent"]  # § 545.13(c)
    ez_baccarat: bool = DEFAULTS["ez_baccarat"]  # § 545.8, § 545.13(d): the Dragon 7
    # § 541.13(d)
    dragon_bonus_table: Literal["A", "B", "C"] | None = DEFAULTS["dragon_bonus_table"]
    tie_pays: int = Field(default=DEFAULTS["tie_pays"], ge=8)  # § 545.13(b): at least 8 to 1
    # § 545.13(f): vigorish collected with the payout, or deferred (collected before a new shoe).
    vigorish_collection: Literal["at_payout", "deferred"] = DEFAULTS["vigorish_collection"]
    # § 541.5(h) (Minibaccarat only): minutes without a coup after which the cards are
    # spread, inspected and reshuffled before the next coup; null: not watched.
    idle_minutes: int | None = Field(default=None, ge=1, le=24 * 60)


class BaccaratTableConfig(GameTable):
    game: Literal["minibaccarat", "midibaccarat", "baccarat"]
    rules: BaccaratRules = BaccaratRules()
    devices: list[DeviceConfig] = Field(min_length=1)


def _check(table: BaccaratTableConfig, where: str, families: Families) -> list[str]:
    """A shoe, no reader and no wheel; which options fit which chapter (EZ Baccarat is
    ch. 545, the Dragon Bonus § 541.13(d)) is the engine's own rule table: ask it."""
    wanted: dict[str, int | None] = {
        "dealing_shoe": 1,
        "card_shuffler": None,
        "card_reader": 0,
        "roulette_wheel": 0,
        "big_six_wheel": 0,
        "dice_tracker": 0,
    }
    problems = slot_problems(families, wanted, where, "a Baccarat table")
    try:
        EngineRules.from_config(table.game, table.rules.model_dump())
    except ValueError as exc:
        problems.append(f"{where}.rules: {exc}")
    return problems


def _engine(table: BaccaratTableConfig, families: Families, common: dict[str, Any]) -> TableEngine:
    [(shoe, shoe_profile)] = families["dealing_shoe"]
    return BaccaratEngine(
        table.id,
        game=table.game,
        rules=table.rules.model_dump(),
        shoe_device=shoe,
        shoe_reports_cards=bool(shoe_profile.quirks.get("recognition")),
        **common,
    )


DEFINITION = GameDefinition(table=BaccaratTableConfig, build_engine=_engine, check=_check)
