"""`floord profiles list` and `floord profiles check FILE`: the box's device profiles.

`list` names every profile the box can use, the file it is read from, its origin (`site`
or `packaged`), the packaged profile a site profile replaces, and the SHA-256 the record
keeps. `check` holds a file to every check a table would, before it is dropped into the
site directory (docs/deployment.md, "Site profiles").
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
        where = each.add_mutually_exclusive_group()
        where.add_argument(
            "-c", "--config", type=Path, help="use the site directory this config names"
        )
        where.add_argument(
            "--site", type=Path, help="the site directory (default: /etc/floord/profiles)"
        )
    parser.set_defaults(handler=run_profiles)


def _site(ns: argparse.Namespace) -> Path | None:
    """The site directory asked for: `--site`, the config's `site_profiles` (read alone,
    so that a config a broken profile spoils can still be listed), or the default."""
    from floord.config.load import ConfigError
    from floord.profile_sources import site_directory
    from floord.yaml_files import read_yaml

    if ns.site is not None:
        return site_directory(ns.site)
    if ns.config is None:
        return site_directory(None)
    raw = read_yaml(ns.config)
    value = raw.get("site_profiles") if isinstance(raw, dict) else None
    if value is None:
        return site_directory(None)
    if not isinstance(value, str):
        raise ConfigError([f"{ns.config}: site_profiles: a directory expected, found {value!r}"])
    return site_directory(ns.config.parent / value)


def run_profiles(ns: argparse.Namespace) -> int:
    from floord.config.load import ConfigError
    from floord.profile_sources import ProfileShelf, profile_sources
    from floord.yaml_files import YamlFileError

    try:
        site = _site(ns)
    except YamlFileError as exc:
        print(f"floord profiles: {exc}", file=sys.stderr)
        return 1
    except ConfigError as exc:
        print("\n".join(exc.problems), file=sys.stderr)
        return 1
    if site is not None and not site.is_dir():
        print(f"floord profiles: {site}: a directory of profiles expected", file=sys.stderr)
        return 1
    shelf = ProfileShelf(profile_sources(site))
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
