"""`floord udev -c CONFIG`: print the udev rules that name each device /dev/floord/<t>-<d>."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    """Add `floord udev` to the `floord` subcommands."""
    parser = sub.add_parser(
        "udev", help="print udev rules giving each device a stable /dev/floord/ name"
    )
    parser.add_argument("-c", "--config", required=True, type=Path)
    parser.add_argument(
        "-o", "--output", type=Path, help="write the rules here instead of standard output"
    )
    parser.set_defaults(handler=run_udev)


def run_udev(ns: argparse.Namespace) -> int:
    """0 with the rules written (warnings on stderr), 1 for a config that cannot be used."""
    from floord.config.load import ConfigError, load_config
    from floord.tools.udev_rules import UdevRuleError, plan_rules, render

    try:
        loaded = load_config(ns.config)
        plan = plan_rules(loaded)
    except (ConfigError, UdevRuleError) as exc:
        for line in exc.problems:
            print(f"floord udev: {line}", file=sys.stderr)
        return 1
    for warning in plan.warnings:
        print(f"floord udev: warning: {warning}", file=sys.stderr)
    text = render(plan, str(ns.config), loaded.config.site)
    if ns.output is None:
        sys.stdout.write(text)
        return 0
    try:
        ns.output.write_text(text, encoding="utf-8")
    except OSError as exc:
        print(f"floord udev: cannot write {ns.output}: {exc.strerror}", file=sys.stderr)
        return 1
    return 0
