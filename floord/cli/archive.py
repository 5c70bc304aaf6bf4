"""`floord archive --config FILE [--check]`: the floor's archive (docs/archive.md).

Exit 0 on a clean stop (SIGTERM, SIGINT) or a config that checks; 1 for a config, a
database or an extra that cannot be used, each said in one line.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "archive", help="store every event of the floor in PostgreSQL (or a SQLite file)"
    )
    parser.add_argument("-c", "--config", required=True, type=Path, help="the archive's config")
    parser.add_argument(
        "--check",
        action="store_true",
        help="check the config, its secrets and the database as `archive` would, then exit",
    )
    parser.set_defaults(handler=run_archive)


def run_archive(ns: argparse.Namespace) -> int:
    from floord.archive.service import Archive, check
    from floord.archive.settings import load_archive_config
    from floord.archive.store import ArchiveDatabaseError
    from floord.config.load import ConfigError

    try:
        loaded = load_archive_config(ns.config)
        if ns.check:
            print(check(loaded))
            return 0
        archive = Archive.build(loaded)
        return asyncio.run(archive.run())
    except ConfigError as exc:
        print("\n".join(exc.problems), file=sys.stderr)
        return 1
    except (ArchiveDatabaseError, OSError, ValueError) as exc:
        print(f"floord archive: {exc}", file=sys.stderr)
        return 1
