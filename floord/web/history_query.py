"""What a browser may ask the History page for, checked before the archive is touched.

Every parameter of `/api/history` comes from a browser and is checked here: the site and
table by floord's id forms, the type by the contract's event types, the times as ISO
8601 with their zone (or a date, midnight UTC), the page's size and depth bounded. A bad
one is a `QueryError` whose message the browser shows; the archive never sees it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime

from floord.archive.reader import NEWEST_MAX_OFFSET
from floord.config.tables import ID_PATTERN, ID_WORDS
from floord.contract import EventType

PAGE_DEFAULT = 50
PAGE_MAX = 200
EVENT_TYPES = frozenset(t.value for t in EventType)
KEYS = frozenset({"site", "table", "type", "from", "to", "limit", "offset"})
_ID = re.compile(ID_PATTERN)
_SITE = re.compile(r"^[^/+#\s]{1,64}$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class QueryError(ValueError):
    """A parameter the History page cannot use: one line naming it and what it expects."""


@dataclass(frozen=True)
class HistoryQuery:
    """One page of a table's (or the floor's) archived events, newest first."""

    site: str | None = None
    table: str | None = None
    type: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    limit: int = PAGE_DEFAULT
    offset: int = 0


def parse_time(key: str, text: str) -> datetime:
    """`2026-12-01` (midnight UTC) or an ISO 8601 time with its zone (`Z`, `+01:00`)."""
    if len(text) > 40:
        raise QueryError(f"{key}: an ISO 8601 time expected, found {len(text)} characters")
    try:
        if _DATE.match(text):
            day = date.fromisoformat(text)
            return datetime(day.year, day.month, day.day, tzinfo=UTC)
        when = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise QueryError(
            f"{key}: a date (2026-12-01) or a time with its zone "
            f"(2026-12-01T18:00:00Z) expected, found {text!r}"
        ) from None
    if when.tzinfo is None:
        raise QueryError(
            f"{key}: a time with its zone (Z or +HH:MM) expected, found {text!r} without one"
        )
    return when.astimezone(UTC)


def _number(key: str, text: str, low: int, high: int) -> int:
    if not text.isdigit() or len(text) > 7 or not low <= int(text) <= high:
        raise QueryError(f"{key}: a whole number from {low} to {high} expected, found {text!r}")
    return int(text)


def parse_query(params: Mapping[str, str], sites: frozenset[str] | None) -> HistoryQuery:
    """The query a browser's parameters ask for; `sites` (None: every site) are the
    sites this console shows, the only ones it reads back."""
    unknown = sorted(set(params) - KEYS)
    if unknown:
        raise QueryError(
            f"{unknown[0][:40]!r}: not a History parameter "
            f"(site, table, type, from, to, limit, offset expected)"
        )
    values = {key: params[key] for key in KEYS if params.get(key)}
    site = values.get("site")
    if site is not None:
        if not _SITE.match(site):
            raise QueryError(f"site: a site's id expected, found {site[:64]!r}")
        if sites is not None and site not in sites:
            raise QueryError(f"site: a site this console shows expected, found {site!r}")
    table = values.get("table")
    if table is not None and not _ID.match(table):
        raise QueryError(f"table: {ID_WORDS} expected, found {table[:64]!r}")
    kind = values.get("type")
    if kind is not None and kind not in EVENT_TYPES:
        raise QueryError(f"type: an event type of docs/contract.md expected, found {kind[:64]!r}")
    since = parse_time("from", values["from"]) if "from" in values else None
    until = parse_time("to", values["to"]) if "to" in values else None
    if since is not None and until is not None and since >= until:
        raise QueryError("from: a time before `to` expected")
    limit = _number("limit", values["limit"], 1, PAGE_MAX) if "limit" in values else PAGE_DEFAULT
    offset = _number("offset", values["offset"], 0, NEWEST_MAX_OFFSET) if "offset" in values else 0
    return HistoryQuery(site, table, kind, since, until, limit, offset)
