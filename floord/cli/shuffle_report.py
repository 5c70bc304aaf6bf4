"""`floord report shuffle`: the command line's side of a table's shuffle-quality report.

As `floord report dice` (`floord/cli/dice_report.py`): this module reads the config, the
analytics compute. The replayed watch is tuned as the table's live one (its
`shuffle_quality:`) and fed the events of the same reading shoes, so the report lists
exactly the alerts the table raised. Without `--table`, every table of the config whose
shoe reads the cards is reported on.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from floord.analytics.shuffle_report import format_shuffle_report, read_shoe_events, shuffle_report
from floord.config.load import load_config
from floord.contract import parse_ts
from floord.games.shuffle import reading_shoes, setup_of


def table_shuffle_reports(
    config_path: Path, table: str | None, since: str | None
) -> dict[str, dict[str, Any]]:
    """The `shuffle_report` of each table asked for, by table id, with `settings` (each
    setting and where it came from) and `live` (whether the table runs the tests). A
    table asked for by name whose shoe reads no cards is a ValueError."""
    loaded = load_config(config_path)
    start = parse_ts(since) if since is not None else None
    tables = [loaded.table(table)] if table is not None else list(loaded.config.tables)
    reports = {}
    for configured in tables:
        shoes = reading_shoes(configured, loaded.profiles)
        if not shoes:
            if table is not None:
                raise ValueError(
                    f"table {table!r} ({configured.game}) has no shoe that reads "
                    "the cards: no shuffle to report on"
                )
            continue
        settings = configured.shuffle_quality
        setup = setup_of(settings)
        events = read_shoe_events(loaded.journal_path, configured.id)
        report = shuffle_report(setup, shoes, events, start)
        fields = {name: getattr(settings, name) for name in vars(setup)}
        report["settings"] = {
            name: {
                "value": value,
                "from": f"shuffle_quality.{name}"
                if name in settings.model_fields_set
                else "default",
            }
            for name, value in fields.items()
        }
        report["live"] = settings.enabled and loaded.config.surveillance.enabled
        reports[configured.id] = report
    if not reports:
        raise ValueError("no table of the config has a shoe that reads the cards")
    return reports


def run_shuffle_report(
    config_path: Path, table: str | None, since: str | None, as_json: bool = False
) -> str:
    """Everything `floord report shuffle` does; returns the text to print. Bad input is a
    ValueError, KeyError or ConfigError for the command line to print."""
    reports = table_shuffle_reports(config_path, table, since)
    if as_json:
        return json.dumps(reports, indent=1, sort_keys=True)
    return "\n\n".join(format_shuffle_report(t, r) for t, r in reports.items())
