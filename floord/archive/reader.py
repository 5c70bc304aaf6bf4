"""The archive read back: what `floord report` reads of a floor's stored events.

The archive (`floord archive`) keeps every event of every box in one table,
`archive_events`, each row the envelope exactly as it was received (`body`) beside the
columns it is looked up by (site, stream, table, ts, type). A report never writes to the
record it reads, so the reader opens a SQLite archive `mode=ro` and a PostgreSQL archive
in a read-only transaction (and the deployment gives the report's role SELECT only:
docs/deployment.md). psycopg (the `archive` extra) is imported only for a PostgreSQL URL,
so a floor whose archive is a file needs nothing more.

Rows come in one order, whatever the database: ts, site, stream, epoch, seq. Events of
one stream keep their seq order (their ts never goes back), and two boxes' events at the
same microsecond always come out the same way, so a report computed twice is the same.
"""

from __future__ import annotations

import importlib.util
import sqlite3
from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any, NamedTuple
from urllib.parse import urlsplit

from floord.contract import format_ts
from floord.system.extras import missing_extra_message
from floord.untrusted import read_json

TABLE = "archive_events"
ORDER = "ORDER BY ts, site, stream, epoch, seq"
NEWEST_FIRST = "ORDER BY ts DESC, site DESC, stream DESC, epoch DESC, seq DESC"
# The most rows one `newest` call returns, and how deep it pages: a page of a browser's
# history, never a week of a floor at once.
NEWEST_MAX = 500
NEWEST_MAX_OFFSET = 100_000
# Rows fetched from the database at a time: a week of a floor is millions of events,
# never all in memory at once.
FETCH = 2000


class ArchiveError(ValueError):
    """The archive cannot be opened or read: one line that says which and why."""


def _sqlite_path(url: str) -> Path:
    if url.startswith("sqlite:///"):
        return Path(url[len("sqlite://") :])
    if url.startswith("sqlite:"):
        raise ArchiveError(f"archive {url!r}: a SQLite archive is sqlite:///<absolute path>")
    if "://" in url:
        raise ArchiveError(
            f"archive {_safe(url)}: postgresql://..., sqlite:///PATH or a file's path expected"
        )
    return Path(url)


def is_postgres(url: str) -> bool:
    return url.startswith(("postgresql://", "postgres://"))


def check_archive_url(url: str) -> Path | None:
    """The form of an archive's URL, read as `open_archive` reads it, without opening
    it: the SQLite file's path (None for PostgreSQL). ArchiveError says what is wrong:
    an empty URL, `sqlite:` without an absolute path, another scheme, a PostgreSQL URL
    without a host, or PostgreSQL without the `archive` extra."""
    if not url:
        raise ArchiveError("archive: an empty URL")
    if not is_postgres(url):
        return _sqlite_path(url)
    parts = urlsplit(url)
    if not (parts.hostname or parts.query):
        raise ArchiveError(
            f"archive {_safe(url)}: a postgresql://USER@HOST[:PORT]/DATABASE url expected"
        )
    if importlib.util.find_spec("psycopg") is None:
        raise ArchiveError(missing_extra_message("archive", "a PostgreSQL archive"))
    return None


def _where(
    since: datetime | None,
    until: datetime | None,
    site: str | None,
    table: str | None,
    types: Sequence[str] | None,
    tables_only: bool,
    mark: str,
    ts_value: Any,
    sites: Sequence[str] | None = None,
) -> tuple[str, list[Any]]:
    """The WHERE clause and its parameters; `mark` is the driver's placeholder and
    `ts_value` turns a datetime into what the ts column compares with."""
    terms: list[str] = []
    params: list[Any] = []
    if since is not None:
        terms.append(f"ts >= {mark}")
        params.append(ts_value(since))
    if until is not None:
        terms.append(f"ts < {mark}")
        params.append(ts_value(until))
    if site is not None:
        terms.append(f"site = {mark}")
        params.append(site)
    if sites is not None:
        _one_of("site", sites, mark, terms, params)
    if table is not None:
        terms.append(f"table_id = {mark}")
        params.append(table)
    if types is not None:
        _one_of("type", types, mark, terms, params)
    if tables_only:
        terms.append("device IS NULL")
    return (" WHERE " + " AND ".join(terms) if terms else ""), params


class Newest(NamedTuple):
    """A page of the archive, newest first, and whether older events follow it."""

    events: list[dict[str, Any]]
    more: bool


class ArchiveReader:
    """One open archive, read-only. Use as a context manager; `events` streams rows."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._pg = is_postgres(url)
        self._conn: Any = self._open_postgres(url) if self._pg else self._open_sqlite(url)
        self._check_table()

    # ----- opening ---------------------------------------------------------------

    @staticmethod
    def _open_sqlite(url: str) -> sqlite3.Connection:
        path = _sqlite_path(url)
        if not path.is_file():
            raise ArchiveError(f"archive {url!r}: no such file {path}")
        try:
            return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=5.0)
        except sqlite3.Error as exc:
            raise ArchiveError(f"archive {url!r}: cannot open read-only: {exc}") from exc

    @staticmethod
    def _open_postgres(url: str) -> Any:
        if importlib.util.find_spec("psycopg") is None:
            raise ArchiveError(missing_extra_message("archive", "a PostgreSQL archive"))
        import psycopg

        try:
            conn = psycopg.connect(url, connect_timeout=10)
            conn.read_only = True
        except psycopg.Error as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise ArchiveError(f"archive {_safe(url)}: cannot connect: {first}") from exc
        return conn

    def _check_table(self) -> None:
        try:
            self._fetch_one(f"SELECT 1 FROM {TABLE} LIMIT 1", [])
        except ArchiveError:
            self.close()
            raise

    # ----- reading ---------------------------------------------------------------

    def _errors(self) -> tuple[type[BaseException], ...]:
        if self._pg:
            import psycopg

            return (psycopg.Error,)
        return (sqlite3.Error,)

    def _fail(self, exc: BaseException) -> ArchiveError:
        words = str(exc).strip().splitlines()
        return ArchiveError(f"archive {_safe(self.url)}: {words[0] if words else exc!r}")

    def _fetch_one(self, sql: str, params: list[Any]) -> Any:
        try:
            cur = self._conn.execute(sql, params)
            row = cur.fetchone()
        except self._errors() as exc:
            self._rollback()
            raise self._fail(exc) from exc
        return row

    def _rollback(self) -> None:
        if self._pg:
            self._conn.rollback()

    def _select(self, columns: str, **filters: Any) -> Iterator[tuple[Any, ...]]:
        mark = "%s" if self._pg else "?"
        where, params = _where(mark=mark, ts_value=self._ts_value, **filters)
        sql = f"SELECT {columns} FROM {TABLE}{where} {ORDER}"
        try:
            if self._pg:
                with self._conn.cursor(name="floord_report") as cur:
                    cur.itersize = FETCH
                    cur.execute(sql, params)
                    yield from cur
                self._conn.rollback()  # end the read-only transaction
            else:
                cur = self._conn.execute(sql, params)
                while rows := cur.fetchmany(FETCH):
                    yield from rows
        except self._errors() as exc:
            self._rollback()
            raise self._fail(exc) from exc

    def _ts_value(self, when: datetime) -> Any:
        # PostgreSQL compares instants; the SQLite column holds the envelope's own text,
        # which sorts as time does (one form: UTC, microseconds, `Z`).
        return when if self._pg else format_ts(when)

    def events(
        self,
        *,
        since: datetime | None = None,
        until: datetime | None = None,
        site: str | None = None,
        table: str | None = None,
        types: Sequence[str] | None = None,
        tables_only: bool = False,
    ) -> Iterator[dict[str, Any]]:
        """The stored envelopes from `since` (inclusive) to `until` (exclusive), of one
        site and table if given, of `types` if given, only the tables' own streams with
        `tables_only` (no device stream), in the archive's order."""
        rows = self._select(
            "body, site, stream, seq",
            since=since,
            until=until,
            site=site,
            table=table,
            types=types,
            tables_only=tables_only,
        )
        for body, row_site, stream, seq in rows:
            yield self._event(body, row_site, stream, seq)

    def count(self, **filters: Any) -> int:
        """How many events the archive holds (of the same filters as `events`)."""
        mark = "%s" if self._pg else "?"
        base = {
            "since": None,
            "until": None,
            "site": None,
            "table": None,
            "types": None,
            "tables_only": False,
            **filters,
        }
        where, params = _where(mark=mark, ts_value=self._ts_value, **base)
        row = self._fetch_one(f"SELECT count(*) FROM {TABLE}{where}", params)
        self._rollback()
        return int(row[0])

    def newest(
        self,
        limit: int,
        offset: int = 0,
        *,
        since: datetime | None = None,
        until: datetime | None = None,
        site: str | None = None,
        sites: Sequence[str] | None = None,
        table: str | None = None,
        types: Sequence[str] | None = None,
    ) -> Newest:
        """Up to `limit` (at most NEWEST_MAX) stored envelopes, newest first, after the
        first `offset` (at most NEWEST_MAX_OFFSET) of the same filters as `events`;
        `sites` keeps only those sites' events. A page, never the whole record: a
        browser asks for the next one."""
        if not 1 <= limit <= NEWEST_MAX:
            raise ValueError(f"limit: 1 to {NEWEST_MAX} expected, found {limit}")
        if not 0 <= offset <= NEWEST_MAX_OFFSET:
            raise ValueError(f"offset: 0 to {NEWEST_MAX_OFFSET} expected, found {offset}")
        mark = "%s" if self._pg else "?"
        where, params = _where(
            since,
            until,
            site,
            table,
            types,
            False,
            mark=mark,
            ts_value=self._ts_value,
            sites=sites,
        )
        sql = (
            f"SELECT body, site, stream, seq FROM {TABLE}{where} {NEWEST_FIRST} "
            f"LIMIT {mark} OFFSET {mark}"
        )
        try:
            rows = self._conn.execute(sql, [*params, limit + 1, offset]).fetchall()
        except self._errors() as exc:
            self._rollback()
            raise self._fail(exc) from exc
        self._rollback()
        events = [self._event(*row) for row in rows[:limit]]
        return Newest(events, len(rows) > limit)

    def _event(self, body: Any, site: str, stream: str, seq: int) -> dict[str, Any]:
        try:
            event = read_json(body)
        except ValueError as exc:
            raise ArchiveError(
                f"archive {_safe(self.url)}: {site}/{stream} seq {seq} is not JSON"
            ) from exc
        if not isinstance(event, dict):
            raise ArchiveError(
                f"archive {_safe(self.url)}: {site}/{stream} seq {seq} is not an event"
            )
        return event

    def tables(self) -> list[tuple[str, str]]:
        """Every (site, table) the archive holds events of, sorted."""
        sql = f"SELECT DISTINCT site, table_id FROM {TABLE} ORDER BY site, table_id"
        try:
            rows = self._conn.execute(sql).fetchall()
        except self._errors() as exc:
            self._rollback()
            raise self._fail(exc) from exc
        self._rollback()
        return [(str(s), str(t)) for s, t in rows]

    # ----- closing ---------------------------------------------------------------

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> ArchiveReader:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _safe(url: str) -> str:
    """The URL as a message may show it: a PostgreSQL password is never printed."""
    if not is_postgres(url) or "@" not in url:
        return repr(url)
    scheme, rest = url.split("://", 1)
    who, where = rest.rsplit("@", 1)
    user = who.split(":", 1)[0]
    return repr(f"{scheme}://{user}@{where}")


def open_archive(url: str) -> ArchiveReader:
    """The archive at `url`: `postgresql://...` (or `postgres://...`), `sqlite:///path`,
    or a bare path to a SQLite file. An archive that cannot be opened, or holds no
    `archive_events` table, is an ArchiveError."""
    check_archive_url(url)
    return ArchiveReader(url)


def _one_of(
    column: str, values: Sequence[str], mark: str, terms: list[str], params: list[Any]
) -> None:
    """`column` is one of `values`; none given matches nothing (a filter the viewer may
    not widen: an empty list of sites is no site, never every site)."""
    if not values:
        terms.append("1 = 0")
        return
    terms.append(f"{column} IN ({', '.join([mark] * len(values))})")
    params.extend(values)
