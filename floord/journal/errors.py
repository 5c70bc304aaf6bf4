"""What a journal failure is called: the error every SQLite failure becomes, and the
halt code it gives the table (docs/journal.md, "When the journal cannot be written")."""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

DISK_FULL = "journal_disk_full"
FAILURE = "journal_failure"
# Not the storage: an event or snapshot that could not be built or encoded (a bug).
INTERNAL = "internal_error"


class JournalError(RuntimeError):
    """The journal could not record or read: the caller must halt the table.

    `code` is the halt reason the table gets: `journal_disk_full` when the disk (or the
    database's size limit) is full, `internal_error` when what was to be stored could not
    be built or encoded (the storage did not fail), else `journal_failure`.
    """

    def __init__(self, message: str, code: str = FAILURE) -> None:
        super().__init__(message)
        self.code = code


def failure_code(exc: BaseException) -> str:
    """`journal_disk_full` for SQLITE_FULL or ENOSPC, else `journal_failure`."""
    if isinstance(exc, JournalError):
        return exc.code
    if isinstance(exc, sqlite3.Error):
        code = getattr(exc, "sqlite_errorcode", None)
        if (isinstance(code, int) and code & 0xFF == sqlite3.SQLITE_FULL) or (
            "database or disk is full" in str(exc)
        ):
            return DISK_FULL
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
        return DISK_FULL
    return FAILURE


def fail(path: Path, doing: str, exc: BaseException) -> JournalError:
    """`exc`, met while `doing` something to the journal at `path`, as a JournalError."""
    return JournalError(f"journal {path}: {doing} failed: {exc}", failure_code(exc))


def rollback(db: sqlite3.Connection) -> None:
    """End an open transaction; a connection that cannot is already broken, and the
    error that broke it is the one worth reporting."""
    try:
        if db.in_transaction:
            db.execute("ROLLBACK")
    except sqlite3.Error:
        pass
