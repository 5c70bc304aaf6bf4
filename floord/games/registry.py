"""Every game floord plays, and what the rest of floord asks of a table's game.

The config's table union, `floord check`, the daemon and the wheel reports read this
list; none of them asks a table which game it plays. A new game is one package under
`floord/engine/` and one module here, named in `MODULES` (docs/architecture.md,
"Where a new game goes").

A game's module (its table model, its rules and, when a table is built, its engine) is
imported when a config names the game, not before: a box of roulette tables neither
imports nor validates the other games (`config_model`). The names are in `MODULES`, so
the config's messages can list every game without importing one.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from importlib import import_module
from typing import TYPE_CHECKING, Annotated, Any, TypeAlias, Union

from pydantic import BaseModel, Field, create_model

from floord.games.definition import (
    GameDefinition,
    SurveillanceSettings,
    devices_by_family,
)
from floord.games.table_model import GameTable
from floord.profile_sources import ProfileShelf
from floord.table.vocabulary import TableEngine

if TYPE_CHECKING:
    from floord.analytics.dice_report import DiceSetup
    from floord.analytics.report import WheelSetup

# Each `game:` name and the module of `floord/games/` that defines it, in the order the
# config's messages list the games (`tests/test_games_registry.py` checks each module's
# DEFINITION plays exactly the names given it here).
MODULES: dict[str, str] = {
    "roulette": "roulette",
    "blackjack": "blackjack",
    "spanish21": "blackjack",
    "minibaccarat": "baccarat",
    "midibaccarat": "baccarat",
    "baccarat": "baccarat",
    "mississippi_stud": "stud",
    "caribbean_stud": "carnival",
    "four_card_poker": "carnival",
    "let_it_ride": "carnival",
    "pai_gow_poker": "carnival",
    "texas_holdem_bonus": "carnival",
    "three_card_poker": "carnival",
    "poker": "poker",
    "war": "war",
    "big_six": "big_six",
    "pai_gow": "pai_gow",
    "craps": "craps",
    "mini_craps": "craps",
}
GAMES: tuple[str, ...] = tuple(MODULES)

# A table of the config as the type checker sees it; at run time the config's model
# holds a union of the named games' models (`config_model`).
TableConfig: TypeAlias = GameTable


def definition(game: str) -> GameDefinition:
    """The definition of `game` (a name of `GAMES`), its module imported on first use."""
    module: Any = import_module(f"floord.games.{MODULES[game]}")
    found: GameDefinition = module.DEFINITION
    return found


def definitions(games: Iterable[str] = GAMES) -> tuple[GameDefinition, ...]:
    """The definitions playing `games` (every game's by default), each once, in the
    registry's order."""
    wanted = set(games)
    modules = dict.fromkeys(MODULES[g] for g in GAMES if g in wanted)
    return tuple(definition(next(g for g in GAMES if MODULES[g] == m)) for m in modules)


def table_union(games: Iterable[str] = GAMES) -> Any:
    """The config's table type for `games`: their models, told apart by `game`."""
    models = tuple(d.table for d in definitions(games))
    if len(models) == 1:
        return models[0]  # a discriminator needs a union; the model checks its `game`
    return Annotated[Union[models], Field(discriminator="game")]  # noqa: UP007 (built)


@cache
def config_model(base: type[BaseModel], games: frozenset[str]) -> type[BaseModel]:
    """`base` (the config's model) with `tables` a list of the models of `games` alone."""
    tables: Any = (list[table_union(games)], Field(min_length=1))  # type: ignore[misc]
    return create_model(base.__name__, __base__=base, __module__=base.__module__, tables=tables)


def definition_of(table: GameTable) -> GameDefinition:
    """The definition of the game a (validated) table plays."""
    return definition(table.game)


def build_engine(table: GameTable, common: dict[str, Any], profiles: ProfileShelf) -> TableEngine:
    """The table's engine, from its devices (their profiles on the box's shelf) and the
    arguments every engine takes."""
    families = devices_by_family(table, profiles)
    return definition_of(table).build_engine(table, families, common)


def driver_options(table: GameTable, family: str) -> dict[str, Any]:
    """What a driver of `family` must know of the table's rules to judge its bytes."""
    return definition_of(table).driver_options(table, family)


def setup_for_table(
    table: GameTable,
    window: int,
    level: float,
    sectors: int | None,
    dealer_window: int = 300,
    dealer_bins: int = 0,
) -> WheelSetup:
    """The wheel of a configured table: a Roulette wheel kind, or a Big Six layout;
    `sectors` None is the game's default. A table without a wheel is a ValueError."""
    wheel = definition_of(table).wheel
    if wheel is None:
        raise ValueError(f"table {table.id!r} plays {table.game}: it has no wheel to report on")
    return wheel.setup(table, window, level, sectors, dealer_window, dealer_bins)


def live_setup(table: GameTable, settings: SurveillanceSettings) -> WheelSetup | None:
    """The live wheel tests of a table as the config's `surveillance:` tunes them; None
    for a table without a wheel."""
    wheel = definition_of(table).wheel
    if wheel is None:
        return None
    sectors = getattr(settings, wheel.sectors_setting)
    return wheel.setup(
        table,
        settings.window,
        settings.level,
        sectors,
        settings.dealer_window,
        settings.dealer_bins,
    )


def dice_setup(table: GameTable, settings: SurveillanceSettings) -> DiceSetup | None:
    """The dice tests of a table as the config's `surveillance:` tunes them; None for a
    table whose game runs none (only Craps and Mini-Craps rolls are tested)."""
    if not definition_of(table).dice_watch:
        return None
    from floord.analytics.dice_report import DiceSetup

    return DiceSetup(
        settings.window, settings.level, settings.shooter_window, settings.shooter_bins
    )
