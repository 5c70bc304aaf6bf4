"""Pruning under the retention setting: each stream's oldest events go, the chain anchored.

Runs on the journal's own thread (`floord.journal.writer`), called by `Journal.prune`.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from floord.contract import format_ts, parse_ts
from floord.journal import watermark
from floord.journal.errors import JournalError, fail, rollback
from floord.untrusted import read_json


def prune_streams(db: sqlite3.Connection, path: Path, before_ts: str) -> int:
    """Delete each stream's oldest events, recorded before `before_ts`; return how many.

    Only a stream's leading run of events that are published AND older than the cut
    goes, and never its last event (the chain head stays on the record). The last
    pruned seq and its hash go into `pruned`, the anchor `verify` checks the first
    remaining event's `prev` against.
    """
    cut = format_ts(parse_ts(before_ts))
    deleted = 0
    try:
        db.execute("BEGIN IMMEDIATE")
        streams = db.execute("SELECT stream, last_seq FROM streams").fetchall()
        for stream, last_seq in streams:
            # A body that is no event with a time is kept, and all after it: damage is
            # evidence. (CASE tries its conditions in order: no JSON function sees text
            # that is not JSON.)
            keep = db.execute(
                "SELECT seq FROM events WHERE stream = ? AND (seq > ? OR CASE "
                "WHEN NOT json_valid(body) THEN 1 WHEN json_type(body, '$.ts') IS NOT 'text' "
                "THEN 1 ELSE json_extract(body, '$.ts') >= ? END) ORDER BY seq LIMIT 1",
                (stream, watermark.mark(db, stream), cut),
            ).fetchone()
            up_to = min(keep[0] - 1 if keep else last_seq, last_seq - 1)
            row = db.execute(
                "SELECT body FROM events WHERE stream = ? AND seq = ?", (stream, up_to)
            ).fetchone()
            if row is None:
                continue  # nothing old enough, or pruned up to here already
            body = read_json(row[0])
            last_hash = body.get("hash") if isinstance(body, dict) else None
            if not isinstance(last_hash, str):
                raise JournalError(f"journal {path}: {stream!r} seq {up_to} is unchained")
            cur = db.execute("DELETE FROM events WHERE stream = ? AND seq <= ?", (stream, up_to))
            deleted += cur.rowcount
            db.execute(
                "INSERT INTO pruned (stream, up_to_seq, last_hash, pruned_before) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (stream) DO UPDATE SET "
                "up_to_seq = excluded.up_to_seq, last_hash = excluded.last_hash, "
                "pruned_before = excluded.pruned_before",
                (stream, up_to, last_hash, cut),
            )
        db.execute("COMMIT")
    except JournalError:
        rollback(db)
        raise
    except (sqlite3.Error, ValueError) as exc:
        rollback(db)
        raise fail(path, "prune", exc) from exc
    return deleted
