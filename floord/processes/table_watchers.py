"""The live tests a table starts with, and only the code of the kind it runs.

A table runs at most one kind of live test: the shuffle tests (a card game whose dealing
shoe reads the cards), the dice tests (Craps, Mini-Craps) or the wheel tests (Roulette,
Big Six); a table with a second source and none of them keeps the alerts of its held
results. This is the boundary where a daemon pays for a kind of test: the shuffle's and
the dice's watchers, statistics and journal readers are imported here when a table of
that kind starts, not with the daemon, so a box of roulette tables (the common box)
loads neither, in its start or its memory (`tests/test_run_imports_system.py`). The
wheel's tests come with every daemon (`floord.table.surveillance` also keeps the held
results' alerts).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from floord.analytics.report import journal_results
from floord.config.load import SurveillanceConfig
from floord.games import registry
from floord.games.definition import SHOE_FAMILY
from floord.profile_sources import ProfileShelf
from floord.table.surveillance import AlertKeeper, ResultAlerts, TableSurveillance


def table_watcher(
    table: registry.TableConfig,
    settings: SurveillanceConfig,
    profiles: ProfileShelf,
    journal: Path,
    saved: dict[str, Any] | None,
) -> AlertKeeper | None:
    """The live wheel-, dice-integrity or shuffle tests of a table, their windows refilled
    from the journal (`journal`, when it exists) and their open alerts restored from the
    last snapshot's (`saved`); for a table with a second source and no live tests, the
    alerts of its held results alone; None for a table with neither."""
    held = ResultAlerts(saved) if getattr(table, "second_source", None) else None
    if not settings.enabled:
        return held
    definition = registry.definition_of(table)
    if SHOE_FAMILY in definition.families:
        from floord.processes.shuffle_start import shuffle_watcher

        shuffle = shuffle_watcher(table, profiles, journal, saved)
        if shuffle is not None:
            return shuffle
    if definition.dice_watch:
        from floord.analytics.dice_report import journal_rolls
        from floord.table.dice_surveillance import DiceSurveillance

        dice = registry.dice_setup(table, settings)
        if dice is not None:
            dice_watcher = DiceSurveillance(dice, saved)
            if journal.is_file():
                dice_watcher.warm_up_rolls(journal_rolls(journal, table.id, None))
            return dice_watcher
    setup = registry.live_setup(table, settings)
    if setup is None:
        return held
    watcher = TableSurveillance(setup, saved)
    if journal.is_file():
        watcher.warm_up(journal_results(journal, table.id, None))
    return watcher
