"""`floord adapter`: run one device's driver adapter as its own process."""

from __future__ import annotations

import argparse
import asyncio
import functools
import sys
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    """Add `floord adapter` to the `floord` subcommands."""
    parser = sub.add_parser(
        "adapter",
        help="run one device's driver adapter as its own process (the daemon: adapter: remote)",
    )
    parser.add_argument("-c", "--config", required=True, type=Path, help="the YAML config")
    parser.add_argument("--table", required=True, help="the table the device belongs to")
    parser.add_argument("--device", required=True, help="the device's id in that table")
    parser.add_argument("--port", help="the device's port, if the config does not name it")
    parser.add_argument(
        "--journal",
        type=Path,
        help="the adapter's own journal (default: adapter-<table>-<device>.db beside the "
        "config's journal)",
    )
    parser.set_defaults(handler=run_adapter)


def run_adapter(ns: argparse.Namespace) -> int:
    from floord.config.load import ConfigError, load_config
    from floord.config.ports import port_problems
    from floord.journal.store import JournalError
    from floord.processes.adapter import AdapterProcess, adapter_journal_path
    from floord.profiles import ProfileError
    from floord.system.ownership import root_refusal

    try:
        loaded = load_config(ns.config)
    except ConfigError as exc:
        print("\n".join(exc.problems), file=sys.stderr)
        return 1
    if ns.port and (
        problems := port_problems(loaded.path, "--port", ns.port, rig=loaded.config.rig)
    ):
        print("\n".join(problems), file=sys.stderr)
        return 1
    journal = ns.journal or adapter_journal_path(loaded, ns.table, ns.device)
    if refusal := root_refusal(journal.resolve(), ns.argv):
        print(f"floord adapter: {refusal}", file=sys.stderr)
        return 1

    async def main() -> None:
        # Built in a worker thread: the journal is opened (and migrated) off the loop.
        process = await asyncio.to_thread(
            functools.partial(
                AdapterProcess, loaded, ns.table, ns.device, port=ns.port, journal_path=ns.journal
            )
        )
        await process.run()

    try:
        asyncio.run(main())
    except (KeyError, ValueError, OSError, ProfileError, JournalError) as exc:
        print(f"floord adapter: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    return 0
