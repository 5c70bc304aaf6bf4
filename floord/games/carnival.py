"""The carnival poker games (58 Pa. Code ch. 555-565): a shuffler unless `shuffler:
none`, no shoe; only each chapter's § 55x.4 and § 55x.5 are enforced."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from floord.engine.carnival.engine import CarnivalEngine
from floord.engine.carnival.rules import DEFAULTS, MAX_BOXES, read_rules
from floord.games.definition import (
    Families,
    GameDefinition,
    card_table_problems,
    first_device,
)
from floord.games.table_model import DeviceConfig, GameTable, StrictModel
from floord.table.vocabulary import TableEngine


class CarnivalRules(StrictModel):
    """Rules of a carnival poker table (ch. 555-565: only § 55x.4, § 55x.5 are in our seeds).

    Two decks are used with an automated shuffler (§ 55x.4(d)); the engine's own rule
    table checks that in `_check`. The defaults are the engine's
    (`floord.engine.carnival.rules.DEFAULTS`).
    """

    shuffler: Literal["none", "counting", "non_counting"] = DEFAULTS["shuffler"]  # § 55x.5(a), (b)
    decks: Literal[1, 2] = DEFAULTS["decks"]
    deck_backs: list[str] | None = None
    boxes: int = Field(default=DEFAULTS["boxes"], ge=1, le=MAX_BOXES)
    # § 55x.5(f), § 561.5(g): minutes without a round after which the cards are spread and
    # shuffled again before the next round; null: not watched.
    idle_minutes: int | None = Field(default=None, ge=1, le=24 * 60)


class CarnivalTableConfig(GameTable):
    game: Literal[
        "caribbean_stud",
        "four_card_poker",
        "let_it_ride",
        "pai_gow_poker",
        "texas_holdem_bonus",
        "three_card_poker",
    ]
    rules: CarnivalRules = CarnivalRules()
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
        read_rules=lambda: read_rules(table.game, table.rules.model_dump()),
        others=("dice_tracker",),
    )


def _engine(table: CarnivalTableConfig, families: Families, common: dict[str, Any]) -> TableEngine:
    return CarnivalEngine(
        table.id,
        game=table.game,
        rules=table.rules.model_dump(),
        shoe_device=None,
        shuffler_device=first_device(families, "card_shuffler"),
        shoe_reports_cards=False,
        **common,
    )


DEFINITION = GameDefinition(table=CarnivalTableConfig, build_engine=_engine, check=_check)
