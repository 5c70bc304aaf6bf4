"""What a table's runner commits together: each input's events, built for the journal.

An input (a device event, a tick, an operator command) leaves an `Entry`: the events it
caused, when, what to name it as in a halt should the journal refuse it, and what to do
once it is on the record (send the engine's device commands). The runner commits one or
more entries in ONE transaction with the table's snapshot (`floord.table.runner`), and
with the rows its local devices' events take on their own streams (`PendingRows`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from floord.adapters.device_rows import DeviceRows, Row
from floord.contract import Envelope
from floord.journal.append import Build
from floord.table.unrecorded import Pending


@dataclass(frozen=True)
class Entry:
    """One input's part of a commit."""

    items: list[Pending]
    ts: str
    # How a halt names the input if the journal refuses it (`floord.table.unrecorded`).
    named: dict[str, Any] | None = None
    # What follows once the input is on the record (never if it is not).
    then: Callable[[], None] | None = None


def builders(site: str, table: str, items: list[Pending], ts: str) -> list[Build]:
    """The envelopes of `items`, each built once the journal gives it its `seq`."""
    return [_builder(site, table, item, ts) for item in items]


def _builder(site: str, table: str, item: Pending, ts: str) -> Build:
    source, etype, data, rule, rnd = item

    def build(seq: int) -> Envelope:
        return Envelope(
            site=site,
            table=table,
            seq=seq,
            ts=ts,
            type=etype,
            source=source,
            data=data,
            rule=rule,
            round=rnd,
        )

    return build


class PendingRows:
    """The local devices' rows a table's next commit writes first, on their streams
    (`floord.adapters.device_rows`), numbered in the order the runner took them."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, int]] = []  # (device, seq), in order
        self._streams: dict[str, tuple[DeviceRows, list[Build], list[int]]] = {}

    def add(self, device: str, row: Row) -> int:
        """Take `row` into the commit; its seq on the device's stream."""
        seq = row.rows.number()
        self.rows.append((device, seq))
        _, builds, seqs = self._streams.setdefault(row.rows.stream, (row.rows, [], []))
        builds.append(row.build)
        seqs.append(seq)
        return seq

    def before(self) -> list[tuple[str, list[Build]]]:
        """(stream, builds) for `Journal.append_group`."""
        return [(stream, builds) for stream, (_, builds, _) in self._streams.items()]

    def written(self, devices: list[list[Envelope]]) -> None:
        """The commit holds them: each device stream's rows are on the record."""
        for (rows, _, seqs), envelopes in zip(self._streams.values(), devices, strict=True):
            rows.written([e.seq for e in envelopes], seqs)

    def refused(self, error: str) -> set[tuple[str, int]]:
        """The commit failed: the (device, seq) of every row it held, none recorded."""
        for rows, builds, _ in self._streams.values():
            rows.refused(len(builds), error)
        return set(self.rows)
