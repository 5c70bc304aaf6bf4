"""`floord sim`: one device simulator for a test rig, or the list of shipped scenarios.

The simulators belong to a rig (`floord-rig`), not to floord: they are reached by module
name at run time, never imported here (pyproject.toml, import-linter). The profile is
looked up where `floord run` looks it up (`floord.cli.profile_options`): a rig that
tunes a model in its site directory simulates the model its daemon drives.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import sys
from typing import Any

from floord.cli.profile_options import ProfileOptionError, add_site_options, shelf_of


def register(sub: Any) -> None:
    """Add `floord sim` to the `floord` subcommands."""
    sim = sub.add_parser("sim", help="run one device simulator for a test rig")
    sim.add_argument("profile", nargs="?", help="a device profile name, e.g. cammegh-ss2")
    sim.add_argument(
        "--list",
        action="store_true",
        help="list the shipped scenarios (floord's and the driver plugins'), the package "
        "each comes from and where the example rig config is, and exit",
    )
    where = sim.add_mutually_exclusive_group()
    where.add_argument("--pty", action="store_true", help="serve on a new pseudo-terminal")
    where.add_argument("--tcp", metavar="HOST:PORT", help="serve one TCP client (socket://)")
    add_site_options(sim, "--profiles")
    sim.add_argument(
        "--scenario",
        metavar="FILE|NAME",
        help="a scenario YAML file, or a shipped scenario's name (see --list)",
    )
    sim.add_argument("--speed", type=float, default=1.0, help="scale the device's clock")
    sim.add_argument(
        "--control",
        metavar="stdin|unix:PATH|tcp:127.0.0.1:PORT|none",
        help="inject scenario steps live, one per line (`help` lists them); none: no channel",
    )
    sim.set_defaults(handler=run_sim)


def _list() -> int:
    catalogue = importlib.import_module("simulators.catalogue")
    scenario_error = importlib.import_module("simulators.scenario").ScenarioError
    try:
        shipped = catalogue.shipped_scenarios()
        folders = catalogue.scenario_folders()
    except scenario_error as exc:  # a driver plugin that cannot be loaded
        print(f"floord sim: {exc}", file=sys.stderr)
        return 1
    width = max((len(s.package) for s in shipped), default=0)
    for each in shipped:
        print(f"{each.name:22} {each.package:{width}}  {catalogue.describe(each.path)}")
    for folder in folders:
        print(f"scenarios: {folder.folder} ({folder.package})")
    print(f"example rig config: {catalogue.example_rig_config()}")
    return 0


def run_sim(ns: argparse.Namespace) -> int:
    """The handler of `floord sim`: 0 when the scenario ended, 1 a plugin that cannot be
    loaded (`--list`), 2 bad arguments, profile or scenario."""
    from floord.system.extras import require_simulators

    require_simulators("floord sim")
    if ns.list:
        return _list()
    if ns.profile is None or not (ns.pty or ns.tcp):
        usage = "a device profile and --pty or --tcp expected (or --list)"
        print(f"floord sim: {usage}", file=sys.stderr)
        return 2
    try:
        shelf = shelf_of(ns)
    except ProfileOptionError as exc:
        print(f"floord sim: {exc}", file=sys.stderr)
        return 2
    link = importlib.import_module("simulators.run")
    try:
        code: int = asyncio.run(
            link.run_simulator(
                ns.profile,
                pty=ns.pty,
                tcp=ns.tcp,
                scenario_path=ns.scenario,
                speed=ns.speed,
                announce=lambda line: print(line, flush=True),
                control=None if ns.control in (None, "none") else ns.control,
                profiles=shelf,
            )
        )
        return code
    except KeyboardInterrupt:
        return 0
