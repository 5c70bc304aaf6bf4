"""`floord archive`: the writer and the feed together, until SIGTERM or SIGINT.

The database is opened and migrated before the broker is touched, so a database that
cannot be used stops the archive at once with one line (systemd restarts it); once
running, a database that goes away is the writer's to wait for and a broker that goes
away the feed's. Under systemd (`Type=notify`) READY=1 goes out once the database is
open and the feed started. `check` does what `run` would before it subscribes: reads
the config and its secrets, opens the database and reads its schema version, writing
nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable
from dataclasses import dataclass

import structlog

from floord.archive.feed import ArchiveFeed
from floord.archive.postgres import PostgresStore
from floord.archive.requests import ReplayPlanner
from floord.archive.schema import VERSION
from floord.archive.settings import LoadedArchive
from floord.archive.sqlite_store import SqliteStore
from floord.archive.store import ArchiveDatabaseError, SchemaTooNew, Store
from floord.archive.writer import ArchiveWriter
from floord.mqtt.client import Broker
from floord.mqtt.tls import client_tls
from floord.system.sdnotify import keep_watchdog, notify, watchdog_interval_s

log = structlog.get_logger("floord.archive")

# How often the archive says where it stands (events held, gaps, lag) in the log.
STATUS_EVERY_S = 60.0
# How often the service looks whether its writer and its feed are still running.
CHECK_EVERY_S = 1.0


def store_opener(loaded: LoadedArchive, *, read_only: bool = False) -> Callable[[], Store]:
    """How the writer opens (and reopens) the archive's database."""
    url = loaded.config.database
    if url is None:
        path = loaded.sqlite_path
        return lambda: SqliteStore(path, read_only=read_only)
    password = loaded.database_password()
    return lambda: PostgresStore(url, password=password)


def check(loaded: LoadedArchive) -> str:
    """What `run` would refuse, refused here (raises); a line saying what was checked."""
    if loaded.config.database is None and not loaded.sqlite_path.exists():
        parent = loaded.sqlite_path.parent
        if not parent.is_dir():
            raise ArchiveDatabaseError(f"the archive file's folder {parent} does not exist")
        return f"archive config ok: a new SQLite archive {loaded.sqlite_path} will be made"
    store = store_opener(loaded, read_only=loaded.config.database is None)()
    try:
        version = store.read_version()
        if version > VERSION:
            raise SchemaTooNew(
                f"the archive database {store.where} is at schema version {version}, newer "
                f"than this floord's {VERSION}"
            )
        return (
            f"archive config ok: {store.where} at schema version {version} "
            f"(this floord's: {VERSION}), {store.count() if version else 0} events held"
        )
    finally:
        store.close()


@dataclass
class Archive:
    """One archive process's parts."""

    writer: ArchiveWriter
    feed: ArchiveFeed

    @classmethod
    def build(cls, loaded: LoadedArchive) -> Archive:
        cfg = loaded.config
        writer = ArchiveWriter(
            store_opener(loaded), batch_events=cfg.batch.events, batch_ms=cfg.batch.ms
        )
        broker = Broker.from_url(
            cfg.broker.nodes,
            username=cfg.broker.username,
            password=loaded.broker_password(),
            identifier=cfg.client_id,
            keepalive=cfg.broker.keepalive_s,
            tls_context=client_tls(cfg.broker, loaded.resolve),
        )
        key = loaded.signer_key()
        feed = ArchiveFeed(
            writer,
            broker,
            prefix=cfg.broker.topic_prefix,
            topics=loaded.topics(),
            planner=ReplayPlanner(
                grace_s=cfg.replay.grace_s,
                retry_s=cfg.replay.retry_s,
                max_outstanding=cfg.replay.max_outstanding,
            ),
            signer=(cfg.operator.id, key) if key is not None else None,
            ack_when_stored=cfg.acknowledge == "stored",
        )
        return cls(writer, feed)

    async def run(self, *, stop: asyncio.Event | None = None) -> int:
        """Open the database, then archive until `stop` is set; without one (the
        service), until SIGTERM or SIGINT."""
        signals = stop is None
        stop = stop if stop is not None else asyncio.Event()
        store = await asyncio.to_thread(self.writer.open)
        log.info(
            "archive started",
            database=store.where,
            schema=VERSION,
            events=self.writer.held,
            streams=self.writer.streams,
            gaps_missing=self.writer.missing,
        )
        self.writer.start()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT) if signals else ():
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, stop.set)
        feed = asyncio.create_task(self.feed.run())
        every = watchdog_interval_s()
        watchdog = (
            asyncio.create_task(keep_watchdog(every, self._ping)) if every is not None else None
        )
        notify("READY=1")
        try:
            said = loop.time()
            while not stop.is_set() and not feed.done() and self.writer.alive:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(CHECK_EVERY_S):
                        await stop.wait()
                if loop.time() - said >= STATUS_EVERY_S:
                    said = loop.time()
                    self._status()
        finally:
            notify("STOPPING=1")
            if watchdog is not None:
                watchdog.cancel()
            self.feed.stop()
            await asyncio.wait({feed})
            await asyncio.to_thread(self.writer.stop)
        self._status()
        if not feed.cancelled() and feed.exception() is not None:
            error = feed.exception()
            log.error("archive feed failed", error=str(error) or type(error).__name__)
            return 1
        if self.writer.failure is not None:
            return 1
        log.info("archive stopped", events=self.writer.held)
        return 0

    def _ping(self, message: str) -> None:
        """The watchdog's ping, only while the writer thread is alive: a writer that
        died leaves the service to systemd's restart."""
        if self.writer.alive:
            notify(message)

    def _status(self) -> None:
        lag, commit = self.writer.lag_p99(), self.writer.commit_p99()
        log.info(
            "archive status",
            events=self.writer.held,
            streams=self.writer.streams,
            missing=self.writer.missing,
            duplicates=self.writer.duplicates,
            breaks=self.writer.breaks,
            dropped=self.feed.dropped,
            replays=self.feed.replays_sent,
            lag_p99_s=round(lag, 3) if lag is not None else None,
            commit_p99_s=round(commit, 3) if commit is not None else None,
        )
