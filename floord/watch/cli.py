"""`floord watch`: the surveillance console on a terminal, or JSON lines for scripts.

    floord watch --broker mqtt://HOST:PORT [--broker ...] [--prefix floor/v1] [--site S]
                 [--username U --password-file F] [--as OPERATOR --key-file F]
                 [--session ID] [--json]
    floord watch -c CONFIG [--site S] [--as OPERATOR [--key-file F]] [--session ID] [--json]

`--broker` once per node of a broker cluster (or the config's `broker.urls`): the console
is on one node and moves to the next when it goes. `--session ID` keeps a persistent
broker session under that client id, so the broker queues what arrives while the console
is away (the replays fill the rest).

With `--as` (or `--operator`) the console signs `replay` commands to fill the gaps it
sees, and the `ack_alert` a person gives on the screen (`a`, twice); the table checks the
operator's role (a supervisor or security may acknowledge). Without it a gap is reported
as unfilled and the table stays stale, and alerts cannot be acknowledged here
(docs/console.md).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import ssl
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from floord.config.load import ConfigError, load_config, read_secret, read_secret_text
from floord.contract import DEFAULT_TOPIC_PREFIX
from floord.mqtt.client import NodeRing
from floord.mqtt.tls import client_tls
from floord.system.extras import require_extra
from floord.watch.feed import ReplaySigner, WatchFeed
from floord.watch.model import FloorModel, Notice


@dataclass(frozen=True)
class WatchSettings:
    """Where to watch and as whom, from the flags or a floord config."""

    urls: tuple[str, ...]
    prefix: str
    site: str | None
    username: str | None
    password: str | None
    signer: ReplaySigner | None
    # The config's broker.tls (floord.mqtt.tls.client_tls); None: plain, or the system CAs.
    tls_context: ssl.SSLContext | None = None
    session: str | None = None


def register(sub: Any) -> None:
    watch = sub.add_parser(
        "watch", help="a live surveillance console of every table (or --json lines)"
    )
    where = watch.add_mutually_exclusive_group(required=True)
    where.add_argument(
        "--broker",
        action="append",
        help="the broker, mqtt://HOST:PORT or mqtts://HOST:PORT; once per node of a cluster",
    )
    where.add_argument("-c", "--config", type=Path, help="take broker and prefix from a config")
    watch.add_argument("--prefix", default=None, help=f"topic prefix ({DEFAULT_TOPIC_PREFIX})")
    watch.add_argument("--site", default=None, help="only this site's tables")
    watch.add_argument("--username", default=None)
    watch.add_argument("--password-file", type=Path, default=None)
    watch.add_argument(
        "--as",
        "--operator",
        dest="operator",
        help="operator who signs the console's commands: replays, and ack_alert (a "
        "supervisor or security officer); with -c the key defaults to the config's",
    )
    watch.add_argument("--key-file", type=Path, help="that operator's secret")
    watch.add_argument(
        "--session",
        default=None,
        help="a persistent broker session under this client id (default: a clean one)",
    )
    watch.add_argument("--json", action="store_true", help="no screen: one JSON line per notice")
    watch.add_argument("--seconds", type=float, default=None, help="stop after N seconds")
    watch.set_defaults(handler=run_watch)


def settings_from(ns: argparse.Namespace) -> WatchSettings:
    """Resolve the flags; raises ValueError, OSError, KeyError or ConfigError."""
    if ns.key_file is not None and not ns.operator:
        raise ValueError("--key-file needs --as OPERATOR")
    if ns.config is not None:
        if ns.username or ns.password_file:
            raise ValueError("with -c the broker's credentials come from the config")
        loaded = load_config(ns.config)
        broker = loaded.config.broker
        urls, username, password = broker.nodes, broker.username, loaded.broker_password()
        tls_context = client_tls(broker, loaded.resolve)
        prefix = ns.prefix or broker.topic_prefix
        key = None
        if ns.operator:
            key = read_secret(ns.key_file) if ns.key_file else loaded.operator_key(ns.operator)
    else:
        urls, username, tls_context = tuple(ns.broker), ns.username, None
        NodeRing(urls)  # each URL's shape, and one scheme for all
        password = read_secret_text(ns.password_file) if ns.password_file else None
        prefix = ns.prefix or DEFAULT_TOPIC_PREFIX
        if ns.operator and ns.key_file is None:
            raise ValueError("--as needs --key-file (or -c CONFIG that lists the operator)")
        key = read_secret(ns.key_file) if ns.key_file else None
    if key is not None and not key:
        raise ValueError(f"the key of operator {ns.operator!r} is empty")
    signer = ReplaySigner(ns.operator, key) if ns.operator and key else None
    return WatchSettings(
        urls, prefix.strip("/"), ns.site, username, password, signer, tls_context, ns.session
    )


def build(settings: WatchSettings, on_notices: Any = None) -> tuple[FloorModel, WatchFeed]:
    model = FloorModel(settings.prefix, settings.site, can_replay=settings.signer is not None)
    feed = WatchFeed(
        model,
        url=settings.urls,
        username=settings.username,
        password=settings.password,
        signer=settings.signer,
        on_notices=on_notices,
        tls_context=settings.tls_context,
        session=settings.session,
    )
    return model, feed


def run_watch(ns: argparse.Namespace) -> int:
    try:
        settings = settings_from(ns)
    except ConfigError as exc:
        print("\n".join(exc.problems), file=sys.stderr)
        return 1
    except (KeyError, ValueError, OSError) as exc:
        print(f"floord watch: {exc}", file=sys.stderr)
        return 1
    if ns.json:
        return asyncio.run(run_json(settings, sys.stdout, ns.seconds))
    require_extra("console", "floord watch on a terminal (--json needs nothing more)")
    from floord.watch.app import WatchApp

    model, feed = build(settings)
    WatchApp(model, feed, seconds=ns.seconds).run()
    return 0


async def run_json(settings: WatchSettings, out: TextIO, seconds: float | None = None) -> int:
    """Print every notice as one JSON line until SIGINT/SIGTERM, `seconds`, or a closed pipe."""
    feed: WatchFeed | None = None

    def emit(notices: list[Notice]) -> None:
        try:
            for notice in notices:
                out.write(notice.to_json() + "\n")
            out.flush()
        except BrokenPipeError:
            if feed is not None:
                feed.stop()

    _, feed = build(settings, emit)
    loop = asyncio.get_running_loop()
    handled = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, feed.stop)
            handled.append(sig)
    timer = loop.call_later(seconds, feed.stop) if seconds is not None else None
    try:
        await feed.run()
    finally:
        if timer is not None:
            timer.cancel()
        for sig in handled:
            loop.remove_signal_handler(sig)
    return 0
