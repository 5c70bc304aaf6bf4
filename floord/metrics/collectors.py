"""floord's metrics in a registry of their own: one per daemon or adapter process.

A registry of its own, not `prometheus_client`'s global one, so two daemons in one
process (the tests) do not share or clash, and nothing of a library's own registration
shows up unasked. Three kinds of figure:

- counted as it happens, on the event loop: the devices' protocol errors and lost
  heartbeats (from the events their adapters hand to the table: `heard`);
- observed as it happens: the journal's commit time (on the journal's thread) and the
  time from a batch's publish to its last PUBACK (on the loop); histograms;
- read when a scrape comes (`Readings`, gathered by the process on the loop): the
  tables' states and halts, the devices online, the streams' seqs and watermarks, the
  outbox's backlog, the journal's queue, the broker connections.

Process CPU and memory come from `prometheus_client`'s process collector (Linux's /proc).
The names and labels are listed in docs/metrics.md.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    ProcessCollector,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from floord.contract import EventType
from floord.metrics.readings import Readings

CONTENT_TYPE = CONTENT_TYPE_LATEST
# A commit with synchronous=FULL: a fraction of a millisecond on an SSD, milliseconds to
# tens of them on eMMC or an SD card; a busy file waits up to 5 s.
COMMIT_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0)
# A PUBACK: a millisecond on the box's own broker, tens of them across a site's network.
PUBACK_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0)
TABLE_STATES = ("open", "closed", "halted")


class FloordMetrics:
    """The registry of one process, its counters and histograms, and the collector that
    shows the latest `Readings`."""

    def __init__(self, *, site: str, version: str, process: str) -> None:
        self.registry = CollectorRegistry()
        self._readings = Readings()
        self._info = (site, version, process)
        ProcessCollector(registry=self.registry)
        self.registry.register(_ReadingsCollector(self))
        self.protocol_errors = Counter(
            "floord_device_protocol_errors",
            "Protocol errors of a device's line (malformed frames), as its adapter reported.",
            ["table", "device"],
            registry=self.registry,
        )
        self.heartbeats_lost = Counter(
            "floord_device_heartbeats_lost",
            "Times a device stopped sending its heartbeat (device.heartbeat_lost).",
            ["table", "device"],
            registry=self.registry,
        )
        self.commit_seconds = Histogram(
            "floord_journal_commit_seconds",
            "Time of each commit of events to the journal, fsync included.",
            registry=self.registry,
            buckets=COMMIT_BUCKETS,
        )
        self.puback_seconds = Histogram(
            "floord_mqtt_puback_seconds",
            "Time from a batch of events' publish to the broker's last PUBACK for it.",
            ["table"],
            registry=self.registry,
            buckets=PUBACK_BUCKETS,
        )

    def device(self, table: str, device: str) -> None:
        """Show a device's counters from zero before anything happens to it."""
        self.protocol_errors.labels(table, device)
        self.heartbeats_lost.labels(table, device)

    def heard(self, table: str, device: str, etype: str, data: dict[str, Any]) -> None:
        """A device event on its way to the table: count what the counters count."""
        if etype == EventType.DEVICE_PROTOCOL_ERROR:
            self.protocol_errors.labels(table, device).inc()
        elif etype == EventType.DEVICE_PROTOCOL_ERRORS:
            count = data.get("count")
            if isinstance(count, int) and not isinstance(count, bool) and count > 0:
                self.protocol_errors.labels(table, device).inc(count)
        elif etype == EventType.DEVICE_HEARTBEAT_LOST:
            self.heartbeats_lost.labels(table, device).inc()

    def puback_observer(self, table: str) -> Callable[[float], None]:
        return self.puback_seconds.labels(table).observe

    def show(self, readings: Readings) -> None:
        """What the next render shows of the process's state."""
        self._readings = readings

    def render(self) -> bytes:
        """The text exposition format of everything in the registry."""
        return generate_latest(self.registry)

    def families(self) -> Iterator[Metric]:
        """What a scrape reads: the process's info and the families of its last readings."""
        site, version, process = self._info
        info = GaugeMetricFamily(
            "floord_info",
            "floord's version and site (always 1).",
            labels=["site", "version", "process"],
        )
        info.add_metric([site, version, process], 1)
        yield info
        yield from _families(self._readings)


class _ReadingsCollector(Collector):
    def __init__(self, metrics: FloordMetrics) -> None:
        self._metrics = metrics

    def collect(self) -> Iterable[Metric]:
        return list(self._metrics.families())

    def describe(self) -> Iterable[Metric]:
        return []  # nothing to register up front: the families are made at each scrape


def _gauge(name: str, text: str, labels: list[str]) -> GaugeMetricFamily:
    return GaugeMetricFamily(name, text, labels=labels)


def _families(r: Readings) -> Iterator[Metric]:
    tables = _gauge("floord_tables", "Tables in each state.", ["state"])
    by_state = {state: 0 for state in TABLE_STATES}
    state = _gauge("floord_table_state", "1 for each table's current state.", ["table", "state"])
    halts = _gauge("floord_halts", "Halts latched now, by code, over all tables.", ["code"])
    by_code: dict[str, int] = {}
    halt = _gauge(
        "floord_table_halt", "1 for each halt latched on a table, by code.", ["table", "code"]
    )
    for t in r.tables:
        by_state[t.state] = by_state.get(t.state, 0) + 1
        state.add_metric([t.table, t.state], 1)
        for code in t.halt_codes:
            halt.add_metric([t.table, code], 1)
            by_code[code] = by_code.get(code, 0) + 1
    for name, count in sorted(by_state.items()):
        tables.add_metric([name], count)
    for code, count in sorted(by_code.items()):
        halts.add_metric([code], count)
    yield from (tables, state, halts, halt)
    online = _gauge(
        "floord_device_online", "1 while a device is online, else 0.", ["table", "device"]
    )
    for d in r.devices:
        online.add_metric([d.table, d.device], 1 if d.online else 0)
    yield online
    yield from _journal_families(r)
    connected = _gauge("floord_broker_connected", "1 while the broker connection is up.", ["table"])
    failovers = CounterMetricFamily(
        "floord_broker_failovers",
        "Connections made on another broker node than the last.",
        labels=["table"],
    )
    lost = CounterMetricFamily(
        "floord_broker_connections_lost",
        "Broker connections that were up and were lost.",
        labels=["table"],
    )
    for link in r.links:
        connected.add_metric([link.table], 1 if link.connected else 0)
        failovers.add_metric([link.table], link.failovers)
        lost.add_metric([link.table], link.connections_lost)
    yield from (connected, failovers, lost)


def _journal_families(r: Readings) -> Iterator[Metric]:
    yield GaugeMetricFamily(
        "floord_journal_open", "1 while the journal is open.", value=1 if r.journal_open else 0
    )
    yield GaugeMetricFamily(
        "floord_journal_queue_depth",
        "Jobs waiting for the journal's thread.",
        value=r.journal_queue,
    )
    if r.streams is None or r.backlogs is None:
        return  # the journal could not be read for this scrape: no stale figures
    recorded = CounterMetricFamily(
        "floord_events_recorded",
        "Events recorded on a journal stream (its last seq).",
        labels=["table", "stream"],
    )
    published = CounterMetricFamily(
        "floord_events_published",
        "Events of a stream the broker acknowledged (its published watermark).",
        labels=["table", "stream"],
    )
    for s in r.streams:
        recorded.add_metric([s.table, s.stream], s.recorded)
        published.add_metric([s.table, s.stream], s.published)
    backlog = _gauge(
        "floord_outbox_backlog", "Events recorded and not yet acknowledged.", ["table"]
    )
    for table, count in sorted(r.backlogs.items()):
        backlog.add_metric([table], count)
    yield from (recorded, published, backlog)


__all__ = ["CONTENT_TYPE", "FloordMetrics"]
