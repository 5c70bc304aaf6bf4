"""Minibaccarat, Midibaccarat and Baccarat (58 Pa. Code ch. 541, 543, 545): one shoe."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from floord.engine.baccarat.rules import (
    BaccaratRules,
    DragonBonusTable,
    VigorishCollection,
)
from floord.games.definition import Families, GameDefinition, slot_problems
from floord.games.second_source import SecondSourceConfig
from floord.games.table_model import DeviceConfig, GameTable, StrictModel
from floord.table.vocabulary import TableEngine

_DEFAULT = BaccaratRules("baccarat")


class BaccaratRulesConfig(StrictModel):
    """Rules Submission options of a Mini-, Midi- or Baccarat table (ch. 541, 543, 545) as
    the config file holds them, each key's type the engine's: the file's words for what is
    wrong with one key. `engine_rules` makes the engine's `BaccaratRules` for the table's
    game, which checks which options fit which chapter; the defaults are its."""

    decks: int = Field(default=_DEFAULT.decks, ge=6, le=8, description="decks in the shoe")
    vigorish_percent: Literal[4, 5] = 5  # § 545.13(c); None in the engine at EZ Baccarat
    ez_baccarat: bool = _DEFAULT.ez_baccarat  # § 545.8, § 545.13(d): the Dragon 7
    dragon_bonus_table: DragonBonusTable | None = _DEFAULT.dragon_bonus_table  # § 541.13(d)
    tie_pays: int = Field(default=_DEFAULT.tie_pays, ge=8)  # § 545.13(b): at least 8 to 1
    # § 545.13(f): vigorish collected with the payout, or deferred (collected before a new shoe).
    vigorish_collection: VigorishCollection = _DEFAULT.vigorish_collection
    # § 541.5(h) (Minibaccarat only): minutes without a coup after which the cards are
    # spread, inspected and reshuffled before the next coup; null: not watched.
    idle_minutes: int | None = Field(default=_DEFAULT.idle_minutes, ge=1, le=24 * 60)

    def engine_rules(self, game: str) -> BaccaratRules:
        """The engine's rules for `game`, made once from these; a `RulesError` (a
        ValueError) names what is wrong."""
        return BaccaratRules(
            game,
            decks=self.decks,
            vigorish_percent=self.vigorish_percent,
            ez_baccarat=self.ez_baccarat,
            dragon_bonus_table=self.dragon_bonus_table,
            tie_pays=self.tie_pays,
            vigorish_collection=self.vigorish_collection,
            idle_minutes=self.idle_minutes,
        )


class BaccaratTableConfig(GameTable):
    game: Literal["minibaccarat", "midibaccarat", "baccarat"]
    rules: BaccaratRulesConfig = BaccaratRulesConfig()
    devices: list[DeviceConfig] = Field(min_length=1)
    # The dealer's announcement of the winner (§ 545.12(a)), checked against the cards.
    second_source: SecondSourceConfig | None = None


# Why a Baccarat table takes no card shuffler (`GameDefinition.refused`).
SHUFFLER_POLICY = (
    "floord's policy: the Baccarat family is dealt from a stack the dealer shuffles; an "
    "automated shuffler at Minibaccarat, 58 Pa. Code § 541.4(d), needs the batches "
    '"permitted under § 541.3(b)", which floord\'s sources do not contain'
)


def _check(table: BaccaratTableConfig, where: str, families: Families) -> list[str]:
    """One shoe (any other device is refused at its entry); which options fit which
    chapter (EZ Baccarat is ch. 545, the Dragon Bonus § 541.13(d)) is the engine's own
    rule table: ask it."""
    problems = slot_problems(families, {"dealing_shoe": 1}, where, "a Baccarat table")
    if table.second_source is not None and table.second_source.device is not None:
        problems.append(
            f"{where}.second_source.device: command: dealer_call expected at a Baccarat "
            f"table (no device reports a coup's result), found {table.second_source.device!r}"
        )
    try:
        table.rules.engine_rules(table.game)
    except ValueError as exc:
        problems.append(f"{where}.rules: {exc}")
    return problems


def _engine(table: BaccaratTableConfig, families: Families, common: dict[str, Any]) -> TableEngine:
    from floord.engine.baccarat.engine import BaccaratEngine

    [(shoe, shoe_profile)] = families["dealing_shoe"]
    return BaccaratEngine(
        table.id,
        rules=table.rules.engine_rules(table.game),
        shoe_device=shoe,
        shoe_reports_cards=shoe_profile.reports_cards,
        second_source=table.second_source.engine_value() if table.second_source else None,
        **common,
    )


DEFINITION = GameDefinition(
    table=BaccaratTableConfig,
    build_engine=_engine,
    families=frozenset({"dealing_shoe"}),
    refused={"card_shuffler": SHUFFLER_POLICY},
    check=_check,
)
