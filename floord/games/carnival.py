"""The carnival poker games (58 Pa. Code ch. 555-565): a shuffler unless `shuffler:
none`, no shoe; only each chapter's § 55x.4 and § 55x.5 are enforced."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from floord.engine.carnival.rules import MAX_BOXES, CarnivalRules, Shuffler
from floord.games.definition import (
    Families,
    GameDefinition,
    card_table_problems,
    first_device,
)
from floord.games.table_model import DeviceConfig, GameTable, StrictModel
from floord.table.vocabulary import TableEngine

_DEFAULT = CarnivalRules("three_card_poker")


class CarnivalRulesConfig(StrictModel):
    """A carnival poker table's `rules:` as the config file holds them (ch. 555-565: only
    § 55x.4, § 55x.5 are in our seeds), each key's type the engine's: the file's words for
    what is wrong with one key. `engine_rules` makes the engine's `CarnivalRules` for the
    table's game, which checks them against its chapter (two decks are used with an
    automated shuffler, § 55x.4(d)); the defaults are its.
    """

    shuffler: Shuffler = _DEFAULT.shuffler  # § 55x.5(a), (b)
    decks: Literal[1, 2] = _DEFAULT.decks
    deck_backs: list[str] | None = None
    boxes: int = Field(default=_DEFAULT.boxes, ge=1, le=MAX_BOXES)
    # § 55x.5(f), § 561.5(g): minutes without a round after which the cards are spread and
    # shuffled again before the next round; null: not watched.
    idle_minutes: int | None = Field(default=_DEFAULT.idle_minutes, ge=1, le=24 * 60)

    def engine_rules(self, game: str) -> CarnivalRules:
        """The engine's rules for `game`, made once from these; ValueError names what is
        wrong."""
        return CarnivalRules(
            game,
            shuffler=self.shuffler,
            decks=self.decks,
            deck_backs=None if self.deck_backs is None else tuple(self.deck_backs),
            boxes=self.boxes,
            idle_minutes=self.idle_minutes,
        )


class CarnivalTableConfig(GameTable):
    game: Literal[
        "caribbean_stud",
        "four_card_poker",
        "let_it_ride",
        "pai_gow_poker",
        "texas_holdem_bonus",
        "three_card_poker",
    ]
    rules: CarnivalRulesConfig = CarnivalRulesConfig()
    devices: list[DeviceConfig] = Field(default_factory=list)


def _check(table: CarnivalTableConfig, where: str, families: Families) -> list[str]:
    """A shuffler unless `shuffler: none`, and nothing else; then the rules against the
    chapter's rule table."""
    return card_table_problems(
        families,
        where,
        game=table.game,
        shuffler=table.rules.shuffler,
        shoes=0,
        make_rules=lambda: table.rules.engine_rules(table.game),
    )


def _engine(table: CarnivalTableConfig, families: Families, common: dict[str, Any]) -> TableEngine:
    from floord.engine.carnival.engine import CarnivalEngine

    return CarnivalEngine(
        table.id,
        rules=table.rules.engine_rules(table.game),
        shoe_device=None,
        shuffler_device=first_device(families, "card_shuffler"),
        shoe_reports_cards=False,
        **common,
    )


DEFINITION = GameDefinition(
    table=CarnivalTableConfig,
    build_engine=_engine,
    families=frozenset({"card_shuffler"}),
    check=_check,
)
