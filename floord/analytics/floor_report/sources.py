"""The tables' events read from journal files (`floord report floor --db`), as an
archive would give them: each table's own stream, read-only, in seq order.

A floor's boxes each keep a journal; a report over several of them reads each file's
table streams (never the device streams: no figure of the report is counted from them).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from floord.analytics.floor_report.compute import TYPES
from floord.analytics.stream_events import checked_event, stream_events
from floord.journal.errors import JournalError
from floord.journal.readers import stream_names


def journal_events(
    journals: Sequence[Path], *, site: str | None = None, table: str | None = None
) -> Iterator[dict[str, Any]]:
    """The events of the tables' streams of `journals` (of one site and table if given)
    of the types the report counts (`compute.TYPES`, as an archive is asked for them),
    read a batch at a time. An unreadable file or event is a ValueError naming it."""
    for path in journals:
        if not path.is_file():
            raise ValueError(f"no journal at {path}")
        try:
            streams = [s for s in stream_names(path) if "/" not in s]
        except JournalError as exc:
            raise ValueError(str(exc)) from exc
        for stream in streams:
            if table is not None and stream != table:
                continue
            for _, event in stream_events(path, stream, TYPES):
                if site is None or event.get("site") == site:
                    yield event


def checked_events(events: Iterable[dict[str, Any]], where: str) -> Iterator[dict[str, Any]]:
    """Events from elsewhere (an archive's rows), each checked as a journal's are
    (`checked_event`): a damaged one is a ValueError naming `where`, its table and seq."""
    for event in events:
        at = f"{where} {event.get('site')}/{event.get('table')} seq {event.get('seq')}"
        yield checked_event(event, at)
