"""What runs for one table, built from its config: engine, bus, adapters, link, runner.

The daemon builds every table this way before it serves any (`Daemon.open`, in a worker
thread), and `floord check` and `floord journal retire` build a table's engine and its
drivers' options as `floord run` would, so the three cannot disagree on what a table's
config means. Nothing here starts a task: building a table only reads the journal (its
snapshot, its surveillance history).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from floord.adapters.local import DeviceAdapter, Received, Sink, device_stream
from floord.adapters.remote import RemoteDevice, TableDevice
from floord.config.load import LoadedConfig
from floord.config.tables import TableConfig
from floord.contract import Topics
from floord.engine.core.snapshots import SnapshotError
from floord.games import registry
from floord.journal.chain import Break
from floord.journal.store import Journal
from floord.mqtt import TableLink
from floord.mqtt.tls import client_tls
from floord.operator.commands import Operators
from floord.processes.driver_record import driver_record
from floord.processes.table_watchers import table_watcher
from floord.profiles import DeviceProfile
from floord.table import watch_state
from floord.table.bus import CommandArrived, TableBus
from floord.table.port import LinkPort
from floord.table.runner import TableEngine, TableRunner
from floord.table.surveillance import saved_alerts


def build_engine(
    table: TableConfig, loaded: LoadedConfig, snapshot: dict[str, Any] | None
) -> TableEngine:
    """The game engine a table's config asks for, restored from its last snapshot.

    A state the engine cannot be restored from, or cannot give back (an edited one: a
    field of the wrong type, a value out of range), whatever it raises, is a
    `SnapshotError` naming the table and the journal: `check` and `run` refuse it in one
    line, as a state of another game (`floord journal retire` starts the table afresh)."""
    day = loaded.config.gaming_day
    common: dict[str, Any] = {  # what every engine takes
        "required_devices": [d.id for d in table.devices if d.required],
        "gaming_day_starts": day.starts,
        "timezone": day.timezone,
        "snapshot": snapshot,
    }
    if snapshot is None:
        return registry.build_engine(table, common, loaded.profiles)
    try:
        engine = registry.build_engine(table, common, loaded.profiles)
        engine.snapshot()  # what the runner takes first: a state that cannot be given back
        saved_alerts(snapshot.get("surveillance"))
    except (ValueError, TypeError, AttributeError, KeyError, IndexError, OverflowError) as exc:
        why = str(exc) if isinstance(exc, SnapshotError) else f"{type(exc).__name__}: {exc}"
        raise SnapshotError(f"{table.id}'s state in {loaded.journal_path}: {why}") from exc
    return engine


def driver_options(table: TableConfig, family: str) -> dict[str, Any]:
    """What a driver must know of the table's rules to judge its device's bytes."""
    return registry.driver_options(table, family)


@dataclass
class TableUnit:
    """Everything that runs for one table."""

    config: TableConfig
    topics: Topics
    bus: TableBus
    runner: TableRunner
    adapters: dict[str, TableDevice]
    link: TableLink
    streams: list[str]
    # Each device's profile as `daemon.started` records it: name, origin, path, hash.
    profiles: dict[str, dict[str, Any]] = field(default_factory=dict)
    # Each in-process device's driver and the package of its family (`driver_record`).
    drivers: dict[str, dict[str, Any]] = field(default_factory=dict)
    # Its runner's and its link's tasks, and its devices' (stopped first on a stop).
    tasks: list[asyncio.Task[Any]] = field(default_factory=list)
    device_tasks: list[asyncio.Task[Any]] = field(default_factory=list)
    # What building the table met on its record (an event its live tests could not be
    # refilled from): breaks its start check records and halts it for.
    record_breaks: list[Break] = field(default_factory=list)


class TableBuilder:
    """Builds each table of a loaded config on the daemon's one journal.

    `heard` is told every device event on its way to a table's bus (the metrics'
    counters); it is asked at each event, so it may be set after the tables are built.
    """

    def __init__(
        self,
        loaded: LoadedConfig,
        journal: Journal,
        clock: Callable[[], datetime],
        operators: Operators,
        heard: Callable[[str, Received], None],
    ) -> None:
        self.loaded = loaded
        self.journal = journal
        self.clock = clock
        self.operators = operators
        self.heard = heard

    def build(self, table: TableConfig) -> TableUnit:
        """The table's engine restored from its snapshot, its bus, its devices (in this
        process or followed over MQTT), its link and its runner; nothing started."""
        cfg = self.loaded.config
        topics = Topics(cfg.broker.topic_prefix, cfg.site, table.id)
        bus = TableBus()
        engine = build_engine(table, self.loaded, self.journal.load_snapshot(table.id))
        adapters: dict[str, TableDevice] = {}
        shelf, profiles, drivers = self.loaded.profiles, {}, {}

        def sink(item: Received) -> None:
            bus.put(item)
            self.heard(table.id, item)

        # A remote adapter publishes its own stream; the daemon only keeps a copy of it.
        local = [d.id for d in table.devices if not (d.remote or d.port is None)]
        streams = {table.id: topics.events}
        streams.update({device_stream(table.id, d): topics.device_events(d) for d in local})

        async def on_command(payload: bytes, replay_only: bool) -> None:
            bus.put(CommandArrived(payload, replay_only))

        link = TableLink(
            url=cfg.broker.nodes,
            username=cfg.broker.username,
            password=self.loaded.broker_password(),
            tls_context=client_tls(cfg.broker, self.loaded.resolve),
            topics=topics,
            journal=self.journal,
            streams=streams,
            state=lambda: runner.state(),
            devices=lambda: {d: a.availability() for d, a in adapters.items()},
            on_command=on_command,
            keepalive=cfg.broker.keepalive_s,
            client_id=f"floord-{cfg.site}-{table.id}",
        )
        # The one port the table's record reaches MQTT through (`floord.table.port`).
        port = LinkPort(link)
        for device in table.devices:
            sourced = shelf.open(device.profile)
            profile, profiles[device.id] = sourced.profile, sourced.record()
            # adapter: remote is a `floord adapter` process; a port it names is its own.
            if device.remote or device.port is None:
                adapters[device.id] = self._remote(
                    table.id, device.id, profile, topics, sink, port.recorded
                )
                continue
            drivers[device.id] = driver_record(profile)
            adapters[device.id] = DeviceAdapter(
                site=cfg.site,
                table=table.id,
                device=device.id,
                port=device.port,
                profile=profile,
                driver_options=driver_options(table, profile.family),
                journal=self.journal,
                sink=sink,
                clock=self.clock,
                on_recorded=port.recorded,
                # Its rows go in the table's commits: one fsync a frame, not two.
                in_table_commit=True,
            )
        breaks: list[Break] = []
        runner = TableRunner(
            surveillance=table_watcher(
                table,
                cfg.surveillance,
                self.loaded.profiles,
                self.loaded.journal_path,
                (self.journal.load_snapshot(table.id) or {}).get("surveillance"),
                breaks,
                keep=lambda t, watcher: watch_state.save(self.journal, t, watcher),
            ),
            site=cfg.site,
            table=table.id,
            engine=engine,
            journal=self.journal,
            bus=bus,
            adapters=adapters,
            operators=self.operators,
            clock=self.clock,
            committed=port,
        )
        return TableUnit(
            table,
            topics,
            bus,
            runner,
            adapters,
            link,
            list(streams),
            profiles,
            drivers,
            record_breaks=breaks,
        )

    def _remote(
        self,
        table: str,
        device: str,
        profile: DeviceProfile,
        topics: Topics,
        sink: Sink,
        recorded: Callable[[], None],
    ) -> RemoteDevice:
        """A device whose adapter runs as its own process, followed over MQTT."""
        cfg = self.loaded.config
        return RemoteDevice(
            site=cfg.site,
            table=table,
            device=device,
            profile=profile,
            topics=topics,
            journal=self.journal,
            sink=sink,
            clock=self.clock,
            url=cfg.broker.nodes,
            username=cfg.broker.username,
            password=self.loaded.broker_password(),
            keepalive=cfg.broker.keepalive_s,
            client_id=f"floord-{cfg.site}-{table}-remote-{device}",
            tls_context=client_tls(cfg.broker, self.loaded.resolve),
            on_recorded=recorded,
        )
