"""`floord profiles list` and `floord profiles check FILE`: the box's device profiles.

`list` names every profile the box can use, the file it is read from, its origin (`site`,
`plugin` or `packaged`), the shipped profile a site profile replaces, and the SHA-256 the record
keeps. `check` holds a file to every check a table would, before it is dropped into the
site directory (docs/deployment.md, "Site profiles").
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from floord.cli.profile_options import ProfileOptionError, add_site_options, shelf_of

if TYPE_CHECKING:
    from floord.profile_sources import ProfileShelf


def register(sub: Any) -> None:
    """Add `floord profiles` to the `floord` subcommands."""
    parser = sub.add_parser("profiles", help="list the device profiles, check a site profile")
    what = parser.add_subparsers(dest="profiles", required=True, metavar="ACTION")
    listed = what.add_parser("list", help="every profile, where it comes from, its hash")
    check = what.add_parser("check", help="check a profile file as the site's, exit 1 if bad")
    check.add_argument("file", type=Path, help="the profile's YAML file (<model>.yaml)")
    for each in (listed, check):
        add_site_options(each, "--site")
    parser.set_defaults(handler=run_profiles)


def run_profiles(ns: argparse.Namespace) -> int:
    try:
        shelf = shelf_of(ns)
    except ProfileOptionError as exc:
        print(f"floord profiles: {exc}", file=sys.stderr)
        return 1
    return _check(ns.file, shelf) if ns.profiles == "check" else _list(shelf)


def _list(shelf: ProfileShelf) -> int:
    from floord.processes.profile_catalogue import listing
    from floord.profiles import ProfileError

    try:
        rows = listing(shelf)
    except ProfileError as exc:  # a driver plugin that cannot be loaded
        print(f"floord profiles: {exc}", file=sys.stderr)
        return 1
    for row in rows:
        said = f"{row.model} ({row.family})" if row.problem is None else "cannot be used"
        print(f"{row.name:24} {row.origin:9} {said}")
        print(f"{'':24} {row.path}")
        if row.overrides is not None:
            print(f"{'':24} overrides {row.overrides}")
        print(f"{'':24} sha256 {row.sha256}")
        if row.problem is not None:
            print(f"{'':24} {row.problem}")
    for source in shelf.sources:
        print(f"{source.origin}: {source.directory}")
    return 1 if any(row.problem is not None for row in rows) else 0


def _check(path: Path, shelf: ProfileShelf) -> int:
    from floord.processes.profile_catalogue import candidate_problems

    sourced, problems = candidate_problems(path, shelf)
    for line in problems:
        print(line)
    if problems or sourced is None:
        return 1
    what = f"overrides {sourced.overrides}" if sourced.overrides else "adds a profile"
    profile = sourced.profile
    print(f"{path}: ok: {profile.model} ({profile.family}), {what}, sha256 {sourced.sha256}")
    return 0
