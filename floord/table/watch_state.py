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

A crash skips the clean stop's save, so the tests are also kept during play: the first
commit that fed them a result once `KEPT_DURING_PLAY_EVERY` has passed since they were
last kept carries them (`DuringPlay`), in the same transaction as its events, at the
head those events leave; a start after a crash replays at most that much play.

The wheel tests (Roulette, Big Six), the dice tests (Craps, Mini-Craps) and a card
table's shuffle tests are kept (`KeptWatch`).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import structlog

from floord.journal.chain import canonical_text
from floord.journal.readers import saved_watch
from floord.journal.store import Journal, JournalError
from floord.journal.watch_states import SavedWatch

NONE_SAVED = "none saved"
# floord's own policy, under no rule: how much play a start after a crash may have to
# replay through the live tests (a busy wheel spins about once a minute; keeping a
# wheel's tests at the default windows writes about 10 kB, 0.3 ms of the loop's time and
# 0.5 ms of the journal thread's).
KEPT_DURING_PLAY_EVERY = timedelta(minutes=5)


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


def replayed(table: str, what: str, count: int, after: int, taken: bool) -> None:
    """The line of a start that replayed `count` of the table's `what` (results, rolls,
    shoe events) through its live tests: those after seq `after` of a kept state taken
    up (`taken`), or the whole record. After a crash it says how much play the last keep
    missed (a start with nothing to replay says nothing: the caller's)."""
    log.info(
        "live tests replayed",
        table=table,
        what=what,
        count=count,
        after_seq=after if taken else None,
        taken_up=taken,
    )


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


class DuringPlay:
    """When a table's commit also keeps its live tests: `due` gives their canonical text
    for the commit about to be made (`floord.journal.append.Append`'s `watch`) when the
    turn fed the watcher (its `changes` moved) and `every` has passed on the table's
    clock since they were last kept; `kept` is told once that commit is on the record.
    A commit the journal refuses keeps nothing, and the next turn that feeds the tests
    tries again. A turn that feeds nothing costs one comparison."""

    def __init__(
        self, table: str, clock: Callable[[], datetime], every: timedelta = KEPT_DURING_PLAY_EVERY
    ) -> None:
        self._table = table
        self._clock = clock
        self._every = every
        # A start that replayed results kept the tests as they left it (one that
        # replayed none took them up, or had none to keep); play keeps them from here.
        self._kept_at = clock()
        # The watcher's `changes` at the last turn asked about.
        self._seen: int | None = None

    def due(self, watcher: object) -> str | None:
        """The text to keep with this commit, or None: no watcher whose tests are kept,
        nothing new for them, or not yet time."""
        changes = getattr(watcher, "changes", None)
        if changes is None or changes == self._seen:
            return None
        self._seen = changes
        if self._clock() - self._kept_at < self._every or not isinstance(watcher, KeptWatch):
            return None
        try:
            return canonical_text(watcher.watch_state())
        except Exception as exc:  # a keep spares a replay; it must never stop the commit
            log.warning("live tests not saved", table=self._table, error=repr(exc))
            self._kept_at = self._clock()  # said once an interval, not at every turn
            return None

    def kept(self) -> None:
        """The commit that carried them is on the record."""
        self._kept_at = self._clock()
