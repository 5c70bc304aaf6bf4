"""What a scrape reads of a running process, as plain values.

The daemon and the adapter process each gather a `Readings` on the event loop (and the
journal's figures on the journal's thread) when a scrape comes; the collectors
(`floord.metrics.collectors`) turn it into metric families. Nothing here imports
`prometheus_client`, so the processes can build readings without it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# How long a scrape waits for the journal's figures (its thread may be in a long commit):
# past it, the scrape shows the rest without them.
JOURNAL_READ_S = 2.0


@dataclass(frozen=True)
class TableReading:
    """One table: its state (`open`, `closed`, `halted`) and the codes of its halts."""

    table: str
    state: str
    halt_codes: tuple[str, ...] = ()


@dataclass(frozen=True)
class DeviceReading:
    table: str
    device: str
    online: bool


@dataclass(frozen=True)
class StreamReading:
    """One journal stream: its last seq (every event ever recorded on it: seq is
    gap-free from 1) and its published watermark (every event up to it acknowledged by
    the broker)."""

    table: str
    stream: str
    recorded: int
    published: int


@dataclass(frozen=True)
class LinkReading:
    """One broker connection: up or not, and how often it moved node or was lost."""

    table: str
    connected: bool
    failovers: int
    connections_lost: int


@dataclass(frozen=True)
class Readings:
    """Everything a scrape shows but the counters and histograms kept as things happen.

    `streams` and `backlogs` (events not yet acknowledged, by table) are None when the
    journal could not be read for this scrape."""

    tables: list[TableReading] = field(default_factory=list)
    devices: list[DeviceReading] = field(default_factory=list)
    links: list[LinkReading] = field(default_factory=list)
    streams: list[StreamReading] | None = None
    backlogs: dict[str, int] | None = None
    journal_queue: int = 0
    journal_open: bool = True


@dataclass(frozen=True)
class Health:
    """`/healthz`: ready only when the journal is open (and recording) and the broker
    connected; otherwise why not, one reason a line."""

    problems: tuple[str, ...] = ()

    @property
    def ready(self) -> bool:
        return not self.problems
