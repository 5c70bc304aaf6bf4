"""Which tables run the shuffle-quality tests, and how they are tuned.

Any table whose shoe reads each card as it is dealt (a dealing shoe whose profile says
`recognition`: Blackjack, Spanish 21, the Baccarat family, and any other card game
dealt from one) has the order of every shoe on its record, so the tests can run; a
shoe that only counts cards leaves no order to test. The tuning is the table's
`shuffle_quality:`; `surveillance.enabled: false` turns them off with the rest.
"""

from __future__ import annotations

from dataclasses import dataclass

from floord.analytics.shuffle_watch import ShuffleSetup
from floord.games.definition import SHOE_FAMILY, devices_by_family
from floord.games.table_model import GameTable, ShuffleQualityConfig
from floord.profile_sources import ProfileShelf


@dataclass(frozen=True)
class ShuffleTable:
    """A table's shuffle tests: their tuning and the shoes whose reads they test."""

    setup: ShuffleSetup
    shoes: tuple[str, ...]


def reading_shoes(table: GameTable, profiles: ProfileShelf) -> tuple[str, ...]:
    """The ids of the table's dealing shoes that read each card's rank and suit."""
    families = devices_by_family(table, profiles, skip_unloadable=True)
    return tuple(
        device for device, profile in families.get(SHOE_FAMILY, []) if profile.reports_cards
    )


def shuffle_table(table: GameTable, profiles: ProfileShelf) -> ShuffleTable | None:
    """The table's shuffle tests as its config tunes them; None when they are off or
    no shoe of the table reads the cards."""
    settings = table.shuffle_quality
    if not settings.enabled:
        return None
    shoes = reading_shoes(table, profiles)
    if not shoes:
        return None
    return ShuffleTable(setup_of(settings), shoes)


def setup_of(settings: ShuffleQualityConfig) -> ShuffleSetup:
    """The watch's tuning from the table's `shuffle_quality:` (on or off)."""
    return ShuffleSetup(
        level_slug=settings.level_slug,
        level_correlation=settings.level_correlation,
        level_clumping=settings.level_clumping,
        min_slug=settings.min_slug,
        history=settings.history,
        min_cards=settings.min_cards,
    )
