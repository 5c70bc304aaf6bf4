"""What a table's runner commits together: each input's events, built for the journal.

An input (a device event, a tick, an operator command) leaves an `Entry`: the events it
caused, when, what to name it as in a halt should the journal refuse it, and what to do
once it is on the record (send the engine's device commands). The runner commits one or
more entries in ONE transaction with the table's snapshot (`floord.table.runner`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

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
