"""`floord report dice`: the command line's side of a Craps table's dice report.

As `floord report wheel` (`floord/cli/report.py`): this module reads the config, the
analytics compute. The running watch is tuned as the table's live surveillance is (the
config's `surveillance:` window, level, shooter_window and shooter_bins) unless the
command line says otherwise, so that the report replays exactly the alerts the table
raised; the report says where each setting came from.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from floord.analytics.dice_report import (
    ROLL_TYPES,
    DiceSetup,
    dice_report,
    format_dice_report,
    read_rolls,
    rolls_of,
)
from floord.cli.report import Span, archive_events, chosen_setting
from floord.config.load import load_config
from floord.contract import parse_ts
from floord.games.registry import dice_setup

SETTINGS = ("window", "level", "shooter_window", "shooter_bins")


def table_dice_report(
    config_path: Path,
    table: str,
    since: str | None,
    overrides: dict[str, Any] | None = None,
    span: Span | None = None,
) -> dict[str, Any]:
    """The `dice_report` of a configured table, with `settings`: each setting and where
    it came from. `overrides` maps a setting to a value given on the command line (None:
    the table's live setting). A table whose game rolls no dice is a ValueError."""
    loaded = load_config(config_path)
    settings = loaded.config.surveillance
    configured = loaded.table(table)
    live = dice_setup(configured, settings)
    if live is None:
        raise ValueError(f"table {table!r} plays {configured.game}: it has no dice to report on")
    given = overrides or {}
    chosen = {
        name: chosen_setting(
            given.get(name), f"--{name.replace('_', '-')}", getattr(live, name), name
        )
        for name in SETTINGS
    }
    setup = DiceSetup(**{name: value for name, (value, _) in chosen.items()})
    span = span or Span()
    start = parse_ts(since) if since is not None else span.start
    if span.archive is None:
        rolls = read_rolls(loaded.journal_path, table, start, span.end)
    else:
        site = span.site or loaded.config.site
        events = archive_events(span.archive, site, table, ROLL_TYPES, span.end)
        rolls = rolls_of(events, start, span.end, f"archive: {site}/{table}")
    report = dice_report(setup, rolls)
    report["settings"] = {
        name: {"value": value, "from": source} for name, (value, source) in chosen.items()
    }
    report["live"] = settings.enabled
    return report


def run_dice_report(
    config_path: Path,
    table: str,
    since: str | None,
    overrides: dict[str, Any] | None = None,
    span: Span | None = None,
) -> str:
    """Everything `floord report dice` does; returns the text to print. Bad input is a
    ValueError, KeyError or ConfigError for the command line to print."""
    report = table_dice_report(config_path, table, since, overrides, span)
    return format_dice_report(table, report)
