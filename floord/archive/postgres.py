"""The archive in PostgreSQL (psycopg 3, the `archive` extra): a floor's many boxes.

psycopg is imported only here, and only when the config names a `postgresql://`
database: a box or a demo on SQLite needs nothing more installed. The batch's events go
in with `executemany` (psycopg pipelines it: one round trip for the lot) and one commit.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from floord.archive.store import ArchiveDatabaseError, Store
from floord.system.extras import MissingExtra

SCHEMES = ("postgresql", "postgres")


def require_psycopg() -> None:
    """One line naming the extra when psycopg is not installed."""
    if importlib.util.find_spec("psycopg") is None:
        raise MissingExtra(
            "floord archive on PostgreSQL needs floord's 'archive' extra (psycopg is not "
            "installed): pip install 'floord[archive]'"
        )


def redacted(url: str) -> str:
    """The URL without its password, for the logs and messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


class PostgresStore(Store):
    backend = "postgresql"

    def __init__(self, url: str, *, password: str | None = None, timeout_s: int = 10) -> None:
        require_psycopg()
        import psycopg

        self._psycopg = psycopg
        self.url = url
        try:
            self._db = psycopg.connect(url, password=password, connect_timeout=timeout_s)
        except psycopg.Error as exc:
            raise ArchiveDatabaseError(
                f"the archive database {redacted(url)} cannot be reached: {_line(exc)}"
            ) from exc

    @property
    def where(self) -> str:
        return redacted(self.url)

    def _execute(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        try:
            cursor = self._db.execute(sql.replace("?", "%s"), tuple(params))
            return cursor.fetchall() if cursor.description is not None else []
        except self._psycopg.Error as exc:
            raise ArchiveDatabaseError(f"{self.where}: {_line(exc)}") from exc

    def _executemany(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        try:
            with self._db.cursor() as cursor:
                cursor.executemany(sql.replace("?", "%s"), rows)
        except self._psycopg.Error as exc:
            raise ArchiveDatabaseError(f"{self.where}: {_line(exc)}") from exc

    def _commit(self) -> None:
        try:
            self._db.commit()
        except self._psycopg.Error as exc:
            raise ArchiveDatabaseError(f"{self.where}: {_line(exc)}") from exc

    def _rollback(self) -> None:
        try:
            self._db.rollback()
        except self._psycopg.Error:
            return

    def close(self) -> None:
        try:
            self._db.close()
        except self._psycopg.Error:
            return

    def time_value(self, text: str | None, when: datetime) -> Any:
        return when


def _line(exc: Exception) -> str:
    """psycopg's message on one line."""
    return " ".join(str(exc).split()) or type(exc).__name__
