"""Poker (58 Pa. Code ch. 553): two decks, shuffled by hand or by an automated shuffler,
cut by the dealer before every round; only § 553.5 and § 553.6 are in our seeds."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from floord.engine.poker.rules import PokerRules, Shuffler
from floord.games.definition import (
    Families,
    GameDefinition,
    card_table_problems,
    first_device,
)
from floord.games.table_model import DeviceConfig, GameTable, StrictModel
from floord.table.vocabulary import TableEngine

_DEFAULT = PokerRules()


class PokerRulesConfig(StrictModel):
    """A Poker table's `rules:` as the config file holds them (ch. 553: only § 553.5 and
    § 553.6 are in our seeds), each key's type the engine's: the file's words for what
    is wrong with one key. `engine_rules` makes the engine's `PokerRules`, which checks
    them against the chapter (the two deck names); the defaults are its.
    """

    shuffler: Shuffler = _DEFAULT.shuffler  # § 553.5(d), (e)
    # § 553.5(a): the two decks received, by the names the dealer and the shuffler use.
    deck_backs: list[str] = Field(default_factory=lambda: list(_DEFAULT.deck_backs))
    # § 553.6(d): minutes without a round after which both decks are spread, washed,
    # stacked, shuffled and cut again; null: not watched.
    idle_minutes: int | None = Field(default=_DEFAULT.idle_minutes, ge=1, le=24 * 60)

    def engine_rules(self) -> PokerRules:
        """The engine's rules, made once from these; ValueError names what is wrong."""
        return PokerRules(
            shuffler=self.shuffler,
            deck_backs=tuple(self.deck_backs),
            idle_minutes=self.idle_minutes,
        )


class PokerTableConfig(GameTable):
    game: Literal["poker"]
    rules: PokerRulesConfig = PokerRulesConfig()
    devices: list[DeviceConfig] = Field(default_factory=list)


def _check(table: PokerTableConfig, where: str, families: Families) -> list[str]:
    """A shuffler unless `shuffler: none`, and nothing else; then the rules against the
    chapter's rule table."""
    return card_table_problems(
        families,
        where,
        game="poker",
        shuffler=table.rules.shuffler,
        shoes=0,
        make_rules=table.rules.engine_rules,
    )


def _engine(table: PokerTableConfig, families: Families, common: dict[str, Any]) -> TableEngine:
    from floord.engine.poker.engine import PokerEngine

    return PokerEngine(
        table.id,
        rules=table.rules.engine_rules(),
        shuffler_device=first_device(families, "card_shuffler"),
        **common,
    )


DEFINITION = GameDefinition(
    table=PokerTableConfig,
    build_engine=_engine,
    families=frozenset({"card_shuffler"}),
    check=_check,
)
