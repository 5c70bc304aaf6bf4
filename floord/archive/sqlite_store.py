"""The archive on a SQLite file: one box, or the demo, with nothing to install.

WAL mode with `synchronous=FULL`: a committed batch is on the disk before the writer
says so, so a crash or power loss never takes back an event the archive counted as
held (and the next start asks for what it had not committed).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from floord.archive.store import ArchiveDatabaseError, Store
from floord.contract import format_ts


class SqliteStore(Store):
    backend = "sqlite"

    def __init__(self, path: Path, *, read_only: bool = False) -> None:
        self.path = path
        if path.exists() and not path.is_file():
            # A FIFO would block the open forever, a folder fail later and less clearly.
            raise ArchiveDatabaseError(f"the archive file {path} is not a regular file")
        try:
            if read_only:
                self._db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5.0)
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                self._db = sqlite3.connect(path, timeout=30.0, check_same_thread=False)
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=FULL")
        except (sqlite3.Error, OSError) as exc:
            raise ArchiveDatabaseError(f"the archive file {path} cannot be opened: {exc}") from exc

    @property
    def where(self) -> str:
        return f"sqlite:{self.path}"

    def _execute(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        try:
            return self._db.execute(sql, tuple(params)).fetchall()
        except sqlite3.Error as exc:
            raise ArchiveDatabaseError(f"{self.where}: {exc}") from exc

    def _executemany(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        try:
            self._db.executemany(sql, rows)
        except sqlite3.Error as exc:
            raise ArchiveDatabaseError(f"{self.where}: {exc}") from exc

    def _commit(self) -> None:
        try:
            self._db.commit()
        except sqlite3.Error as exc:
            raise ArchiveDatabaseError(f"{self.where}: {exc}") from exc

    def _rollback(self) -> None:
        try:
            self._db.rollback()
        except sqlite3.Error:
            return

    def close(self) -> None:
        self._db.close()

    def time_value(self, text: str | None, when: datetime) -> Any:
        return text if text is not None else format_ts(when)

    def bool_value(self, value: bool) -> Any:
        return 1 if value else 0
