"""The inputs a table's journal refused, named in the halt once it can be recorded.

While the journal cannot record, the runner puts the engine back after each refused
input (docs/journal.md); this keeps who and what was refused, bounded, so the
`table.halted` that finally goes on the record says what the table missed. A local
device's event is named with its number on its device's stream as the journal reported
it back (`floord.adapters.device_rows`): 0 when its row went with the refused commit.
The daemon's stop names the inputs it did not act on the same way
(`floord.table.stopping`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from floord.adapters.device_rows import Row
from floord.contract import EventType
from floord.engine.core.types import Decision

# How many refused inputs a recorded halt names one by one; the rest are counted.
NAMED = 20


class Unrecorded:
    def __init__(self) -> None:
        self._noted: list[tuple[dict[str, Any], Row | None]] = []
        self.more = 0

    def note(self, described: dict[str, Any], row: Row | None = None) -> None:
        """Note an input; `row`, a local device's event's, gives its `device_seq`."""
        if len(self._noted) < NAMED:
            self._noted.append((described, row))
        else:
            self.more += 1

    @property
    def named(self) -> list[dict[str, Any]]:
        """The inputs noted one by one, each with its `device_seq` as it stands now."""
        return [d if row is None else {**d, "device_seq": row.seq} for d, row in self._noted]

    def mark(self) -> tuple[int, int]:
        """Where the list stands, for `forget_since`."""
        return len(self._noted), self.more

    def forget_since(self, mark: tuple[int, int]) -> None:
        """Forget the inputs noted since `mark`."""
        self._noted = self._noted[: mark[0]]
        self.more = mark[1]

    def clear(self) -> None:
        self._noted, self.more = [], 0

    def into_halt(self, pending: list[Decision]) -> tuple[Decision, ...]:
        """`pending` with its `table.halted` naming the refused inputs."""
        extra: dict[str, Any] = {"unrecorded_inputs": self.named}
        if self.more:
            extra["unrecorded_more"] = self.more
        return tuple(
            replace(d, data={**d.data, **extra}) if d.type == EventType.TABLE_HALTED else d
            for d in pending
        )


def command_named(command_id: str | None, name: str | None, source: str, ts: str) -> dict[str, Any]:
    """How a halt names an operator command the journal could not record."""
    return {
        "source": source,
        "type": "operator.command",
        "id": command_id,
        "name": name,
        "ts": ts,
    }
