"""War (58 Pa. Code ch. 567): six or more decks dealt from a dealing shoe, shuffled by
hand or by an automated shuffler, cut by a player; only § 567.4 and § 567.5 are in our
seeds."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from floord.engine.war.rules import MAX_BOXES, MAX_DECKS, MIN_DECKS, Shuffler, WarRules
from floord.games.definition import (
    Families,
    GameDefinition,
    card_table_problems,
    first_device,
)
from floord.games.table_model import DeviceConfig, GameTable, StrictModel
from floord.table.vocabulary import TableEngine

_DEFAULT = WarRules()


class WarRulesConfig(StrictModel):
    """A War table's `rules:` as the config file holds them (ch. 567: only § 567.4 and
    § 567.5 are in our seeds), each key's type and bounds the engine's: the file's words
    for what is wrong with one key. `engine_rules` makes the engine's `WarRules`, which
    checks them against the chapter; the defaults are its.
    """

    # § 567.4(a): "six or more decks"; floord's bound is 16.
    decks: int = Field(default=_DEFAULT.decks, ge=MIN_DECKS, le=MAX_DECKS)
    shuffler: Shuffler = _DEFAULT.shuffler  # § 567.4(d), § 567.5(h)
    boxes: int = Field(default=_DEFAULT.boxes, ge=1, le=MAX_BOXES)
    # § 567.5(h): minutes without a round or a card after which the cards come out of the
    # shoe and the rack, are spread, shuffled and cut again; null: not watched.
    idle_minutes: int | None = Field(default=_DEFAULT.idle_minutes, ge=1, le=24 * 60)

    def engine_rules(self) -> WarRules:
        """The engine's rules, made once from these; ValueError names what is wrong."""
        return WarRules(
            decks=self.decks,
            shuffler=self.shuffler,
            boxes=self.boxes,
            idle_minutes=self.idle_minutes,
        )


class WarTableConfig(GameTable):
    game: Literal["war"]
    rules: WarRulesConfig = WarRulesConfig()
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
        make_rules=table.rules.engine_rules,
    )


def _engine(table: WarTableConfig, families: Families, common: dict[str, Any]) -> TableEngine:
    from floord.engine.war.engine import WarEngine

    shoe = first_device(families, "dealing_shoe")
    assert shoe is not None  # `check` requires it
    return WarEngine(
        table.id,
        rules=table.rules.engine_rules(),
        shoe_device=shoe,
        shuffler_device=first_device(families, "card_shuffler"),
        **common,
    )


DEFINITION = GameDefinition(
    table=WarTableConfig,
    build_engine=_engine,
    families=frozenset({"dealing_shoe", "card_shuffler"}),
    check=_check,
)
