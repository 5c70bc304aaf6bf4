"""Every game floord plays, and what the rest of floord asks of a table's game.

The config's table union, `floord check`, the daemon and the wheel reports read this
list; none of them asks a table which game it plays. A new game is one package under
`floord/engine/` and one module here, named in `DEFINITIONS` (docs/architecture.md,
"Where a new game goes").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, TypeAlias, Union

from pydantic import Field

from floord.analytics.dice_report import DiceSetup
from floord.analytics.report import WheelSetup
from floord.games import (
    baccarat,
    big_six,
    blackjack,
    carnival,
    craps,
    pai_gow,
    poker,
    roulette,
    stud,
    war,
)
from floord.games.definition import (
    GameDefinition,
    SurveillanceSettings,
    devices_by_family,
)
from floord.games.table_model import GameTable
from floord.profile_sources import ProfileShelf
from floord.table.vocabulary import TableEngine

# In this order the config's error messages list the games.
DEFINITIONS: tuple[GameDefinition, ...] = (
    roulette.DEFINITION,
    blackjack.DEFINITION,
    baccarat.DEFINITION,
    stud.DEFINITION,
    carnival.DEFINITION,
    poker.DEFINITION,
    war.DEFINITION,
    big_six.DEFINITION,
    pai_gow.DEFINITION,
    craps.DEFINITION,
)
BY_GAME: dict[str, GameDefinition] = {g: d for d in DEFINITIONS for g in d.games}
GAMES: tuple[str, ...] = tuple(BY_GAME)

if TYPE_CHECKING:
    TableConfig: TypeAlias = GameTable
else:
    # One table of the config: the model of the game its `game:` names.
    TableConfig = Annotated[
        Union[tuple(d.table for d in DEFINITIONS)],  # noqa: UP007 (built from the list)
        Field(discriminator="game"),
    ]


def definition_of(table: GameTable) -> GameDefinition:
    """The definition of the game a (validated) table plays."""
    return BY_GAME[table.game]


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
    return wheel.setup(table, settings.window, settings.level, sectors,
                       settings.dealer_window, settings.dealer_bins)  # fmt: skip


def dice_setup(table: GameTable, settings: SurveillanceSettings) -> DiceSetup | None:
    """The dice tests of a table as the config's `surveillance:` tunes them; None for a
    table whose game runs none (only Craps and Mini-Craps rolls are tested)."""
    if not definition_of(table).dice_watch:
        return None
    return DiceSetup(settings.window, settings.level, settings.shooter_window,
                     settings.shooter_bins)  # fmt: skip
