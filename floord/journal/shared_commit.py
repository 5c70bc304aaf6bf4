"""Writes queued together share one transaction: one COMMIT, one fsync, for all of them.

Each table's runner already commits everything its turn caused in one transaction, but a
daemon serves many tables on one journal, and their commits queue on the journal's
thread behind whichever commit is waiting for the disk: at 200 tables at 4x real time
(`make bench-load`), more than half of the appends find others queued behind them.
Committed one by one, each would pay its own fsync and its own COMMIT, and wait for all
the fsyncs before it.

So a write that may share (`Write`) is taken by the journal's thread together with the
writes queued right behind it (up to `MOST`, stopping at the first job that is not a
`Write`: order is kept): one `BEGIN IMMEDIATE`, each write in a `SAVEPOINT` of its own,
one `COMMIT`.
- A write that fails is rolled back to its savepoint and its caller gets its own error;
  the others are not touched, as if each had had its own transaction.
- An error that ends the whole transaction (SQLite rolls it back itself on some I/O,
  disk-full or memory errors), or a COMMIT that fails: nothing of the group is on the
  record, and each write that had not failed on its own runs again alone, in order, as
  if the group had never been tried. So sharing a commit never fails a write that would
  have been committed alone (on a full disk, the small ones may still fit).
- Nothing is told before the COMMIT: a write's `committed` (its rows to the publishers'
  feeds) and its caller's future come after it, in the order the writes were handed in.
- A group whose `BEGIN` fails (another process holds the file past the busy wait) runs
  its writes one by one, each with its own `BEGIN`, as they would have run alone.
"""

from __future__ import annotations

import abc
import sqlite3
from collections.abc import Callable, Sequence
from typing import Protocol

from floord.journal.errors import rollback

# At most this many writes share a transaction: a bound on what one failed COMMIT undoes
# and on how long the first of them waits for the last (floord's own policy).
MOST = 64


class Settles(Protocol):
    """Where a job's outcome goes (`floord.journal.writer`)."""

    def set_running_or_notify_cancel(self) -> bool: ...
    def set_result(self, result: object) -> None: ...
    def set_exception(self, exc: BaseException) -> None: ...


class Write(abc.ABC):
    """A write that may share its transaction with the writes queued beside it.

    Called as any other job is (`job(conn)`), it runs in a transaction of its own."""

    @abc.abstractmethod
    def write(self, conn: sqlite3.Connection) -> object:
        """Do the work inside the transaction the caller opened; return the outcome.

        It may be called again after `failed`, when the transaction it was in was lost
        to another write's error: it must do the same work again from the start."""

    @abc.abstractmethod
    def failed(self, exc: BaseException) -> BaseException:
        """What the write did was rolled back because of `exc`: give back what it took
        (acknowledgements to write) and return the error its caller gets."""

    def committed(self) -> None:  # noqa: B027 (a write with nothing to do after is fine)
        """After the COMMIT, before the caller hears: the rows to the publishers' feeds."""

    def __call__(self, conn: sqlite3.Connection) -> object:
        try:
            conn.execute("BEGIN IMMEDIATE")
            result = self.write(conn)
            conn.execute("COMMIT")
        except BaseException as exc:
            rollback(conn)
            error = self.failed(exc)
            if error is exc:
                raise
            raise error from exc
        self.committed()
        return result


Job = tuple[Write, Settles]


def commit_together(
    conn: sqlite3.Connection, group: Sequence[Job], alone: Callable[[Write, Settles], None]
) -> None:
    """Run the writes of `group` in one transaction, settle each outcome after it
    (`alone` runs one write by itself, as the journal's thread runs any job)."""
    running = [(w, out) for w, out in group if out.set_running_or_notify_cancel()]
    if not running:
        return
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.Error:
        rollback(conn)
        for write, out in running:
            _run_alone(write, out, alone)
        return
    tried: list[tuple[object, BaseException | None]] = []  # (result, its own error)
    lost: BaseException | None = None
    for write, _ in running:
        try:
            conn.execute("SAVEPOINT part")
            result = write.write(conn)
            conn.execute("RELEASE part")
        except BaseException as exc:
            if not _undo_part(conn):
                write.failed(exc)  # its part went with the transaction: it goes again alone
                lost = exc
                break
            tried.append((None, write.failed(exc)))
        else:
            tried.append((result, None))
    if lost is None:
        try:
            conn.execute("COMMIT")
        except BaseException as exc:
            lost = exc
    if lost is not None:
        rollback(conn)
        for (write, _), (_, error) in zip(running, tried, strict=False):
            if error is None:
                write.failed(lost)  # undone with the rest: it goes again alone
    for index, (write, out) in enumerate(running):
        result, error = tried[index] if index < len(tried) else (None, None)
        if error is not None:
            out.set_exception(error)
        elif lost is not None:
            _run_alone(write, out, alone)
        else:
            write.committed()
            out.set_result(result)


def _undo_part(conn: sqlite3.Connection) -> bool:
    """Roll the failed part back to its savepoint; False if the transaction is gone."""
    if not conn.in_transaction:
        return False
    try:
        conn.execute("ROLLBACK TO part")
        conn.execute("RELEASE part")
    except sqlite3.Error:
        rollback(conn)
        return False
    return True


def _run_alone(write: Write, out: Settles, alone: Callable[[Write, Settles], None]) -> None:
    """`out` is running already: `alone` settles it with the write run by itself."""
    alone(write, _Started(out))


class _Started:
    """An outcome already marked running: not asked again whether it was cancelled."""

    __slots__ = ("_out",)

    def __init__(self, out: Settles) -> None:
        self._out = out

    def set_running_or_notify_cancel(self) -> bool:
        return True

    def set_result(self, result: object) -> None:
        self._out.set_result(result)

    def set_exception(self, exc: BaseException) -> None:
        self._out.set_exception(exc)
