"""The inputs a table's journal refused, named in the halt once it can be recorded.

While the journal cannot record, the runner puts the engine back after each refused
input (docs/journal.md); this keeps who and what was refused, bounded, so the
`table.halted` that finally goes on the record says what the table missed.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from floord.contract import EventType
from floord.engine.core.types import Decision

# How many refused inputs a recorded halt names one by one; the rest are counted.
NAMED = 20


class Unrecorded:
    def __init__(self) -> None:
        self.named: list[dict[str, Any]] = []
        self.more = 0

    def note(self, described: dict[str, Any]) -> None:
        if len(self.named) < NAMED:
            self.named.append(described)
        else:
            self.more += 1

    def clear(self) -> None:
        self.named, self.more = [], 0

    def into_halt(self, pending: list[Decision]) -> tuple[Decision, ...]:
        """`pending` with its `table.halted` naming the refused inputs."""
        extra: dict[str, Any] = {"unrecorded_inputs": list(self.named)}
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
