"""`floord run` with a `metrics:` section: the daemon's metrics and `/healthz` served
beside it (docs/metrics.md).

Observed from the daemon's wiring, not inside the tables: each device event on its way
to a table's bus (`Daemon.heard`), each commit's time on the journal's thread
(`WriterThread.time_commits`), each batch's publish-to-PUBACK time from the table links
(`TableLink.acked_after`); and, when a scrape comes, each table's public state (what
`P/state` says), its devices, its link and, on the journal's thread, its streams' seqs,
watermarks and backlog. Imported only when the section is there: `prometheus_client`
is an extra.
"""

from __future__ import annotations

import asyncio
import contextlib

import structlog

import floord
from floord.adapters.local import Received
from floord.config.metrics import MetricsConfig
from floord.journal.store import JournalError
from floord.metrics.collectors import CONTENT_TYPE, FloordMetrics
from floord.metrics.readings import (
    JOURNAL_READ_S,
    DeviceReading,
    Health,
    LinkReading,
    Readings,
    StreamReading,
    TableReading,
)
from floord.metrics.server import MetricsServer, keep_listening
from floord.processes.daemon import Daemon
from floord.processes.table_units import TableUnit


class DaemonMetrics:
    """One daemon's metrics: wired into it at `attach`, read at each scrape."""

    def __init__(self, daemon: Daemon) -> None:
        cfg = daemon.loaded.config
        self.daemon = daemon
        self.metrics = FloordMetrics(site=cfg.site, version=floord.__version__, process="run")

    def attach(self) -> None:
        metrics = self.metrics
        for unit in self.daemon.tables.values():
            for device in unit.adapters:
                metrics.device(unit.config.id, device)
            unit.link.acked_after = metrics.puback_observer(unit.config.id)

        def heard(table: str, item: Received) -> None:
            metrics.heard(table, item.device, item.event.type, item.event.data)

        self.daemon.heard = heard
        self.daemon.journal.writer.time_commits(metrics.commit_seconds.observe)

    def detach(self) -> None:
        self.daemon.heard = None
        self.daemon.journal.writer.time_commits(None)

    async def render(self) -> bytes:
        self.metrics.show(await self.readings())
        return self.metrics.render()

    async def readings(self) -> Readings:
        units = list(self.daemon.tables.values())
        tables, devices, links = [], [], []
        for unit in units:
            table = unit.config.id
            state = unit.runner.state()
            reasons = state.get("halt_reasons") or []
            codes = tuple(str(r.get("code")) for r in reasons if isinstance(r, dict))
            tables.append(TableReading(table, str(state.get("state")), codes))
            devices += [DeviceReading(table, d, a.online) for d, a in unit.adapters.items()]
            link = unit.link
            links.append(LinkReading(table, link.connected, link.failovers, link.connections_lost))
        journal = self.daemon.journal
        streams, backlogs = await self._journal_figures(units)
        return Readings(
            tables=tables,
            devices=devices,
            links=links,
            streams=streams,
            backlogs=backlogs,
            journal_queue=journal.writer.queued(),
            journal_open=not journal.writer.closed,
        )

    async def _journal_figures(
        self, units: list[TableUnit]
    ) -> tuple[list[StreamReading] | None, dict[str, int] | None]:
        """Each stream's last seq and watermark, each table's backlog: one job on the
        journal's thread, bounded; (None, None) if the journal does not answer in time."""
        journal = self.daemon.journal
        if journal.writer.closed:
            return None, None

        def read() -> tuple[list[StreamReading], dict[str, int]]:
            streams: list[StreamReading] = []
            backlogs: dict[str, int] = {}
            for unit in units:
                table = unit.config.id
                marks = journal.marks(unit.streams)
                for stream in unit.streams:
                    recorded = journal.last_seq(stream)
                    streams.append(StreamReading(table, stream, recorded, marks.get(stream, 0)))
                backlogs[table] = journal.backlog(unit.streams)
            return streams, backlogs

        try:
            async with asyncio.timeout(JOURNAL_READ_S):
                return await journal.call(read)
        except (TimeoutError, JournalError):
            return None, None

    async def health(self) -> Health:
        """Ready when the journal is open and every table records, and every table's
        link is connected to the broker."""
        problems = []
        if self.daemon.journal.writer.closed:
            problems.append("journal closed")
        for unit in self.daemon.tables.values():
            table = unit.config.id
            if unit.runner.record_failure:
                problems.append(
                    f"journal not recording table {table}: {unit.runner.record_failure}"
                )
            if not unit.link.connected:
                problems.append(f"broker not connected for table {table}")
        return Health(tuple(problems))


async def run_with_metrics(daemon: Daemon, settings: MetricsConfig) -> None:
    """`daemon.run()`, its metrics served on `settings.listen` meanwhile."""
    host, port = settings.address()
    log = structlog.get_logger("floord.metrics")
    served = DaemonMetrics(daemon)
    served.attach()
    server = MetricsServer(
        host, port, render=served.render, content_type=CONTENT_TYPE, health=served.health, log=log
    )
    listening = asyncio.create_task(keep_listening(server, settings.listen, log))
    try:
        await daemon.run()
    finally:
        listening.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await listening
        await server.close()
        served.detach()
