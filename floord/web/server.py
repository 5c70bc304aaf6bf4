"""`floord web`'s process: the one subscription, the HTTP(S) server, a clean stop.

Built from the console's config (`floord.web.settings`): the broker as a table box has
it (TLS, `urls` failover, the surveillance login), the console's own TLS and who may
view. `WebConsole` is also what `floord demo` starts in its own process, on loopback.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import socket
import ssl
import sys
from dataclasses import dataclass

import structlog
from aiohttp import web

from floord.config.secrets import read_secret, read_secret_text
from floord.mqtt.tls import client_tls
from floord.system.sdnotify import notify
from floord.watch.feed import ReplaySigner, WatchFeed
from floord.watch.model import FloorModel
from floord.web.app import build_app
from floord.web.auth import Access
from floord.web.forward import CommandLogin
from floord.web.history import History
from floord.web.hub import ACKS_KEPT, ARCHIVE_ACKS_S, Hub
from floord.web.settings import LoadedWebConfig


def server_tls(loaded: LoadedWebConfig) -> ssl.SSLContext | None:
    """The console's HTTPS context: TLS 1.2 at least; client certificates required when
    `tls.client_ca_file` is set. ValueError naming the key when a file does not load."""
    tls = loaded.config.tls
    if tls is None:
        return None
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    cert = loaded.resolve(tls.cert_file)
    key = loaded.resolve(tls.key_file) if tls.key_file is not None else None
    try:
        context.load_cert_chain(cert, key)
    except (OSError, ssl.SSLError) as exc:
        raise ValueError(
            f"{loaded.path}: tls.cert_file/key_file: a certificate and key expected ({exc})"
        ) from None
    if tls.client_ca_file is not None:
        try:
            context.load_verify_locations(loaded.resolve(tls.client_ca_file))
        except (OSError, ssl.SSLError) as exc:
            raise ValueError(
                f"{loaded.path}: tls.client_ca_file: a CA certificate expected ({exc})"
            ) from None
        context.verify_mode = ssl.CERT_REQUIRED
    return context


@dataclass
class Built:
    hub: Hub
    access: Access
    tls: ssl.SSLContext | None
    host: str
    port: int
    # The floor's archive, read for the History page and the acknowledgements.
    history: History | None = None


def build(loaded: LoadedWebConfig) -> Built:
    """Everything `run` needs, every file read; ValueError, OSError or PasswordFileError."""
    config = loaded.config
    broker = config.broker
    password = (
        read_secret_text(loaded.resolve(broker.password_file))
        if broker.password_file is not None
        else None
    )
    signer = None
    if config.replay_as is not None:
        key = read_secret(loaded.resolve(config.replay_as.key_file))
        if not key:
            raise ValueError(
                f"{loaded.path}: replay_as.key_file: a key expected, found an empty file"
            )
        signer = ReplaySigner(config.replay_as.operator, key)
    sites = config.sites
    model = FloorModel(
        broker.topic_prefix,
        sites[0] if sites and len(sites) == 1 else None,
        can_replay=signer is not None,
    )
    hub_ref: list[Hub] = []
    feed = WatchFeed(
        model,
        url=broker.nodes,
        username=broker.username,
        password=password,
        signer=signer,
        on_notices=lambda notices: hub_ref[0].on_notices(notices),
        tls_context=client_tls(broker, loaded.resolve),
    )
    tls_context = client_tls(broker, loaded.resolve)
    command_login = None
    if config.command_login is not None:
        secret = read_secret_text(loaded.resolve(config.command_login.password_file))
        command_login = CommandLogin(
            broker.nodes, config.command_login.username, secret, broker.topic_prefix, tls_context
        )
    hub = Hub(model, feed, sites, command_login)
    hub_ref.append(hub)
    tls = server_tls(loaded)
    access = Access(
        passwords=loaded.resolve(config.passwords) if config.passwords is not None else None,
        client_certs=config.tls is not None and config.tls.client_ca_file is not None,
        anonymous=config.anonymous,
        secure=tls is not None,
        session_s=config.session_hours * 3600,
    )
    history = None
    if loaded.archive_url is not None:
        history = History(loaded.archive_url, hub.sites)
        hub.acks_source = "archive"
    return Built(hub, access, tls, loaded.listen.host, loaded.listen.port, history)


class WebConsole:
    """The console running: its feed, its flushes and its HTTP server, until `stop()`."""

    def __init__(self, built: Built) -> None:
        self.built = built
        self._runner: web.AppRunner | None = None
        self._stopped = asyncio.Event()
        self.port = built.port
        self._log = structlog.get_logger("floord.web")

    @property
    def url(self) -> str:
        scheme = "https" if self.built.tls is not None else "http"
        host = f"[{self.built.host}]" if ":" in self.built.host else self.built.host
        return f"{scheme}://{host}:{self.port}/"

    async def start(self) -> None:
        """Listen (port 0: a free one, then `port` says which); the feed starts in `run`."""
        app = build_app(self.built.hub, self.built.access, self.built.history)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        # The socket is bound here, so that port 0 (a free one) can be read back.
        family = socket.AF_INET6 if ":" in self.built.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((self.built.host, self.built.port))
        except OSError:
            sock.close()
            await self._runner.cleanup()
            raise
        self.port = sock.getsockname()[1]
        site = web.SockSite(self._runner, sock, ssl_context=self.built.tls)
        await site.start()
        self._log.info("web.listening", url=self.url)

    async def close(self) -> None:
        """Stop listening, for a console started and never run."""
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    def stop(self) -> None:
        self._stopped.set()
        self.built.hub.feed.stop()

    async def run(self) -> None:
        """Serve until stop(); then close every browser's socket and the server."""
        if self._runner is None:
            await self.start()
        tasks = [
            asyncio.create_task(self.built.hub.feed.run()),
            asyncio.create_task(self.built.hub.run()),
        ]
        history = self.built.history
        if history is not None:
            merge = self.built.hub.merge_archived
            tasks.append(asyncio.create_task(history.follow_acks(merge, ACKS_KEPT, ARCHIVE_ACKS_S)))
        notify("READY=1")
        try:
            await self._stopped.wait()
        finally:
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            await self.close()
            self._log.info("web.stopped")


async def serve(loaded: LoadedWebConfig, announce: bool = True) -> int:
    console = WebConsole(build(loaded))
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, console.stop)
    try:
        await console.start()
    except OSError as exc:
        print(
            f"floord web: cannot listen on {loaded.config.listen}: {exc.strerror or exc}",
            file=sys.stderr,
        )
        return 1
    if announce:
        print(f"floord web: the console is at {console.url}", flush=True)
    await console.run()
    return 0
