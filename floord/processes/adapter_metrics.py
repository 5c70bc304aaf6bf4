"""`floord adapter --metrics-listen HOST:PORT`: one device adapter's metrics and
`/healthz` served beside it (docs/metrics.md).

The same families as the daemon's, for what an adapter process holds: its device
online or not, the device's protocol errors and lost heartbeats (from the events it
records), its stream's seq, watermark and backlog, its journal's commits and queue,
its link's PUBACKs, connection and failovers. Ready when its journal is open and its
link connected.
"""

from __future__ import annotations

import asyncio
import contextlib

import structlog

import floord
from floord.adapters.local import Received
from floord.journal.store import JournalError
from floord.metrics.collectors import CONTENT_TYPE, FloordMetrics
from floord.metrics.readings import (
    JOURNAL_READ_S,
    DeviceReading,
    Health,
    LinkReading,
    Readings,
    StreamReading,
)
from floord.metrics.server import MetricsServer, keep_listening
from floord.processes.adapter import AdapterProcess


class AdapterMetrics:
    """One adapter process's metrics: wired in at `attach`, read at each scrape."""

    def __init__(self, process: AdapterProcess, site: str) -> None:
        self.process = process
        self.table = process.topics.table
        self.device = process.adapter.device
        self.metrics = FloordMetrics(site=site, version=floord.__version__, process="adapter")

    def attach(self) -> None:
        metrics, table, device = self.metrics, self.table, self.device
        metrics.device(table, device)
        self.process.link.acked_after = metrics.puback_observer(table)

        def heard(item: Received) -> None:
            metrics.heard(table, item.device, item.event.type, item.event.data)

        self.process.heard = heard
        self.process.journal.writer.time_commits(metrics.commit_seconds.observe)

    def detach(self) -> None:
        self.process.heard = None
        self.process.journal.writer.time_commits(None)

    async def render(self) -> bytes:
        self.metrics.show(await self.readings())
        return self.metrics.render()

    async def readings(self) -> Readings:
        process, table = self.process, self.table
        link, journal = process.link, process.journal
        stream = link.stream

        def read() -> tuple[list[StreamReading], dict[str, int]]:
            marks = journal.marks([stream])
            recorded = journal.last_seq(stream)
            reading = StreamReading(table, stream, recorded, marks.get(stream, 0))
            return [reading], {table: journal.backlog([stream])}

        streams: list[StreamReading] | None = None
        backlogs: dict[str, int] | None = None
        if not journal.writer.closed:
            with contextlib.suppress(TimeoutError, JournalError):
                async with asyncio.timeout(JOURNAL_READ_S):
                    streams, backlogs = await journal.call(read)
        return Readings(
            devices=[DeviceReading(table, self.device, process.adapter.online)],
            links=[LinkReading(table, link.connected, link.failovers, link.connections_lost)],
            streams=streams,
            backlogs=backlogs,
            journal_queue=journal.writer.queued(),
            journal_open=not journal.writer.closed,
        )

    async def health(self) -> Health:
        problems = []
        if self.process.journal.writer.closed:
            problems.append("journal closed")
        if not self.process.link.connected:
            problems.append(f"broker not connected for device {self.table}/{self.device}")
        return Health(tuple(problems))


async def run_with_metrics(process: AdapterProcess, site: str, host: str, port: int) -> None:
    """`process.run()`, its metrics served on `host:port` meanwhile."""
    log = structlog.get_logger("floord.metrics")
    served = AdapterMetrics(process, site)
    served.attach()
    server = MetricsServer(
        host, port, render=served.render, content_type=CONTENT_TYPE, health=served.health, log=log
    )
    listening = asyncio.create_task(keep_listening(server, f"{host}:{port}", log))
    try:
        await process.run()
    finally:
        listening.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await listening
        await server.close()
        served.detach()
