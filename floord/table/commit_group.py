"""The rows a table's local devices' events take on their own streams, written first
in the table's next commit (`floord.table.recorder`)."""

from __future__ import annotations

from floord.adapters.device_rows import DeviceRows, Row
from floord.contract import Envelope
from floord.journal.append import Build


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
