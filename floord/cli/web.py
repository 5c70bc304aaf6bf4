"""`floord web`: the browser console (docs/console.md), and its password file.

    floord web --config FILE [--check]
    floord web passwd FILE USER        (the password from the terminal, or one line on stdin)

`--check` reads the config and every file it names (certificates, the password file,
keys), says what it would serve and exits, starting nothing. With an `archive` it also
says whether the archive answers now; one that does not is not refused (the console
serves the live floor without it, and its History page says the archive is down).
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import sys
from pathlib import Path
from typing import Any

from floord.system.extras import require_extra


def register(sub: Any) -> None:
    web = sub.add_parser("web", help="the surveillance console in a browser (docs/console.md)")
    web.add_argument("-c", "--config", type=Path, help="the web console's config file")
    web.add_argument("--check", action="store_true", help="check the config and exit")
    actions = web.add_subparsers(dest="web_action")
    passwd = actions.add_parser("passwd", help="add a user to a password file, or change theirs")
    passwd.add_argument("file", type=Path)
    passwd.add_argument("user")
    web.set_defaults(handler=run_web)


def _password() -> str:
    if sys.stdin.isatty():
        first = getpass.getpass("password: ")
        if first != getpass.getpass("again: "):
            raise ValueError("the two passwords differ")
        return first
    return sys.stdin.readline().rstrip("\n")


def run_passwd(ns: argparse.Namespace) -> int:
    from floord.web.passwords import PasswordFileError, set_password

    try:
        new = set_password(ns.file, ns.user, _password())
    except (ValueError, OSError, PasswordFileError) as exc:
        print(f"floord web passwd: {exc}", file=sys.stderr)
        return 1
    print(f"floord web passwd: {ns.user} {'added to' if new else 'changed in'} {ns.file}")
    return 0


def _archive_words(url: str) -> str:
    """Whether the archive answers now, and its newest event, in one line."""
    from floord.archive.reader import ArchiveError, open_archive

    try:
        with open_archive(url) as reader:
            newest = reader.newest(1).events
    except ArchiveError as exc:
        return f"archive not readable now ({exc}): the History page will say so until it is"
    when = newest[0].get("ts") if newest else None
    return f"archive readable, newest event {when}" if when else "archive readable, empty"


def run_web(ns: argparse.Namespace) -> int:
    if ns.web_action == "passwd":
        return run_passwd(ns)
    if ns.config is None:
        print(
            "floord web: --config FILE expected (or: floord web passwd FILE USER)", file=sys.stderr
        )
        return 1
    require_extra("web", "floord web")
    from floord.web.passwords import PasswordFileError
    from floord.web.server import build, serve
    from floord.web.settings import WebConfigError, load_web_config

    try:
        loaded = load_web_config(ns.config)
        if ns.check:
            built = build(loaded)
            scheme = "https" if built.tls is not None else "http"
            who = (
                "a password file"
                if built.access.needs_login
                else "client certificates"
                if built.access.client_certs
                else "anyone on loopback"
            )
            print(
                f"{ns.config}: ok: {scheme}://{loaded.config.listen}/ for {who}, "
                f"broker {loaded.config.broker.where}"
            )
            if loaded.archive_url is not None:
                print(f"{ns.config}: {_archive_words(loaded.archive_url)}")
            return 0
    except WebConfigError as exc:
        print("\n".join(exc.problems), file=sys.stderr)
        return 1
    except (ValueError, OSError, PasswordFileError) as exc:
        print(f"floord web: {exc}", file=sys.stderr)
        return 1
    try:
        return asyncio.run(serve(loaded))
    except (ValueError, OSError, PasswordFileError) as exc:
        print(f"floord web: {exc}", file=sys.stderr)
        return 1
