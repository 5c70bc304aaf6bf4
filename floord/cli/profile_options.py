"""The options that say which site profile directory a command reads, and the shelf they
give: one reading for `floord profiles`, `floord sim` and `floord capture`.

`floord run` looks a profile name up in the site directory its config names
(`site_profiles`, else `/etc/floord/profiles` when it exists), then in the installed
driver plugins', then in floord's packaged ones (`floord.profile_sources`). A simulator
or a capture that read only the packaged file would play or record another device than
the one the daemon drives once a site has tuned it, so these commands take the same
directory: from a config (`-c`), given outright, or the default.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from floord.profile_sources import ProfileShelf


class ProfileOptionError(ValueError):
    """The site directory asked for cannot be used: one line says which and why."""


def add_site_options(parser: argparse.ArgumentParser, flag: str) -> None:
    """`-c/--config CONFIG` or `flag DIR` (`--site`, `--profiles`), one or neither."""
    parser.set_defaults(site_flag=flag)
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "-c",
        "--config",
        type=Path,
        help="look profiles up as this config's daemon does (its site_profiles directory)",
    )
    where.add_argument(
        flag,
        dest="site",
        type=Path,
        metavar="DIR",
        help="the site's profile directory, looked in first (default: /etc/floord/profiles "
        "when it exists)",
    )


def site_of(ns: argparse.Namespace) -> Path | None:
    """The site directory asked for: the option's, the config's `site_profiles` (read
    alone, relative to the config, so that a config a broken profile spoils can still be
    used to list or fix it), or the default. A `ProfileOptionError` for a config that
    cannot be read or a directory that is not one."""
    from floord.profile_sources import DEFAULT_SITE_DIR, site_directory
    from floord.yaml_files import YamlFileError, read_yaml

    if ns.site is not None:
        site = site_directory(ns.site)
    elif getattr(ns, "config", None) is None:
        try:
            site = site_directory(None)
        except OSError as exc:  # /etc/floord closed to this user: it may hold a profile
            why = _unreadable(DEFAULT_SITE_DIR, exc.strerror, ns.site_flag)
            raise ProfileOptionError(why) from exc
    else:
        try:
            raw = read_yaml(ns.config)
        except YamlFileError as exc:
            raise ProfileOptionError(str(exc)) from exc
        value = raw.get("site_profiles") if isinstance(raw, dict) else None
        if value is not None and not isinstance(value, str):
            raise ProfileOptionError(
                f"{ns.config}: site_profiles: a directory expected, found {value!r}"
            )
        site = site_directory(None if value is None else ns.config.parent / value)
    if site is None:
        return None
    try:
        if not site.is_dir():
            raise ProfileOptionError(f"{site}: a directory of profiles expected")
    except OSError as exc:
        raise ProfileOptionError(_unreadable(site, exc.strerror, ns.site_flag)) from exc
    # Every lookup reads it: a directory this user cannot search would be a traceback
    # there, or worse, a site profile passed over for the shipped one.
    if not os.access(site, os.R_OK | os.X_OK):
        raise ProfileOptionError(_unreadable(site, None, ns.site_flag))
    return site


def _unreadable(site: Path, why: str | None, flag: str) -> str:
    return (
        f"{site}: the site's profiles cannot be read ({why or 'Permission denied'}); run as "
        f"a user who may read them (sudo -u floord), or give -c CONFIG or {flag} DIR"
    )


def shelf_of(ns: argparse.Namespace) -> ProfileShelf:
    """The profiles the command looks a name up in, in the order `floord run` does."""
    from floord.profile_sources import ProfileShelf, profile_sources

    return ProfileShelf(profile_sources(site_of(ns)))
