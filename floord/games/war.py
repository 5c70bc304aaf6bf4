"""War (58 Pa. Code ch. 567): six or more decks dealt from a dealing shoe, shuffled by
hand or by an automated shuffler, cut by a player; only § 567.4 and § 567.5 are in our
seeds."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from floord.engine.war.engine import WarEngine
from floord.engine.war.rules import DEFAULTS, MAX_BOXES, MAX_DECKS, MIN_DECKS, read_rules
from floord.games.definition import (
    Families,
    GameDefinition,
    card_table_problems,
    first_device,
)
from floord.games.table_model import DeviceConfig, GameTable, StrictModel
from floord.table.vocabulary import TableEngine


class WarRules(StrictModel):
    """Rules of a War table (ch. 567: only § 567.4 and § 567.5 are in our seeds).

    The defaults are the engine's (`floord.engine.war.rules.DEFAULTS`).
    """

    # § 567.4(a): "six or more decks"; floord's bound is 16.
    decks: int = Field(default=DEFAULTS["decks"], ge=MIN_DECKS, le=MAX_DECKS)
    shuffler: Literal["none", "automated"] = DEFAULTS["shuffler"]  # § 567.4(d), § 567.5(h)
    boxes: int = Field(default=DEFAULTS["boxes"], ge=1, le=MAX_BOXES)
    # § 567.5(h): minutes without a round or a card after which the cards come out of the
    # shoe and the rack, are spread, shuffled and cut again; null: not watched.
    idle_minutes: int | None = Field(default=None, ge=1, le=24 * 60)


class WarTableConfig(GameTable):
    game: Literal["war"]
    rules: WarRules = WarRules()
    devices: list[DeviceConfig] = Field(default_factory=list)


def _check(table: WarTableConfig, where: str, families: Families) -> list[str]:
    """A dealing shoe, a shuffler unless `shuffler: none`, and nothing else; then the
    rules against the chapter's rule table."""
    return card_table_problems(
        families,
        where,
        game="war",
        shuffler=table.rules.shuffler,
        shoes=1,
        read_rules=lambda: read_rules(table.rules.model_dump()),
    )


def _engine(table: WarTableConfig, families: Families, common: dict[str, Any]) -> TableEngine:
    shoe = first_device(families, "dealing_shoe")
    assert shoe is not None  # `check` requires it
    return WarEngine(
        table.id,
        rules=table.rules.model_dump(),
        shoe_device=shoe,
        shuffler_device=first_device(families, "card_shuffler"),
        **common,
    )


DEFINITION = GameDefinition(table=WarTableConfig, build_engine=_engine, check=_check)
