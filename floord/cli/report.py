"""`floord report wheel`: the command line's side of a wheel report.

Apart from `floord/analytics/report.py` so that the statistics never import the config
(the config's cross-checks build the same setup, so the other way round would be a
cycle): this module reads the config, the analytics compute.
"""

from __future__ import annotations

from pathlib import Path

from floord.analytics.report import format_report, read_results, wheel_report
from floord.config.load import load_config
from floord.contract import parse_ts
from floord.games.registry import setup_for_table
from floord.system.extras import require_extra


def run_wheel_report(
    config_path: Path,
    table: str,
    since: str | None,
    png: Path | None,
    *,
    window: int,
    level: float,
    sectors: int | None,
) -> str:
    """Everything `floord report wheel` does; returns the text to print.

    Bad input (an unknown table, a table without a wheel, a bad --since, an unreadable
    journal) is a ValueError, KeyError or ConfigError for the command line to print.
    """
    if png is not None:
        require_extra("report", "floord report wheel --png (the text report needs nothing more)")
    loaded = load_config(config_path)
    settings = loaded.config.surveillance
    setup = setup_for_table(loaded.table(table), window, level, sectors,
                            settings.dealer_window, settings.dealer_bins)  # fmt: skip
    start = parse_ts(since) if since is not None else None
    results = read_results(loaded.journal_path, table, start)
    report = wheel_report(setup, results)
    text = format_report(table, report)
    if png is not None:
        from floord.analytics.report_chart import write_chart

        write_chart(table, report, png)
        text += f"\nchart written to {png}"
    return text
