"""Config checks of where the journal lives, made by `floord check` before `run` opens it.

`floord run` opens (and creates) the journal file, its WAL files and, for remote
adapters, their own journals beside it. A path under a regular file, a folder the
daemon cannot write, or a file that is not a floord journal would stop the daemon at
start; these checks name the key and what was found instead. They only look: nothing
is created or changed. What can still change between check and run (a folder made
read-only after the check) `floord run` reports in one line (`floord.cli.main`).
"""

from __future__ import annotations

import os
from pathlib import Path

from floord.journal.lock import lock_path
from floord.journal.readers import ReadOnlyFailed, read_schema
from floord.journal.store import SCHEMA_VERSION

SQLITE_HEADER = b"SQLite format 3\x00"


def _nearest_existing(path: Path) -> Path:
    """The path itself or its closest ancestor that exists (lstat: a dangling link counts)."""
    current = path
    while not os.path.lexists(current) and current != current.parent:
        current = current.parent
    return current


def _folder_problem(folder: Path) -> str | None:
    """Why the daemon could not create files in `folder` (or the folders down to it)."""
    there = _nearest_existing(folder)
    if not there.is_dir():
        kind = "a regular file" if there.is_file() else "not a folder"
        return f"a path under a folder expected, found {str(there)!r} ({kind})"
    if not os.access(there, os.W_OK | os.X_OK):
        return f"a folder floord can write expected, found {str(there)!r} (not writable)"
    return None


def _file_problem(journal: Path) -> str | None:
    """An existing journal: a readable, writable SQLite file floord can use."""
    if not journal.is_file():
        return f"a journal file expected, found {str(journal)!r} (not a regular file)"
    if not os.access(journal, os.R_OK | os.W_OK):
        return f"a journal file floord can read and write expected, found {str(journal)!r}"
    try:
        with journal.open("rb") as handle:
            header = handle.read(len(SQLITE_HEADER))
    except OSError as exc:
        return f"a readable journal file expected, found {str(journal)!r} ({exc.strerror})"
    if not header:
        return None  # an empty file: SQLite makes it a new journal
    if header != SQLITE_HEADER:
        return f"a floord journal (SQLite) expected, found {str(journal)!r} (another kind of file)"
    return _version_problem(journal)


def _version_problem(journal: Path) -> str | None:
    """A schema this floord can open or migrate (not a newer floord's)."""
    try:
        schema = read_schema(journal)
    except ReadOnlyFailed as exc:
        can = "open" if exc.opening else "read"
        return f"a journal floord can {can} expected, found {str(journal)!r} ({exc.reason})"
    if "meta" not in schema.tables:
        return None if not schema.tables else _foreign(journal)
    version = schema.version
    if version is None and schema.has_events:
        return (
            f"a floord journal with its schema version expected, found {str(journal)!r} "
            "(it holds events but no version: edited?)"
        )
    if version is not None and (not str(version).isdigit() or int(version) > SCHEMA_VERSION):
        return (
            f"a journal of schema version {SCHEMA_VERSION} or older expected, found "
            f"{str(journal)!r} at version {version!r} (written by a newer floord?)"
        )
    return None


def _foreign(journal: Path) -> str:
    return f"a floord journal expected, found {str(journal)!r} (a SQLite file without its tables)"


def _companion_problem(journal: Path) -> str | None:
    """The files `run` opens beside the journal (its lock, SQLite's WAL and shared
    memory): each, where it exists, must be a regular file, or `run` would refuse it."""
    for companion in (lock_path(journal), *(Path(f"{journal}{s}") for s in ("-wal", "-shm"))):
        if os.path.lexists(companion) and not (companion.is_file() and not companion.is_symlink()):
            return f"a regular file or nothing expected at {str(companion)!r}, found another kind"
    return None


def journal_problems(path: Path, key: str, journal: Path) -> list[str]:
    """The journal path as `floord run` will open it (relative to the config's folder)."""
    where = Path(os.path.abspath(journal if journal.is_absolute() else path.parent / journal))
    if os.path.lexists(where):
        problem = _file_problem(where) or _companion_problem(where)
        if problem is None and not os.access(where.parent, os.W_OK | os.X_OK):
            # The WAL and shared-memory files are made beside the journal at each open.
            problem = f"a folder floord can write expected, found {str(where.parent)!r}"
    else:
        problem = _folder_problem(where.parent)
    return [f"{path}: {key}: {problem}"] if problem else []
