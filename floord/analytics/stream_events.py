"""A table's events as a report reads them from its journal: decoded, each with its seq.

Every report that reads a journal (the wheel, dice and shuffle reports, the floor
report) and the live tests refilled at a daemon's start read it here, the kinds of event
they count and no others (`stream_events` with its `types`), so each says the same of a file
that is not there, a journal it cannot read and a stored row that is not an event: a
ValueError naming the file, the stream and the row, which the command prints as one
line. `checked_event` is the same
check for an event a report takes from elsewhere (an archive's row): an envelope's
fields of the types the contract gives them, so a report reads them without a guard.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from pathlib import Path
from typing import Any

from floord.journal.errors import JournalError
from floord.journal.readers import stream_rows
from floord.untrusted import read_json


class EventError(ValueError):
    """A stored event that cannot be read as one, or whose content a reader cannot use
    (a result no wheel has): the message names the file or source and the row; `seq` is
    the row's, for a caller that records it (a table's start check)."""

    def __init__(self, message: str, seq: int) -> None:
        super().__init__(message)
        self.seq = seq


def stream_events(
    journal: Path, stream: str, types: Collection[str] | None = None, after: int = 0
) -> Iterator[tuple[int, dict[str, Any]]]:
    """The events stored on `stream` in `journal` (of `types` only, if given: none of
    the others is decoded), in seq order, as (seq, event), a batch at a time
    (`floord.journal.readers.stream_rows`): a reader's time and memory go with the
    events it wants, not with the whole record; with `after`, those of a later seq only.
    A stored row that is not an event is a
    ValueError naming it; one of another type is not read."""
    if not journal.is_file():
        raise ValueError(f"no journal at {journal}")
    rows = stream_rows(journal, stream, types, after)
    while True:
        try:
            seq, body = next(rows)
        except StopIteration:
            return
        except JournalError as exc:
            raise ValueError(str(exc)) from exc
        yield seq, _decoded(journal, stream, seq, body)


def _decoded(journal: Path, stream: str, seq: int, body: Any) -> dict[str, Any]:
    where = f"journal {journal}: {stream!r} seq {seq}"
    try:
        event = read_json(body)
    except ValueError as exc:
        raise EventError(f"{where} is not JSON", seq) from exc
    try:
        return checked_event(event, where)
    except ValueError as exc:
        raise EventError(str(exc), seq) from exc


def checked_event(event: Any, where: str) -> dict[str, Any]:
    """`event` if it is an envelope whose fields are of their types
    (`floord.contract.Envelope`: `rule` and `round` text or null, `data` an object, null
    read as `{}`), else a ValueError: `<where> is not an event`, and what is wrong."""
    if not isinstance(event, dict):
        raise ValueError(f"{where} is not an event")
    seq = event.get("seq")
    if not isinstance(seq, int) or isinstance(seq, bool):
        raise ValueError(f"{where} is not an event: its seq is {_kind(seq)}, not an integer")
    for key in ("site", "table", "ts", "type", "source"):
        if not isinstance(event.get(key), str):
            raise ValueError(f"{where} is not an event: its {key} is {_kind(event.get(key))}")
    for key in ("rule", "round"):
        if event.get(key) is not None and not isinstance(event[key], str):
            raise ValueError(f"{where} is not an event: its {key} is {_kind(event[key])}")
    data = event.get("data")
    if data is None:
        return {**event, "data": {}}
    if not isinstance(data, dict):
        raise ValueError(f"{where} is not an event: its data is {_kind(data)}, not an object")
    return event


_KINDS = {bool: "true or false", int: "a number", float: "a number", str: "text"}


def _kind(value: Any) -> str:
    """What a field holds, as the error says it."""
    if value is None:
        return "missing"
    return _KINDS.get(type(value), "a list" if isinstance(value, list) else "an object")
