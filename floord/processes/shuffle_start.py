"""The shuffle watcher a table starts with: built from its config, refilled from its record.

Apart from the daemon's module to keep it one job: which tables run the shuffle tests
(`floord.games.shuffle`), the watcher (`floord.table.shuffle_surveillance`) with the open
alerts of the last snapshot, and its shoes replayed from the journal so the shoe being
dealt when the daemon stopped goes on being compared with the same earlier shoes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from floord.analytics.shuffle_report import journal_shoe_events
from floord.games.registry import TableConfig
from floord.games.shuffle import shuffle_table
from floord.profile_sources import ProfileShelf
from floord.table.shuffle_surveillance import ShuffleSurveillance


def shuffle_watcher(
    table: TableConfig, profiles: ProfileShelf, saved: dict[str, Any] | None
) -> ShuffleSurveillance | None:
    """The table's shuffle watcher, not yet warmed up (`warm_up`); None when the table
    runs no shuffle tests (no shoe reads the cards, or its `shuffle_quality` is off)."""
    found = shuffle_table(table, profiles)
    if found is None:
        return None
    return ShuffleSurveillance(found.setup, found.shoes, saved)


def warm_up(watcher: ShuffleSurveillance, journal: Path, table: str, after: int = 0) -> int:
    """The watcher fed the table's recorded shoe events (those after seq `after`), one
    at a time; how many."""
    events = journal_shoe_events(journal, table, after)
    return watcher.warm_up((e.source, e.type, e.data) for e in events)
