"""`floord report wheel`: the command line's side of a wheel report.

Apart from `floord/analytics/report.py` so that the statistics never import the config
(the config's cross-checks build the same setup, so the other way round would be a
cycle): this module reads the config, the analytics compute.

The running watch is tuned as the table's live surveillance is (the config's
`surveillance:` window, level and the game's sectors setting) unless the command line
says otherwise, so that the report replays exactly the alerts the table raised; the
report says where each setting came from.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from floord.analytics.report import (
    RESULT_TYPES,
    WheelResult,
    format_report,
    read_results,
    results_of,
    wheel_report,
)
from floord.archive.reader import open_archive
from floord.config.load import LoadedConfig, load_config
from floord.contract import parse_ts
from floord.games.registry import definition_of, setup_for_table
from floord.system.extras import require_extra


def run_wheel_report(
    config_path: Path,
    table: str,
    since: str | None,
    png: Path | None,
    *,
    window: int | None = None,
    level: float | None = None,
    sectors: int | None = None,
    span: Span | None = None,
) -> str:
    """Everything `floord report wheel` does; returns the text to print.

    Bad input (an unknown table, a table without a wheel, a bad --since, a setting the
    wheel cannot run, an unreadable journal) is a ValueError, KeyError or ConfigError
    for the command line to print.
    """
    if png is not None:
        require_extra("report", "floord report wheel --png (the text report needs nothing more)")
    report = table_report(
        config_path, table, since, window=window, level=level, sectors=sectors, span=span
    )
    text = format_report(table, report)
    if png is not None:
        from floord.analytics.report_chart import write_chart

        write_chart(table, report, png)
        text += f"\nchart written to {png}"
    return text


@dataclass(frozen=True)
class Span:
    """Where the results come from and up to when: the box's journal (no `archive`), or
    the floor's archive, of `site` (None: the config's site); `start` is --from."""

    archive: str | None = None
    site: str | None = None
    start: datetime | None = None
    end: datetime | None = None


def archive_events(
    url: str, site: str, table: str, types: tuple[str, ...], end: datetime | None
) -> list[dict[str, Any]]:
    """One table's events of `types` from the archive, from its start up to `end`: every
    box and day the archive holds of it."""
    with open_archive(url) as reader:
        rows = reader.events(until=end, site=site, table=table, types=types, tables_only=True)
        return list(rows)


def chosen_setting(given: Any, flag: str, live: Any, key: str) -> tuple[Any, str]:
    """A report setting and where it came from: the command line's `flag` when given
    (not None), else the table's live `surveillance.<key>`."""
    return (given, flag) if given is not None else (live, f"surveillance.{key}")


def wheel_results(
    loaded: LoadedConfig, table: str, start: datetime | None, span: Span
) -> list[WheelResult]:
    if span.archive is None:
        return read_results(loaded.journal_path, table, start, span.end)
    site = span.site or loaded.config.site
    events = archive_events(span.archive, site, table, RESULT_TYPES, span.end)
    return results_of(events, start, span.end, f"archive: {site}/{table}")


def table_report(
    config_path: Path,
    table: str,
    since: str | None,
    *,
    window: int | None = None,
    level: float | None = None,
    sectors: int | None = None,
    span: Span | None = None,
) -> dict[str, Any]:
    """The `wheel_report` of a configured table, with `settings`: each of window, level
    and sectors and where it came from (None: the table's live setting)."""
    loaded = load_config(config_path)
    settings = loaded.config.surveillance
    configured = loaded.table(table)
    wheel = definition_of(configured).wheel
    live_sectors = getattr(settings, wheel.sectors_setting) if wheel is not None else None
    sectors_key = wheel.sectors_setting if wheel is not None else "sectors"
    # (value, where it came from): as the live table runs (`registry.live_setup`) unless
    # the command line says otherwise.
    chosen: dict[str, tuple[Any, str]] = {
        "window": chosen_setting(window, "--window", settings.window, "window"),
        "level": chosen_setting(level, "--level", settings.level, "level"),
        "sectors": chosen_setting(sectors, "--sectors", live_sectors, sectors_key),
    }
    setup = setup_for_table(
        configured,
        chosen["window"][0],
        chosen["level"][0],
        chosen["sectors"][0],
        settings.dealer_window,
        settings.dealer_bins,
    )
    span = span or Span()
    start = parse_ts(since) if since is not None else span.start
    report = wheel_report(setup, wheel_results(loaded, table, start, span))
    report["settings"] = {
        name: {"value": getattr(setup, name), "from": source}
        for name, (_, source) in chosen.items()
    }
    report["live"] = settings.enabled
    return report
