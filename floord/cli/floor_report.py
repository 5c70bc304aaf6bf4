"""`floord report floor`: the command line's side of the floor report.

Where the events come from is the command line's business: an archive (`--archive URL`,
read through `floord.archive.reader`) or the boxes' journals (`--db`, each file read
read-only). The figures are computed by `floord.analytics.floor_report` from either.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from contextlib import ExitStack
from datetime import UTC, date, datetime
from typing import Any

from floord.analytics.floor_report.compute import TYPES
from floord.analytics.floor_report.sources import checked_events, journal_events
from floord.analytics.floor_report.summary import floor_report
from floord.analytics.floor_report.text import floor_csv, format_floor_report
from floord.archive.reader import open_archive
from floord.cli.report import Span
from floord.contract import parse_ts
from floord.system.extras import require_extra


def when(text: str | None, flag: str) -> datetime | None:
    """An ISO 8601 time with its zone, or a date (midnight UTC); else a ValueError."""
    if text is None:
        return None
    try:
        return parse_ts(text)
    except ValueError:
        pass
    try:
        day = date.fromisoformat(text)
    except ValueError:
        raise ValueError(
            f"{flag} {text!r}: an ISO 8601 time with its zone (2026-11-30T06:00:00Z) or a "
            "date (2026-11-30, midnight UTC) expected"
        ) from None
    return datetime(day.year, day.month, day.day, tzinfo=UTC)


def span_of(ns: argparse.Namespace) -> Span:
    """A wheel or dice report's --archive, --site, --from and --to (--since and --from
    are one: both given is an error)."""
    if ns.since is not None and ns.start is not None:
        raise ValueError("--since or --from, not both")
    if ns.archive is None and ns.site is not None:
        raise ValueError("--site reads the archive: give --archive URL")
    start, end = when(ns.start, "--from"), when(ns.end, "--to")
    if start is not None and end is not None and end <= start:
        raise ValueError(f"--to {ns.end} is not after --from {ns.start}")
    return Span(ns.archive, ns.site, start, end)


def _events(
    stack: ExitStack, ns: argparse.Namespace, end: datetime | None
) -> Iterator[dict[str, Any]]:
    if ns.archive and ns.db:
        raise ValueError("--archive or --db, not both")
    if ns.archive:
        reader = stack.enter_context(open_archive(ns.archive))
        # From each table's start: its state at --from is made of its events before it.
        events = reader.events(
            until=end, site=ns.site, table=ns.table, types=TYPES, tables_only=True
        )
        return checked_events(events, f"archive {ns.archive}:")
    if ns.db:
        return journal_events(ns.db, site=ns.site, table=ns.table)
    raise ValueError("where from? --archive URL or --db JOURNAL")


def run_floor_report(ns: argparse.Namespace) -> str:
    """Everything `floord report floor` does; returns the text to print. Bad input is a
    ValueError (an ArchiveError is one) for the command line to print."""
    if ns.png is not None:
        require_extra("report", "floord report floor --png (the text report needs nothing more)")
    start, end = when(ns.start, "--from"), when(ns.end, "--to")
    if start is not None and end is not None and end <= start:
        raise ValueError(f"--to {ns.end} is not after --from {ns.start}")
    with ExitStack() as stack:
        report = floor_report(_events(stack, ns, end), start, end)
    if ns.format == "json":
        text = json.dumps(report, indent=2, ensure_ascii=False)
    elif ns.format == "csv":
        text = floor_csv(report, ns.section)
    else:
        text = format_floor_report(report)
    if ns.png is not None:
        from floord.analytics.floor_report.chart import write_floor_chart

        write_floor_chart(report, ns.png)
        if ns.format == "text":
            text += f"\ncharts written to {ns.png}"
    return text
