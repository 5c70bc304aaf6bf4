"""The built-in verbs' parsers (run, demo, check, cmd, report), one builder a verb.

`floord.cli.main` builds the parser of the verb typed and of no other: `floord run`, which
systemd starts at every boot of a table box, reads its two options without importing what
only another verb's help or arguments need (the operator commands' table for `cmd`'s
help, the floor report's section names for `report`). `floord --help` builds them all.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

# The subparsers' action every verb's parser is added to (argparse's is private; the
# verbs' own modules' `register(sub)` take it as Any too).
Verbs = Any


def add_run(sub: Verbs) -> None:
    """`floord run -c CONFIG`: the daemon."""
    run = sub.add_parser("run", help="run the daemon in the foreground (systemd Type=notify)")
    run.add_argument("-c", "--config", required=True, type=Path, help="the table box's YAML config")


def add_demo(sub: Verbs) -> None:
    """`floord demo`: a demo floor."""
    demo = sub.add_parser("demo", help="a demo floor with simulated tables and an embedded broker")
    demo.add_argument("--seconds", type=float, default=None, help="stop after N seconds (exit 0)")
    demo.add_argument("--broker", default=None, help="use this broker (mqtt://HOST:PORT) instead")
    demo.add_argument(
        "--speed",
        type=float,
        default=4.0,
        help="speed-up of the simulated wheels (default 4); also paces the card tables",
    )
    demo.add_argument(
        "--journal",
        type=Path,
        default=None,
        help="keep the demo's journal in this new file (default: thrown away at the end)",
    )
    demo.add_argument(
        "--seed",
        type=int,
        default=None,
        help="seed of the wheels' random spins (default: a new one each run, printed)",
    )


def add_check(sub: Verbs) -> None:
    """`floord check -c CONFIG`."""
    check = sub.add_parser("check", help="validate a config and each table's rules")
    check.add_argument("-c", "--config", required=True, type=Path)


def add_cmd(sub: Verbs) -> None:
    """`floord cmd`: its help lists every operator command (the contract's roles)."""
    from floord.cli.command_args import commands_help

    cmd = sub.add_parser(
        "cmd",
        help="sign and send an operator command, print its result",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="commands, their arguments and (who may issue them); docs/contract.md:\n"
        + commands_help(),
    )
    cmd.add_argument("-c", "--config", required=True, type=Path)
    cmd.add_argument("--table", required=True)
    cmd.add_argument("--as", dest="operator", required=True, help="the operator's id")
    cmd.add_argument("--key-file", type=Path, help="the operator's secret (default: from config)")
    cmd.add_argument("--timeout", type=float, default=10.0)
    cmd.add_argument("name", help="the command (listed below)")
    cmd.add_argument("args", nargs="*", help="key=value (JSON values; dotted keys nest)")


def add_report(sub: Verbs) -> None:
    """`floord report` and its reports' arguments."""
    from floord.cli.report_args import add_floor_parser, add_source_arguments

    report = sub.add_parser(
        "report", help="surveillance and floor reports, from journals or the archive"
    )
    what = report.add_subparsers(dest="report", required=True, metavar="REPORT")
    wheel = what.add_parser("wheel", help="a wheel's fairness statistics (chi-square tests)")
    wheel.add_argument("-c", "--config", required=True, type=Path)
    wheel.add_argument("--table", required=True)
    wheel.add_argument("--since", help="only results at or after this ISO 8601 time")
    add_source_arguments(wheel, journals=False)
    wheel.add_argument("--png", type=Path, help="write a pocket-frequency chart here")
    live = " (default: the config's surveillance.%s, as the table runs it live)"
    wheel.add_argument("--window", type=int, help="running watch window" + live % "window")
    wheel.add_argument("--level", type=float, help="alert below this p-value" + live % "level")
    wheel.add_argument(
        "--sectors", type=int, help="wheel sectors, 0: off" + live % "<game>_sectors"
    )
    dice = what.add_parser("dice", help="a Craps table's dice statistics (chi-square tests)")
    dice.add_argument("-c", "--config", required=True, type=Path)
    dice.add_argument("--table", required=True)
    dice.add_argument("--since", help="only rolls at or after this ISO 8601 time")
    add_source_arguments(dice, journals=False)
    dice.add_argument("--window", type=int, help="running watch window" + live % "window")
    dice.add_argument("--level", type=float, help="alert below this p-value" + live % "level")
    dice.add_argument(
        "--shooter-window", type=int, help="rolls per shooter" + live % "shooter_window"
    )
    dice.add_argument(
        "--shooter-bins", type=int, help="runs of totals, 0: off" + live % "shooter_bins"
    )
    shuffle = what.add_parser("shuffle", help="shuffle quality from the card-recognition shoe")
    shuffle.add_argument("-c", "--config", required=True, type=Path)
    shuffle.add_argument("--table", help="one table (default: every table whose shoe reads)")
    shuffle.add_argument("--since", help="only shoes and alerts at or after this ISO 8601 time")
    shuffle.add_argument("--json", action="store_true", help="the report as JSON")
    add_floor_parser(what)


# Each built-in verb and its builder, in the order `floord --help` lists them.
BUILT_IN: dict[str, Callable[[Verbs], None]] = {
    "run": add_run,
    "demo": add_demo,
    "check": add_check,
    "cmd": add_cmd,
    "report": add_report,
}
