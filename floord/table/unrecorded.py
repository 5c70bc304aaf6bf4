"""The inputs a table's journal refused, named in the halt once it can be recorded.

While the journal cannot record, the runner puts the engine back after each refused
input (docs/journal.md); this keeps who and what was refused, bounded, so the
`table.halted` that finally goes on the record says what the table missed.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from floord.contract import EventType, format_ts

# How many refused inputs a recorded halt names one by one; the rest are counted.
NAMED = 20

# (source, type, data, rule, round) of one event to record, as the runner keeps it.
Pending = tuple[str, str, dict[str, Any], str | None, str | None]


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

    def into_halt(self, pending: list[Pending]) -> list[Pending]:
        """`pending` with its `table.halted` naming the refused inputs."""
        extra: dict[str, Any] = {"unrecorded_inputs": list(self.named)}
        if self.more:
            extra["unrecorded_more"] = self.more
        return [
            (src, etype, {**data, **extra} if etype == EventType.TABLE_HALTED else data, rule, rnd)
            for src, etype, data, rule, rnd in pending
        ]


def command_named(
    command_id: str | None, name: str | None, source: str, now: datetime
) -> dict[str, Any]:
    """How a halt names an operator command the journal could not record."""
    return {
        "source": source,
        "type": "operator.command",
        "id": command_id,
        "name": name,
        "ts": format_ts(now),
    }
