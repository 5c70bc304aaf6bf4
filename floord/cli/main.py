"""`floord`: the command line of the contract (run, demo, sim, check, cmd, report)."""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from floord import __version__
from floord.cli.verbs import BUILT_IN
from floord.system.failures import broker_errors, broker_problem, expected_failures
from floord.system.logs import FORMATS, configure_logging

if TYPE_CHECKING:
    from floord.config.load import LoadedConfig


# Subcommands that live in their own modules, by the one verb each adds. Each module has
# `register(sub)`, which adds its parser to `sub` and sets `handler=<function(ns) -> exit
# code>` as a default, so a subcommand's code stays next to the feature it drives.
#
# This is the boundary that keeps `floord run` lean: the command line builds the parser of
# the verb typed and no other (the built-in verbs' builders are `floord.cli.verbs`), so
# only the module of the verb typed is imported, and the console's, the tools', the
# reports' and the audits' code stays out of the daemon's start and memory, which a table
# box pays at every boot (`floord --help`, or a word that is no verb, builds them all).
EXTENSIONS: dict[str, str] = {
    "journal": "floord.cli.journal",
    "watch": "floord.watch.cli",
    "acl": "floord.cli.acl",
    "adapter": "floord.cli.adapter",
    "udev": "floord.cli.udev",
    "status": "floord.cli.status",
    "capture": "floord.cli.capture",
    "profiles": "floord.cli.profiles",
    "sim": "floord.cli.sim",
    "web": "floord.cli.web",
    "archive": "floord.cli.archive",
}


def typed_verb(argv: list[str]) -> str | None:
    """The subcommand `argv` names, read past the options before it; None when it names
    none (`--help`, `--version`) or cannot be read (the full parser then says why)."""
    first = argparse.ArgumentParser(add_help=False, exit_on_error=False)
    first.add_argument("--log-level")
    first.add_argument("--log-format")
    first.add_argument("verb", nargs="?")
    try:
        known, _ = first.parse_known_args(argv)
    except argparse.ArgumentError:
        return None
    return known.verb if isinstance(known.verb, str) else None


def _parser(verb: str | None = None) -> argparse.ArgumentParser:
    """The command line; with `verb`, only that subcommand's parser is built and only its
    module imported (all of them for a verb that is not a subcommand, so the error lists
    every one)."""
    parser = argparse.ArgumentParser(
        prog="floord",
        description="Table-side daemon: casino table devices to journaled, "
        "procedure-checked MQTT events.",
    )
    parser.add_argument("--version", action="version", version=f"floord {__version__}")
    parser.add_argument(
        "--log-level",
        default=None,
        choices=["debug", "info", "warning", "error"],
        help="default info; error for demo, whose live view shows what the log would",
    )
    parser.add_argument(
        "--log-format",
        default=None,
        choices=FORMATS,
        help="auto (the default, or FLOORD_LOG_FORMAT): journal under systemd's journal, "
        "console on a terminal, json elsewhere; journal: one line `event key=value ...` "
        "with its syslog priority <N> (docs/deployment.md, Logs)",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    if verb in BUILT_IN:
        builders, modules = [BUILT_IN[verb]], []
    elif verb in EXTENSIONS:
        builders, modules = [], [EXTENSIONS[verb]]
    else:
        builders, modules = list(BUILT_IN.values()), list(EXTENSIONS.values())
    for build in builders:
        build(sub)
    for module_name in modules:
        importlib.import_module(module_name).register(sub)
    return parser


def _check(path: Path) -> int:
    from floord.config.load import ConfigError, load_config
    from floord.config.ports import missing_device_warnings
    from floord.processes.preflight import journal_in_use, run_problems

    try:
        loaded = load_config(path)
    except ConfigError as exc:
        for line in exc.problems:
            print(line)
        return 1
    # What `run` builds beyond the file: the drivers, each table's engine from its state.
    problems = run_problems(loaded)
    # What `run` starts without, but an engineer should know of: a device not plugged in.
    for line in [*problems, *missing_device_warnings(path, loaded.config.tables)]:
        print(line)
    if not problems:
        tables = ", ".join(f"{t.id} ({t.game})" for t in loaded.config.tables)
        print(f"{path}: ok: site {loaded.config.site}, tables {tables}")
    # Information only: a daemon running on the journal is normal while a config is checked.
    if note := journal_in_use(loaded):
        print(note)
    return 1 if problems else 0


def _run(path: Path, argv: list[str]) -> int:
    from floord.config.load import ConfigError, load_config
    from floord.system.ownership import root_refusal

    try:
        loaded = load_config(path)
    except ConfigError as exc:
        for line in exc.problems:
            print(line, file=sys.stderr)
        return 1
    if refusal := root_refusal(loaded.journal_path, argv):
        print(f"floord run: {refusal}", file=sys.stderr)
        return 1
    return run_loaded(loaded)


def run_loaded(loaded: LoadedConfig) -> int:
    """Run the daemon of a checked config. What `floord check` could not see coming (the
    journal's folder made read-only since, a secret file removed) stops the start with
    one line on stderr and exit code 1, never a traceback."""
    from floord.journal.store import JournalError, JournalInUse
    from floord.processes import event_loop
    from floord.processes.daemon import Daemon
    from floord.profiles import ProfileError

    async def main() -> int:
        try:
            daemon = await Daemon.open(loaded)
        except JournalInUse as exc:  # another daemon (or tool) writes it: one line says who
            print(f"floord run: {exc}", file=sys.stderr)
            return 1
        except (JournalError, ProfileError, OSError, ValueError, KeyError) as exc:
            text = "; ".join(line.strip() for line in str(exc).splitlines() if line.strip())
            print(f"floord run: cannot start: {text}", file=sys.stderr)
            return 1
        if (metrics := loaded.config.metrics) is not None:
            # Only then: prometheus_client is an extra, and a box without it starts faster.
            from floord.processes.daemon_metrics import run_with_metrics

            await run_with_metrics(daemon, metrics)
        else:
            await daemon.run()
        return 0

    # Its far timers on a shared grid: an idle floor's wake-ups are most of its CPU.
    return event_loop.run(main())


def _cmd(ns: argparse.Namespace) -> int:
    from floord.config.load import ConfigError, load_config, read_secret
    from floord.contract import Topics
    from floord.mqtt.tls import client_tls
    from floord.operator.client import parse_args, send_command

    try:
        loaded = load_config(ns.config)
        loaded.table(ns.table)
        key = read_secret(ns.key_file) if ns.key_file else loaded.operator_key(ns.operator)
        args = parse_args(ns.args)
        tls_context = client_tls(loaded.config.broker, loaded.resolve)
    except ConfigError as exc:
        print("\n".join(exc.problems), file=sys.stderr)
        return 1
    except (KeyError, ValueError, OSError) as exc:
        print(f"floord cmd: {exc}", file=sys.stderr)
        return 1
    broker = loaded.config.broker
    try:
        result = asyncio.run(
            send_command(
                url=broker.nodes,
                username=broker.username,
                password=loaded.broker_password(),
                topics=Topics(broker.topic_prefix, loaded.config.site, ns.table),
                name=ns.name,
                by=ns.operator,
                key=key,
                args=args,
                timeout_s=ns.timeout,
                tls_context=tls_context,
            )
        )
    except broker_errors() as exc:
        problem = broker_problem(exc)
        print(f"floord cmd: cannot use the broker {broker.where}: {problem}", file=sys.stderr)
        return 1
    print(json.dumps(result))
    return 0 if result.get("ok") is True else 1


def _demo(ns: argparse.Namespace) -> int:
    """The handler of `floord demo`. The demo is a rig's package (`floord_demo`, shipped in
    `floord-rig` beside the simulators): it is reached by module name once found installed,
    never imported by floord (pyproject.toml, import-linter)."""
    from floord.journal.store import JournalError
    from floord.system.extras import require_demo
    from floord.system.ownership import root_refusal

    require_demo("floord demo")
    run_demo = importlib.import_module("floord_demo").run_demo
    if ns.journal is not None and ns.journal.exists():
        # A demo on an old journal would resume its tables: not the demo, not comparable.
        print(f"floord demo: {ns.journal} exists; give a new file for --journal", file=sys.stderr)
        return 2
    if ns.journal is not None and (refusal := root_refusal(ns.journal.resolve(), ns.argv)):
        print(f"floord demo: {refusal}", file=sys.stderr)
        return 2
    try:
        code: int = asyncio.run(
            run_demo(
                seconds=ns.seconds,
                broker_url=ns.broker,
                speed=ns.speed,
                journal=ns.journal.resolve() if ns.journal else None,
                seed=ns.seed,
            )
        )
        return code
    except JournalError as exc:  # --journal taken by another writer meanwhile, say
        print(f"floord demo: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0


def _report(ns: argparse.Namespace) -> int:
    from floord.cli.dice_report import run_dice_report
    from floord.cli.floor_report import run_floor_report, span_of
    from floord.cli.report import run_wheel_report
    from floord.cli.shuffle_report import run_shuffle_report
    from floord.config.load import ConfigError

    try:
        if ns.report == "floor":
            text = run_floor_report(ns)
        elif ns.report == "shuffle":
            text = run_shuffle_report(ns.config, ns.table, ns.since, ns.json)
        elif ns.report == "dice":
            settings = {
                "window": ns.window,
                "level": ns.level,
                "shooter_window": ns.shooter_window,
                "shooter_bins": ns.shooter_bins,
            }
            text = run_dice_report(ns.config, ns.table, ns.since, settings, span_of(ns))
        else:
            text = run_wheel_report(
                ns.config,
                ns.table,
                ns.since,
                ns.png,
                window=ns.window,
                level=ns.level,
                sectors=ns.sectors,
                span=span_of(ns),
            )
    except ConfigError as exc:
        print("\n".join(exc.problems), file=sys.stderr)
        return 1
    except (KeyError, ValueError, OSError) as exc:
        print(f"floord report {ns.report}: {exc}", file=sys.stderr)
        return 1
    print(text)
    return 0


def main(argv: list[str] | None = None) -> int:
    # The words typed after `floord`: a refusal repeats them in the command to use instead.
    words = list(sys.argv[1:] if argv is None else argv)
    ns = _parser(typed_verb(words)).parse_args(words)
    ns.argv = words
    fmt = ns.log_format or os.environ.get("FLOORD_LOG_FORMAT") or "auto"
    if fmt not in FORMATS:
        print(
            f"floord: FLOORD_LOG_FORMAT: one of {', '.join(FORMATS)} expected, found {fmt!r}",
            file=sys.stderr,
        )
        return 2
    configure_logging(ns.log_level or ("error" if ns.command == "demo" else "info"), fmt=fmt)
    with expected_failures(f"floord {ns.command}") as outcome:
        outcome.code = _dispatch(ns)
    return outcome.code


def _dispatch(ns: argparse.Namespace) -> int:
    handler = getattr(ns, "handler", None)
    if handler is not None:
        return int(handler(ns))
    if ns.command == "check":
        return _check(ns.config)
    if ns.command == "run":
        return _run(ns.config, ns.argv)
    if ns.command == "cmd":
        return _cmd(ns)
    if ns.command == "demo":
        return _demo(ns)
    if ns.command == "report":
        return _report(ns)
    raise AssertionError(ns.command)


if __name__ == "__main__":
    sys.exit(main())
