"""One driver adapter as its own process: `floord adapter -c CONFIG --table T --device D`.

The adapter is the same `DeviceAdapter` a table box runs in-process (transport, driver,
supervision, journaling on `<table>/devices/<device>`), with its own journal file and,
instead of a sink to a table's bus, an `AdapterLink` that publishes the journal's rows
on `P/devices/<device>/events` and serves the daemon's commands and replay requests.
The daemon reaches it through `floord.adapters.remote.RemoteDevice` (`adapter: remote`).

Under systemd (`floord-adapter@.service`, Type=notify) it says READY=1 once it is
connected to the broker and has tried the device's port once.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import structlog

from floord.adapters.link import AdapterLink
from floord.adapters.local import DeviceAdapter, Received
from floord.config.load import LoadedConfig, NotInConfig
from floord.config.tables import DeviceConfig, TableConfig
from floord.contract import Topics
from floord.events import DeviceCommand
from floord.instants import utc_instant
from floord.journal.store import Journal
from floord.mqtt.tls import client_tls
from floord.processes import long_lived
from floord.processes.table_units import driver_options
from floord.system.sdnotify import keep_watchdog, notify, watchdog_interval_s

# How often the adapter says it is alive, as a share of the device's silence timeout: the
# daemon calls the device offline after `silence_s` without a word from the adapter.
HEARTBEATS_PER_SILENCE = 4
STOP_DRAIN_S = 3.0
READY_GRACE_S = 1.0


def adapter_journal_path(loaded: LoadedConfig, table: str, device: str) -> Path:
    """`<journal dir>/adapter-<table>-<device>.db`: never the daemon's own journal file."""
    return loaded.journal_path.parent / f"adapter-{table}-{device}.db"


def find_device(
    loaded: LoadedConfig, table_id: str, device_id: str
) -> tuple[TableConfig, DeviceConfig]:
    """The table and device of the config; KeyError naming what is there if not found."""
    table = loaded.table(table_id)
    for device in table.devices:
        if device.id == device_id:
            return table, device
    known = ", ".join(d.id for d in table.devices)
    raise NotInConfig(f"no device {device_id!r} on table {table_id!r} (devices: {known})")


class AdapterProcess:
    """Runs one device's adapter and its MQTT link until asked to stop."""

    def __init__(
        self,
        loaded: LoadedConfig,
        table: str,
        device: str,
        *,
        port: str | None = None,
        journal_path: Path | None = None,
        clock: Callable[[], datetime] = utc_instant,
    ) -> None:
        table_cfg, device_cfg = find_device(loaded, table, device)
        port = port or device_cfg.port
        if not port:
            raise ValueError(
                f"device {device!r} of table {table!r} names no port in {loaded.path} "
                "(adapter: remote is the daemon's view); give --port or a config with its port"
            )
        cfg = loaded.config
        self.topics = Topics(cfg.broker.topic_prefix, cfg.site, table)
        self.profile = loaded.profiles.load(device_cfg.profile)
        self._log = structlog.get_logger("floord.adapter_process").bind(table=table, device=device)
        self._stop = asyncio.Event()
        # Told every event the adapter recorded (the metrics' counters).
        self.heard: Callable[[Received], None] | None = None
        # Its own journal, locked: a second adapter for the device is refused (JournalInUse).
        self.journal = Journal(journal_path or adapter_journal_path(loaded, table, device))
        try:
            self.adapter = DeviceAdapter(
                site=cfg.site,
                table=table,
                device=device,
                port=port,
                profile=self.profile,
                driver_options=driver_options(table_cfg, self.profile.family),
                journal=self.journal,
                sink=self._recorded,
                clock=clock,
            )
            self.link = AdapterLink(
                url=cfg.broker.nodes,
                username=cfg.broker.username,
                password=loaded.broker_password(),
                topics=self.topics,
                device=device,
                journal=self.journal,
                on_command=self._command,
                announce=self.adapter.announce,
                device_online=lambda: self.adapter.online,
                heartbeat_s=self.profile.timeouts.silence_s / HEARTBEATS_PER_SILENCE,
                keepalive=cfg.broker.keepalive_s,
                client_id=f"floord-adapter-{cfg.site}-{table}-{device}",
                tls_context=client_tls(cfg.broker, loaded.resolve),
            )
        except BaseException:
            self.journal.close()  # and its lock with it
            raise

    def _recorded(self, item: Received) -> None:
        """The adapter journaled an event: the link publishes it (no bus here)."""
        self.link.notify()
        if self.heard is not None:
            self.heard(item)

    async def _command(self, command: DeviceCommand) -> None:
        reply = await self.adapter.send(command)
        self._log.info("device command", name=command.name, reply=reply.text if reply else None)

    def request_stop(self) -> None:
        self._stop.set()

    async def _ready_when_tried(self) -> None:
        """READY=1 once the broker took the connection and the device was tried: its
        first connection attempt had an outcome, or the profile's connect timeout (+1 s)
        passed, so a port that opens but stays quiet cannot hold readiness back."""
        bound = self.profile.timeouts.connect_s + READY_GRACE_S
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(bound):
                await self.adapter.tried.wait()
        while not self.link.connected:
            await asyncio.sleep(0.05)
        notify("READY=1")
        frozen = long_lived.settle()
        self._log.info("adapter ready", port=self.adapter.port, objects_frozen=frozen)

    async def run(self) -> None:
        """Run until request_stop() (or SIGTERM/SIGINT), then stop cleanly."""
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, self.request_stop)
        device = asyncio.create_task(self.adapter.run())
        link = asyncio.create_task(self.link.run())
        helpers: list[asyncio.Task[Any]] = [asyncio.create_task(self._ready_when_tried())]
        every = watchdog_interval_s()
        if every:
            helpers.append(asyncio.create_task(keep_watchdog(every)))
        try:
            await self._stop.wait()
        finally:
            notify("STOPPING=1")
            self.adapter.stop()
            device.cancel()
            await asyncio.gather(device, return_exceptions=True)
            deadline = loop.time() + STOP_DRAIN_S
            while (
                loop.time() < deadline and self.link.connected and await self.link.backlog_async()
            ):
                await asyncio.sleep(0.05)
            await self.link.stop()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(STOP_DRAIN_S + 3.0):
                    await asyncio.shield(link)
            link.cancel()
            for task in helpers:
                task.cancel()
            await asyncio.gather(link, *helpers, return_exceptions=True)
            # Its last job folds the published marks into the rows: off the loop too.
            await asyncio.to_thread(self.journal.close)
            self._log.info("adapter stopped")
