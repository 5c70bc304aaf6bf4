"""The live tests' windows kept beside a table's record, so a start goes on from them.

A wheel table's live tests (`floord.table.surveillance`) are a function of every result
on its record: replaying all of them at a start takes a time that grows with the record
(a month of a busy wheel: about 2 s a table). So the daemon saves the tests' state when it has
warmed them up at a start and again at a clean stop (`floord.table.watch_state`); the
next start takes it and replays only the results recorded after it.

One row a table, `watch_states`: the state, the table stream's head when it was saved
(`after_seq`, `after_hash`) and a SHA-256 over the four (`hash`). A row is taken only
when it is whole (its hash), its head is still on the chain (the event at `after_seq`
has that hash) and the stream has not been cut back before it; otherwise `load` says
why and the start replays the record as if nothing was saved. Like a snapshot, a row
someone rebuilt with its hash passes: it changes what the statistics remember, never
the record or a ruling (docs/journal.md).

The table is created with the others (`floord.journal.schema`): additive, so the
schema version stays 3, and a floord that knows nothing of it ignores it.
"""

from __future__ import annotations

import hashlib
import sqlite3
from dataclasses import dataclass
from typing import Any

from floord.journal.chain import canonical_bytes, canonical_text
from floord.untrusted import read_json

SCHEMA = """
CREATE TABLE IF NOT EXISTS watch_states (
    table_id TEXT PRIMARY KEY,
    state TEXT NOT NULL,
    after_seq INTEGER NOT NULL,
    after_hash TEXT,
    hash TEXT NOT NULL
);
"""


@dataclass(frozen=True)
class SavedWatch:
    """A table's saved live tests, found whole and on the chain: the state, and the
    seq of its stream's head when it was saved (results after it are to replay)."""

    after_seq: int
    state: dict[str, Any]


def watch_hash(table: str, after_seq: int, after_hash: str | None, state: Any) -> str:
    """SHA-256 (hex) of a saved watch's canonical form."""
    body = {"watch_of": table, "after_seq": after_seq, "prev": after_hash, "state": state}
    return hashlib.sha256(canonical_bytes(body)).hexdigest()


def save(db: sqlite3.Connection, table: str, state: dict[str, Any]) -> int:
    """Keep `state` as the table's, at its stream's head now (inside the caller's
    transaction); the head's seq."""
    return save_text(db, table, canonical_text(state))


def save_text(db: sqlite3.Connection, table: str, text: str) -> int:
    """`save`, the state given as its canonical text (`canonical_text`): what a commit
    during play carries, encoded on the loop's thread while the watcher was as the
    commit's events left it."""
    head = db.execute(
        "SELECT last_seq, last_hash FROM streams WHERE stream = ?", (table,)
    ).fetchone()
    after_seq, after_hash = head if head else (0, None)
    own = watch_hash(table, after_seq, after_hash, read_json(text))
    db.execute(
        "INSERT INTO watch_states (table_id, state, after_seq, after_hash, hash) "
        "VALUES (?, ?, ?, ?, ?) ON CONFLICT (table_id) DO UPDATE SET state = excluded.state, "
        "after_seq = excluded.after_seq, after_hash = excluded.after_hash, "
        "hash = excluded.hash",
        (table, text, after_seq, after_hash, own),
    )
    return int(after_seq)


def drop(db: sqlite3.Connection, table: str) -> None:
    db.execute("DELETE FROM watch_states WHERE table_id = ?", (table,))


def load(db: sqlite3.Connection, table: str) -> SavedWatch | str:
    """The table's saved watch, or why there is none to take (read only: `check` and
    the start's read-only connections ask it)."""
    exists = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'watch_states'"
    ).fetchone()
    if exists is None:
        return "none saved"
    row = db.execute(
        "SELECT state, after_seq, after_hash, hash FROM watch_states WHERE table_id = ?",
        (table,),
    ).fetchone()
    if row is None:
        return "none saved"
    text, after_seq, after_hash, own = row
    try:
        state = read_json(text)
    except (ValueError, TypeError):
        return "its state is not JSON"
    if not isinstance(state, dict) or type(after_seq) is not int or after_seq < 0:
        return "it is not a state and a seq"
    if own != watch_hash(table, after_seq, after_hash, state):
        return "its hash does not match it"
    return _on_chain(db, table, after_seq, after_hash) or SavedWatch(after_seq, state)


def _on_chain(db: sqlite3.Connection, table: str, after_seq: int, after_hash: Any) -> str | None:
    """Why the head a watch was saved at is not the table's chain now (None: it is)."""
    head = db.execute("SELECT last_seq FROM streams WHERE stream = ?", (table,)).fetchone()
    if after_seq == 0:
        return None if after_hash is None else "it names a head before the first event"
    if head is None or head[0] < after_seq:
        return "the record ends before the head it was saved at"
    row = db.execute(
        "SELECT body FROM events WHERE stream = ? AND seq = ?", (table, after_seq)
    ).fetchone()
    if row is None:
        return "the event it was saved after is not on the record (pruned)"
    try:
        body = read_json(row[0])
    except (ValueError, TypeError):
        return "the event it was saved after is not JSON"
    if not isinstance(body, dict) or body.get("hash") != after_hash:
        return "the event it was saved after has another hash"
    return None
