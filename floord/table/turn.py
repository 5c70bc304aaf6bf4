"""A table's turn: what the runner took, what the engine decided of it, to be recorded.

The runner (`floord.table.runner`) takes the inputs waiting on its bus through the pure
engine and hands the outcome to its recorder (`floord.table.recorder`) as ONE `Turn`,
which the recorder commits in ONE transaction. A turn holds the inputs, the rows their
local devices' events take on their own streams, one `Step` per input that leaves
something on the record (the engine's decisions as the engine made them, each input's
instant formatted once), the table's snapshot as of the end of the turn, and an
operator command's id to mark used in the same transaction.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from floord.adapters.device_rows import Row
from floord.adapters.local import Received
from floord.contract import Envelope
from floord.engine.core.types import Decision
from floord.journal.append import Build
from floord.table.bus import BusItem


@dataclass(frozen=True)
class Step:
    """One input's part of a turn."""

    decisions: tuple[Decision, ...]
    ts: str
    # How a halt names the input if the journal refuses it (`floord.table.unrecorded`).
    named: dict[str, Any] | None = None
    # What follows once the input is on the record (never if it is not): the engine's
    # device commands are sent.
    effect: Callable[[], None] | None = None
    # A local device's event: its row on the device's stream, whose number the journal
    # reports back (what `named` gives as its `device_seq`).
    row: Row | None = None


@dataclass(frozen=True)
class Turn:
    """What one transaction records for a table: the local devices' rows of its inputs
    on their streams first, then every step's decisions, in order, then the snapshot;
    `command_id` (id, ts) marks an operator command's id used."""

    inputs: tuple[BusItem, ...]
    steps: tuple[Step, ...]
    snapshot: dict[str, Any]
    rows: tuple[Row, ...] = ()
    command_id: tuple[str, str] | None = None


def device_decision(item: Received, round_at_receipt: str | None) -> Decision:
    """A device's event as the table records it: its device as the source, the round
    in play when it arrived."""
    return Decision(
        type=item.event.type, data=item.event.data, round=round_at_receipt, source=item.device
    )


def builders(site: str, table: str, decisions: tuple[Decision, ...], ts: str) -> list[Build]:
    """The envelopes of `decisions`, each built once the journal gives it its `seq`."""
    return [_builder(site, table, decision, ts) for decision in decisions]


def _builder(site: str, table: str, decision: Decision, ts: str) -> Build:
    etype = str(decision.type)

    def build(seq: int) -> Envelope:
        return Envelope(
            site=site,
            table=table,
            seq=seq,
            ts=ts,
            type=etype,
            source=decision.source,
            data=decision.data,
            rule=decision.rule,
            round=decision.round,
        )

    return build
