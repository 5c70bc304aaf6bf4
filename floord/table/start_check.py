"""What `floord run` checks of each table's record before the table plays again.

On start, for each table: the last `TAIL_EVENTS` events of its streams (its own and
each local device's) and its snapshot, latched halts included
(`floord.journal.integrity`). The full walk stays a tool (`floord journal verify`).

A break is recorded as a `journal.integrity` event naming it, logged, and halts the
table with `journal_integrity` (fail closed): a table whose record cannot be vouched
for does not play on silently. Like every halt it is latched and lifted only by a
recorded `resume`. A break already named by a `journal.integrity` event still in the
tail is not recorded again (the floorperson who resumed knew of it); it is logged.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

import structlog

from floord.contract import EventType
from floord.engine.core.types import Decision, EngineOutput
from floord.journal.chain import Break
from floord.journal.integrity import TAIL_EVENTS
from floord.journal.store import Journal, JournalError
from floord.untrusted import read_json

HALT_CODE = "journal_integrity"
NAMED = 10  # breaks named one by one in the event and the halt

_log = structlog.get_logger("floord.start_check")


class Halting(Protocol):
    """What the engine must offer: a latched halt (every game engine has it)."""

    def halt(self, code: str, detail: str, now: datetime) -> EngineOutput: ...


async def check_on_start(
    journal: Journal,
    table: str,
    streams: list[str],
    engine: Halting,
    now: datetime,
    met: Sequence[Break] = (),
) -> EngineOutput:
    """The decisions that record a broken record and halt the table (none when whole),
    its reads one job on the journal's thread, awaited: the loop goes on (other tables,
    devices, the broker) while this table's record is walked. `met`: breaks found
    before it, building the table (a recorded event its live tests could not read)."""
    found, known = await journal.call(lambda: _read(journal, table, streams, list(met)))
    return _decide(found, known, table, streams, engine, now)


Key = tuple[str, int, str]


def _read(
    journal: Journal, table: str, streams: list[str], met: list[Break]
) -> tuple[list[Break], set[Key]]:
    """The breaks found (after those `met` before), and those already named on the
    record (on the journal's thread); a record that cannot be read is a break itself
    (fail closed)."""
    try:
        found = [*met, *journal.integrity_breaks(table, streams)]
        if not any(b.kind == "halt_unsupported" for b in found):
            found += _snapshot_missing(journal, table)
        return found, _already_named(journal, table, found)
    except JournalError as exc:
        return [*met, Break(table, 0, "unreadable", f"cannot be checked: {exc}")], set()
    except Exception as exc:  # a file no floord wrote: whatever it raises, the table halts
        return [*met, Break(table, 0, "unreadable", f"cannot be checked: {exc!r}")], set()


def _decide(
    found: list[Break],
    known: set[Key],
    table: str,
    streams: list[str],
    engine: Halting,
    now: datetime,
) -> EngineOutput:
    fresh = [b for b in found if _key(b) not in known]
    if not found:
        _log.info("journal tail checked", table=table, events=TAIL_EVENTS, streams=len(streams))
        return EngineOutput()
    if not fresh:
        _log.warning("journal breaks already recorded", table=table, breaks=[str(b) for b in found])
        return EngineOutput()
    named = [str(b) for b in fresh[:NAMED]]
    _log.error("journal record broken: table halted", table=table, breaks=named)
    data = {
        "ok": False,
        "checked": {"streams": streams, "last_events": TAIL_EVENTS, "snapshot": True},
        "breaks": [
            {"stream": b.stream, "seq": b.seq, "kind": b.kind, "detail": b.detail}
            for b in fresh[:NAMED]
        ],
        "more": max(0, len(fresh) - NAMED),
        "policy": "floord policy: a table whose record cannot be vouched for halts",
    }
    out = EngineOutput([Decision(EventType.JOURNAL_INTEGRITY, data, source="daemon")])
    out.extend(engine.halt(HALT_CODE, "; ".join(named), now))
    return out


def _key(b: Break) -> Key:
    return (b.stream, b.seq, b.kind)


def _snapshot_missing(journal: Journal, table: str) -> list[Break]:
    """A table whose record has events has its snapshot (every turn writes it, in the
    same transaction), unless its state was retired on the record (`table.retired`, its
    last event). Without one the engine starts afresh: its round count back at 1, its
    round ids used again. (A halted table's missing snapshot is `halt_unsupported`
    already, the caller's.)"""
    last = journal.last_seq(table)
    if not isinstance(last, int) or last < 1 or journal.load_snapshot(table) is not None:
        return []
    final = journal.last_event(table)
    if final is not None and final.get("type") == EventType.TABLE_RETIRED:
        return []
    detail = "the table's record has events but no snapshot: its state would start afresh"
    return [Break(table, last, "snapshot_missing", detail)]


def _already_named(journal: Journal, table: str, found: list[Break]) -> set[Key]:
    """Breaks named by the `journal.integrity` events among the table's last events.

    Only a naming event that is whole counts (none of `found` is at its own seq), and of
    the table's own stream only the breaks before it: the record of a break comes after
    the break. So an event edited into one that names itself, or a later event, does not
    excuse what it names (it is a break itself), and a named break whose fields are not
    of their types names nothing. A break of no row (seq 0: the record could not be
    checked at all) is never known: it halts the table at every start until mended."""
    last = journal.last_seq(table)
    if not isinstance(last, int) or last < 1:
        return set()
    broken = {b.seq for b in found if b.stream == table}
    first = max(1, last - TAIL_EVENTS)
    known: set[Key] = set()
    for seq, text in enumerate(journal.read_range(table, first, last), start=first):
        if seq in broken:
            continue
        try:
            body = read_json(text)
        except ValueError:
            continue
        if not isinstance(body, dict) or body.get("type") != EventType.JOURNAL_INTEGRITY:
            continue
        data = body.get("data")
        named = data.get("breaks") if isinstance(data, dict) else None
        for b in named if isinstance(named, list) else []:
            key = _named_key(b)
            if key is not None and key[1] > 0 and (key[0] != table or key[1] < seq):
                known.add(key)
    return known


def _named_key(named: object) -> Key | None:
    """(stream, seq, kind) of one break as a `journal.integrity` event names it; None
    when it is not one."""
    if not isinstance(named, dict):
        return None
    stream, seq, kind = named.get("stream"), named.get("seq"), named.get("kind")
    if not isinstance(stream, str) or not isinstance(kind, str):
        return None
    if not isinstance(seq, int) or isinstance(seq, bool):
        return None
    return (stream, seq, kind)
