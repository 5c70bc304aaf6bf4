"""`floord adapter`: run one device's driver adapter as its own process."""

from __future__ import annotations

import argparse
import asyncio
import functools
import importlib.util
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from floord.config.load import LoadedConfig


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
    parser.add_argument(
        "--metrics-listen",
        metavar="HOST:PORT",
        help="serve this adapter's Prometheus metrics and /healthz there (loopback unless "
        "the config's metrics.allow_remote is true; needs the 'metrics' extra)",
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
    metrics = _metrics_address(loaded, ns.metrics_listen)
    if isinstance(metrics, str):
        print(f"floord adapter: {metrics}", file=sys.stderr)
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
        if metrics is None:
            await process.run()
            return
        # Only then: prometheus_client is an extra.
        from floord.processes.adapter_metrics import run_with_metrics

        await run_with_metrics(process, loaded.config.site, *metrics)

    from floord.processes import event_loop

    try:
        # Its far timers on the daemon's shared grid: one wake-up of the loop serves them.
        event_loop.run(main())
    except (KeyError, ValueError, OSError, ProfileError, JournalError) as exc:
        print(f"floord adapter: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    return 0


def _metrics_address(loaded: LoadedConfig, listen: str | None) -> tuple[str, int] | str | None:
    """Where `--metrics-listen` says to serve (None: not asked), or why it cannot be."""
    from floord.metrics.address import ListenError, parse_listen
    from floord.system.extras import EXTRAS, missing_extra_message

    if listen is None:
        return None
    allow_remote = loaded.config.metrics is not None and loaded.config.metrics.allow_remote
    try:
        address = parse_listen(listen, allow_remote=allow_remote)
    except ListenError as exc:
        return f"--metrics-listen: {exc}"
    if importlib.util.find_spec(EXTRAS["metrics"]) is None:
        return missing_extra_message("metrics", "--metrics-listen")
    return address
