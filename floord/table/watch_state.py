"""A table's live tests, taken up at a start from where they were saved.

The tests' windows are a function of every result (roll, card) on the table's record;
rebuilding them by replaying the record takes a start time in proportion to it (a month
of a busy wheel: about 2 s a table, every table in turn). So the daemon saves them beside
the record (`floord.journal.watch_states`): when it stops cleanly, after the table's
`daemon.stopped`, and at a start that had results to replay. A start takes the saved
state when it is whole, still on the table's chain and kept under the same settings,
and replays only the results after it, each through every test: the tests are then
what they were when the last result was decided, alarms and counts included. Anything
else (none saved, a settings change, a record pruned or cut back, an edited row) is a
replay of the whole record, with one line saying why.

The wheel tests (Roulette, Big Six), the dice tests (Craps, Mini-Craps) and a card
table's shuffle tests are kept (`KeptWatch`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import structlog

from floord.journal.readers import saved_watch
from floord.journal.store import Journal, JournalError
from floord.journal.watch_states import SavedWatch

NONE_SAVED = "none saved"


@runtime_checkable
class KeptWatch(Protocol):
    """A watcher whose tests can be saved and taken up (`TableSurveillance`,
    `DiceSurveillance`, `ShuffleSurveillance`)."""

    def watch_state(self) -> dict[str, Any]: ...

    def resume(self, state: Any) -> None: ...


log = structlog.get_logger("floord.watch_state")


def taken_up(watcher: KeptWatch, journal: Path, table: str) -> tuple[int, bool]:
    """Load the table's saved tests into `watcher`: (the seq to replay results after,
    whether it was taken). When it was not, `resume` may have got half way: the caller
    builds the watcher again."""
    kept = saved_watch(journal, table)
    if isinstance(kept, SavedWatch):
        try:
            watcher.resume(kept.state)
        except ValueError as exc:
            kept = f"it does not fit the tests: {exc}"
        else:
            return kept.after_seq, True
    if kept != NONE_SAVED:
        log.info("live tests refilled from the whole record", table=table, reason=kept)
    return 0, False


def save(journal: Journal, table: str, watcher: KeptWatch) -> None:
    """Keep the tests as they are now, at the table stream's head (the caller's thread
    waits for the journal's). A journal that cannot take it costs the next start its
    replay, nothing else: one line, and the start goes on."""
    try:
        journal.save_watch_state(table, watcher.watch_state())
    except JournalError as exc:
        log.warning("live tests not saved", table=table, error=str(exc))


async def save_at_stop(journal: Journal, table: str, watcher: KeptWatch) -> None:
    """`save`, awaited: the clean stop, after the table's `daemon.stopped`."""
    try:
        await journal.save_watch_state_async(table, watcher.watch_state())
    except JournalError as exc:
        log.warning("live tests not saved", table=table, error=str(exc))
