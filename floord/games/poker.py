"""Poker (58 Pa. Code ch. 553): two decks, shuffled by hand or by an automated shuffler,
cut by the dealer before every round; only § 553.5 and § 553.6 are in our seeds."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from floord.engine.poker.engine import PokerEngine
from floord.engine.poker.rules import DEFAULTS, read_rules
from floord.games.definition import (
    Families,
    GameDefinition,
    card_table_problems,
    first_device,
)
from floord.games.table_model import DeviceConfig, GameTable, StrictModel
from floord.table.vocabulary import TableEngine


class PokerRules(StrictModel):
    """Rules of a Poker table (ch. 553: only § 553.5 and § 553.6 are in our seeds).

    The defaults are the engine's (`floord.engine.poker.rules.DEFAULTS`); the engine's
    own rule table checks the two deck names in `_check`.
    """

    shuffler: Literal["none", "automated"] = DEFAULTS["shuffler"]  # § 553.5(d), (e)
    # § 553.5(a): the two decks received, by the names the dealer and the shuffler use.
    deck_backs: list[str] = DEFAULTS["deck_backs"]  # pydantic copies it per table
    # § 553.6(d): minutes without a round after which both decks are spread, washed,
    # stacked, shuffled and cut again; null: not watched.
    idle_minutes: int | None = Field(default=None, ge=1, le=24 * 60)


class PokerTableConfig(GameTable):
    game: Literal["poker"]
    rules: PokerRules = PokerRules()
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
        read_rules=lambda: read_rules(table.rules.model_dump()),
    )


def _engine(table: PokerTableConfig, families: Families, common: dict[str, Any]) -> TableEngine:
    return PokerEngine(
        table.id,
        rules=table.rules.model_dump(),
        shuffler_device=first_device(families, "card_shuffler"),
        **common,
    )


DEFINITION = GameDefinition(table=PokerTableConfig, build_engine=_engine, check=_check)
