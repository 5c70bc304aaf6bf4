"""The History page's API: `/api/history` (a page of archived events) and
`/api/history/filters` (the tables the archive holds, the event types), present only
when the console's config names an `archive`.

A bad parameter is a 400 with its one-line reason; an archive that cannot be read is a
503 saying so; neither is ever a traceback. The page is pinned to the time of its first
answer (`until`): its next pages count back from the same newest event, however many
arrive meanwhile.
"""

from __future__ import annotations

from dataclasses import replace

from aiohttp import web

from floord.archive.reader import ArchiveError
from floord.web.history import History, history_row, now_text
from floord.web.history_query import EVENT_TYPES, QueryError, parse_query, parse_time

HISTORY: web.AppKey[History] = web.AppKey("history", History)


def _problem(status: int, message: str) -> web.Response:
    return web.json_response({"error": message}, status=status)


async def history_events(request: web.Request) -> web.Response:
    history = request.app[HISTORY]
    keys = [key for key, _ in request.query.items()]
    if len(keys) != len(set(keys)):
        twice = next(k for k in keys if keys.count(k) > 1)
        return _problem(400, f"{twice[:40]!r}: once expected, found it more than once")
    try:
        query = parse_query(request.query, history.sites)
    except QueryError as exc:
        return _problem(400, str(exc))
    until_text = request.query.get("to") or now_text()
    if query.until is None:
        until = parse_time("to", until_text)
        if query.since is not None and query.since >= until:
            return _problem(400, "from: a time before now expected")
        query = replace(query, until=until)
    try:
        page = await history.page(query)
    except ArchiveError as exc:
        return _problem(503, f"the archive cannot be read now: {exc}")
    return web.json_response(
        {
            "events": [history_row(event) for event in page.events],
            "more": page.more,
            "offset": query.offset,
            "limit": query.limit,
            "until": until_text,
        }
    )


async def history_filters(request: web.Request) -> web.Response:
    """What the page's filters offer: the tables the archive holds, the event types."""
    history = request.app[HISTORY]
    if request.query:
        return _problem(400, "no parameters expected")
    try:
        tables = await history.tables()
    except ArchiveError as exc:
        return _problem(503, f"the archive cannot be read now: {exc}")
    return web.json_response(
        {
            "tables": [{"site": s, "table": t} for s, t in tables],
            "types": sorted(EVENT_TYPES),
        }
    )


def add_history(app: web.Application, history: History) -> None:
    app[HISTORY] = history
    app.router.add_get("/api/history", history_events)
    app.router.add_get("/api/history/filters", history_filters)
