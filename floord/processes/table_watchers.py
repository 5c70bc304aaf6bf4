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

from collections.abc import Callable
from pathlib import Path
from typing import Any

from floord.analytics.report import journal_results
from floord.analytics.stream_events import EventError
from floord.config.load import SurveillanceConfig
from floord.games import registry
from floord.games.definition import SHOE_FAMILY
from floord.journal.chain import Break
from floord.profile_sources import ProfileShelf
from floord.table import watch_state
from floord.table.surveillance import AlertKeeper, ResultAlerts, TableSurveillance


def table_watcher(
    table: registry.TableConfig,
    settings: SurveillanceConfig,
    profiles: ProfileShelf,
    journal: Path,
    saved: dict[str, Any] | None,
    breaks: list[Break],
    keep: Callable[[str, watch_state.KeptWatch], None] | None = None,
) -> AlertKeeper | None:
    """The live wheel-, dice-integrity or shuffle tests of a table, their windows refilled
    from the journal (`journal`, when it exists) and their open alerts restored from the
    last snapshot's (`saved`); for a table with a second source and no live tests, the
    alerts of its held results alone; None for a table with neither. A recorded event
    the refill cannot read is added to `breaks` (the table's start check halts it for
    its record) and the refill stops there: one table's damaged record is that table's
    halt, not a box that cannot start. The tests go on from where they were saved
    (`floord.table.watch_state`), replaying only the results, rolls or shoe events after
    it; `keep` is handed them when any were replayed."""
    held = ResultAlerts(saved) if getattr(table, "second_source", None) else None
    if not settings.enabled:
        return held
    definition = registry.definition_of(table)
    refill = journal.is_file()
    if SHOE_FAMILY in definition.families:
        from floord.processes import shuffle_start

        shuffle = shuffle_start.shuffle_watcher(table, profiles, saved)
        if shuffle is not None:
            if refill:
                after, taken = watch_state.taken_up(shuffle, journal, table.id)
                replayed = _refill(
                    table.id,
                    breaks,
                    lambda: shuffle_start.warm_up(shuffle, journal, table.id, after),
                )
                _replayed(table.id, "shoe events", replayed, after, taken, keep, shuffle)
            return shuffle
    if definition.dice_watch:
        from floord.analytics.dice_report import journal_rolls
        from floord.table.dice_surveillance import DiceSurveillance

        dice = registry.dice_setup(table, settings)
        if dice is not None:
            dice_watcher = DiceSurveillance(dice, saved)
            if refill:
                after, taken = watch_state.taken_up(dice_watcher, journal, table.id)
                in_play = dice_watcher.dice_at_table()
                rolls = journal_rolls(journal, table.id, None, after=after, dice_set=in_play)
                replayed = _refill(table.id, breaks, lambda: dice_watcher.warm_up_rolls(rolls))
                _replayed(table.id, "rolls", replayed, after, taken, keep, dice_watcher)
            return dice_watcher
    setup = registry.live_setup(table, settings)
    if setup is None:
        return held
    if not refill:
        return TableSurveillance(setup, saved)
    watcher = TableSurveillance(setup, saved)
    after, taken = watch_state.taken_up(watcher, journal, table.id)
    if not taken:  # a saved state that did not fit may have been half loaded
        watcher = TableSurveillance(setup, saved)
    results = journal_results(journal, table.id, None, after=after)
    replayed = _refill(table.id, breaks, lambda: watcher.warm_up(results, every=taken))
    _replayed(table.id, "results", replayed, after, taken, keep, watcher)
    return watcher


def _replayed(
    table: str,
    what: str,
    count: int | None,
    after: int,
    taken: bool,
    keep: Callable[[str, watch_state.KeptWatch], None] | None,
    watcher: watch_state.KeptWatch,
) -> None:
    """A refill that replayed `count` of `what` (None: the record could not be read):
    its line, and the tests handed to `keep`, so the next start replays none of them
    again."""
    if not count:
        return
    watch_state.replayed(table, what, count, after, taken)
    if keep is not None:
        keep(table, watcher)


def _refill(table: str, breaks: list[Break], warm_up: Callable[[], int]) -> int | None:
    """What `warm_up` returns; None when the record could not be read (a break)."""
    try:
        return warm_up()
    except EventError as exc:
        breaks.append(Break(table, exc.seq, "unreadable", f"the live tests' refill: {exc}"))
    except ValueError as exc:  # the journal itself could not be read for it
        breaks.append(Break(table, 0, "unreadable", f"the live tests' refill: {exc}"))
    return None
