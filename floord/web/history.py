"""The floor's archive as the console reads it: the History page's pages of events, the
archived acknowledgements, and whether the archive answers.

The archive (`floord archive`) is only read, through `floord.archive.reader` (SQLite
`mode=ro`, PostgreSQL in a read-only transaction). Each read opens its own connection in
a worker thread (`asyncio.to_thread`): nothing of it blocks the event loop, and a
connection is never shared between threads. At most `READS_AT_ONCE` reads run together,
so a room of browsers cannot crowd the database. An archive that cannot be read is a
message to the page and one log line when that changes, never a crash of the console.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import structlog

from floord.archive.reader import ArchiveError, ArchiveReader, Newest, open_archive
from floord.contract import Envelope, EventType, format_ts
from floord.web.history_query import HistoryQuery
from floord.web.views import event_line

READS_AT_ONCE = 4
# The acknowledgements are read back this far at start, then, every reread, this far: a
# range of the `ts` index, never a scan of the whole record for a rare type.
ACKS_FIRST_LOOKBACK = timedelta(days=7)
ACKS_LOOKBACK = timedelta(hours=1)
# The archive's tables (for the page's table list) are counted again after this long.
TABLES_KEPT_S = 300.0
T = TypeVar("T")


class History:
    """The console's archive: `url` (a SQLite file or PostgreSQL), of `sites` only (None:
    every site under the prefix)."""

    def __init__(self, url: str, sites: frozenset[str] | None) -> None:
        self.url = url
        self.sites = sites
        self._gate = asyncio.Semaphore(READS_AT_ONCE)
        self._tables: tuple[float, list[tuple[str, str]]] | None = None
        self._readable: bool | None = None
        self._log = structlog.get_logger("floord.web")

    async def _read(self, work: Callable[[ArchiveReader], T]) -> T:
        """`work` on a connection of its own, in a thread; ArchiveError when it fails."""

        def run() -> T:
            try:
                with open_archive(self.url) as reader:
                    return work(reader)
            except OSError as exc:  # the file's folder or the socket, not the database
                raise ArchiveError(f"archive: {exc.strerror or exc}") from exc

        async with self._gate:
            try:
                result = await asyncio.to_thread(run)
            except ArchiveError as exc:
                self._said(False, str(exc))
                raise
        self._said(True, None)
        return result

    def _said(self, readable: bool, why: str | None) -> None:
        """One log line when the archive stops or starts answering."""
        if readable != self._readable:
            self._readable = readable
            self._log.info("web.archive", readable=readable, detail=why)

    def _sites(self) -> list[str] | None:
        return sorted(self.sites) if self.sites is not None else None

    async def page(self, query: HistoryQuery) -> Newest:
        """One page of events, newest first, of `query`'s filters."""
        return await self._read(
            lambda reader: reader.newest(
                query.limit,
                query.offset,
                since=query.since,
                until=query.until,
                site=query.site,
                sites=self._sites(),
                table=query.table,
                types=[query.type] if query.type is not None else None,
            )
        )

    async def tables(self) -> list[tuple[str, str]]:
        """Every (site, table) the archive holds of the shown sites (kept a while: on a
        large archive the list costs a scan)."""
        now = time.monotonic()
        if self._tables is not None and now - self._tables[0] < TABLES_KEPT_S:
            return self._tables[1]
        found = await self._read(lambda reader: reader.tables())
        shown = [key for key in found if self.sites is None or key[0] in self.sites]
        self._tables = (now, shown)
        return shown

    async def acknowledgements(self, limit: int, since: datetime) -> list[dict[str, Any]]:
        """The newest `limit` acknowledgements of alerts on the shown sites, from `since`."""
        kinds = [EventType.SURVEILLANCE_ALERT_ACKNOWLEDGED.value]
        newest = await self._read(
            lambda reader: reader.newest(limit, 0, since=since, sites=self._sites(), types=kinds)
        )
        return newest.events

    async def follow_acks(
        self, merge: Callable[[list[dict[str, Any]]], int], limit: int, every_s: float
    ) -> None:
        """Hand `merge` the archive's acknowledgements of the last ACKS_FIRST_LOOKBACK,
        then of the last ACKS_LOOKBACK every `every_s`, until cancelled. An archive that
        does not answer is tried again next time (the live ones are still listed), with
        the first look back until one read succeeds."""
        lookback = ACKS_FIRST_LOOKBACK
        while True:
            # A failure is logged once by `_read`; the next round tries again.
            with contextlib.suppress(ArchiveError):
                merge(await self.acknowledgements(limit, datetime.now(UTC) - lookback))
                lookback = ACKS_LOOKBACK
            await asyncio.sleep(every_s)


def now_text() -> str:
    return format_ts(datetime.now(UTC))


def history_row(event: dict[str, Any]) -> dict[str, Any]:
    """One archived event as the History page shows it: words, never markup (the page
    puts each in as text). An envelope the console cannot read says so, with its type."""
    try:
        env = Envelope.from_json(json.dumps(event))
        if not isinstance(env.type, str) or not isinstance(env.source, str):
            raise TypeError("type and source must be strings")
        line = event_line(env)
    except (KeyError, TypeError, ValueError, AttributeError):
        return {
            "site": str(event.get("site", "?")),
            "table": str(event.get("table", "?")),
            "seq": event.get("seq") if isinstance(event.get("seq"), int) else None,
            "ts": str(event.get("ts", "")),
            "type": str(event.get("type", "?")),
            "family": "unknown",
            "source": str(event.get("source", "?")),
            "text": "an event this console cannot read",
            "rule": None,
        }
    return {"site": env.site, "table": env.table, **line}
