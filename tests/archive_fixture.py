"""An archive file built from journals, as `floord archive` stores a floor's events.

The reports read `archive_events` (the schema below is the archive's own, exactly); a
test builds one in SQLite from the journals of its boxes, read through the journal's
read-only path (`floord.journal.readers`), so that a report read from the archive can be
compared with counts taken from the same journals directly.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

from floord.contract import format_ts
from floord.journal.readers import stream_names, stream_rows

SCHEMA = """
CREATE TABLE archive_events (
  site TEXT NOT NULL, stream TEXT NOT NULL,
  epoch INTEGER NOT NULL DEFAULT 0, seq BIGINT NOT NULL,
  table_id TEXT NOT NULL, device TEXT,
  ts TEXT NOT NULL,
  type TEXT NOT NULL, source TEXT NOT NULL, round TEXT, rule TEXT,
  hash TEXT NOT NULL, prev TEXT NOT NULL,
  body TEXT NOT NULL,
  stored_at TEXT NOT NULL,
  PRIMARY KEY (site, stream, epoch, seq));
"""


def archive_row(stream: str, body: str) -> tuple[object, ...]:
    """One envelope as the archive stores it: its columns, and its JSON as received."""
    event = json.loads(body)
    table, _, device = stream.partition("/devices/")
    return (
        event["site"],
        stream,
        0,
        event["seq"],
        table,
        device or None,
        event["ts"],
        event["type"],
        event["source"],
        event.get("round"),
        event.get("rule"),
        event["hash"],
        event["prev"],
        body,
        format_ts(datetime.now(UTC)),
    )


def build_archive(archive: Path, journals: Iterable[Path]) -> int:
    """Every stream of every journal loaded into a new archive file; the rows stored."""
    db = sqlite3.connect(archive)
    stored = 0
    try:
        db.executescript(SCHEMA)
        for journal in journals:
            for stream in stream_names(journal):
                rows = [archive_row(stream, body) for _, body in stream_rows(journal, stream)]
                db.executemany(f"INSERT INTO archive_events VALUES ({', '.join('?' * 15)})", rows)
                stored += len(rows)
        db.commit()
    finally:
        db.close()
    return stored
