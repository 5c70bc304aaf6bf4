"""What one commit of the archive writes: rows of events, heads, gaps, epochs and breaks.

The writer thread fills a `Batch` from the events it classified and hands it to the
database in one transaction, so a crash leaves either all of it or none: the heads and
gaps are never ahead of the events they describe.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from floord.archive.arrivals import Arrival

# (site, stream, epoch): one stream's record between two restores.
StreamKey = tuple[str, str, int]


@dataclass(frozen=True)
class Head:
    """A stream's highest `seq` held in an epoch, and that event's hash."""

    high: int
    hash: str | None


@dataclass(frozen=True)
class Gap:
    """`seq`s `first`..`last` of a stream not held; `fillable` by a signed `replay`
    (a table's record), or not (a device's stream: no replay for a surveillance login)."""

    first: int
    last: int
    fillable: bool
    noticed_at: datetime


@dataclass(frozen=True)
class Epoch:
    """A stream going on after `after_seq` (hash `after_hash`) from a restored journal,
    told by the `journal.restored` event whose hash is `restored_hash`."""

    site: str
    stream: str
    epoch: int
    after_seq: int
    after_hash: str
    restored_hash: str
    noticed_at: datetime


@dataclass(frozen=True)
class BreakRow:
    """A link of a chain that does not hold, or an event that does not hash to itself."""

    site: str
    stream: str
    epoch: int
    seq: int
    kind: str
    detail: str
    hash: str
    body: str
    found_at: datetime


@dataclass
class Batch:
    """Everything one transaction writes."""

    events: list[tuple[int, Arrival]] = field(default_factory=list)  # (epoch, event)
    heads: dict[StreamKey, Head] = field(default_factory=dict)
    gaps: dict[StreamKey, list[Gap]] = field(default_factory=dict)
    epochs: list[Epoch] = field(default_factory=list)
    breaks: list[BreakRow] = field(default_factory=list)
    # Messages taken and not stored: already held (a redelivery or a replay's overlap).
    duplicates: int = 0

    def __len__(self) -> int:
        return len(self.events) + len(self.breaks) + len(self.epochs) + self.duplicates

    @property
    def writes(self) -> bool:
        return bool(self.events or self.heads or self.gaps or self.epochs or self.breaks)
