"""A table's events as a report reads them from its journal: decoded, each with its seq.

Every report that reads a journal (the wheel, dice and shuffle reports, the floor
report) reads it here, so each says the same of a file that is not there, a journal it
cannot read and a stored row that is not an event: a ValueError naming the file, the
stream and the row, which the command prints as one line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from floord.journal.errors import JournalError
from floord.journal.readers import stream_rows
from floord.untrusted import read_json


def stream_events(journal: Path, stream: str) -> list[tuple[int, dict[str, Any]]]:
    """Every event stored on `stream` in `journal`, in seq order, as (seq, event)."""
    if not journal.is_file():
        raise ValueError(f"no journal at {journal}")
    try:
        rows = stream_rows(journal, stream)
    except JournalError as exc:
        raise ValueError(str(exc)) from exc
    events = []
    for seq, body in rows:
        try:
            event = read_json(body)
        except ValueError as exc:
            raise ValueError(f"journal {journal}: {stream!r} seq {seq} is not JSON") from exc
        if not isinstance(event, dict):
            raise ValueError(f"journal {journal}: {stream!r} seq {seq} is not an event")
        events.append((seq, event))
    return events
