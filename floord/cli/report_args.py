"""The arguments of `floord report`'s archive-reading verbs: where the events come from
(an archive, or the boxes' journals) and the period. Apart from the reports' code so that
building the command line (every `floord` start) imports none of it but the names of
the floor report's sections."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from floord.analytics.floor_report.text import SECTIONS


def add_source_arguments(parser: argparse.ArgumentParser, *, journals: bool) -> None:
    """--archive (and --db with `journals`), --from, --to, --site: where and when."""
    parser.add_argument(
        "--archive",
        metavar="URL",
        help="read the floor's archive: postgresql://..., sqlite:///PATH or a file",
    )
    if journals:
        parser.add_argument(
            "--db",
            type=Path,
            action="append",
            metavar="JOURNAL",
            help="read a box's journal instead (repeat for more boxes)",
        )
    parser.add_argument(
        "--from",
        dest="start",
        metavar="ISO",
        help="from this time (or date, midnight UTC), inclusive",
    )
    parser.add_argument(
        "--to", dest="end", metavar="ISO", help="up to this time (or date, midnight UTC), exclusive"
    )
    parser.add_argument(
        "--site",
        help="only this site's tables"
        if journals
        else "the table's site in the archive (default: the config's site)",
    )


def add_floor_parser(what: Any) -> None:
    """`floord report floor` on the `report` verb's subparsers."""
    floor = what.add_parser(
        "floor",
        help="a floor's rounds, dealers, halts, alerts, inspections, decks and violations",
    )
    add_source_arguments(floor, journals=True)
    floor.add_argument("--table", help="only this table")
    floor.add_argument("--format", choices=("text", "json", "csv"), default="text")
    floor.add_argument(
        "--section",
        choices=SECTIONS,
        default="tables",
        help="the section --format csv prints (default tables)",
    )
    floor.add_argument("--png", type=Path, help="write charts of the report here")
