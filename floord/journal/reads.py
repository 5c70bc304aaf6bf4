"""The journal's reads of one stream, one table's snapshot or one command id: the SQL,
and what a stored text must be to be handed back.

Each runs on the connection of the journal's thread (`Journal`'s methods of the same
names hand them there); every SQLite failure and every stored text that does not decode
becomes a `JournalError` naming what was being read, so the caller fails closed.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from floord.journal.errors import JournalError, fail
from floord.untrusted import read_json


def query(
    db: sqlite3.Connection, path: Path, doing: str, sql: str, params: tuple[Any, ...]
) -> list[tuple[Any, ...]]:
    try:
        return db.execute(sql, params).fetchall()
    except sqlite3.Error as exc:
        raise fail(path, doing, exc) from exc


def last_seq(db: sqlite3.Connection, path: Path, stream: str) -> int:
    sql = "SELECT last_seq FROM streams WHERE stream = ?"
    rows = query(db, path, f"read last seq of {stream!r}", sql, (stream,))
    return rows[0][0] if rows else 0


def chain_head(db: sqlite3.Connection, path: Path, stream: str) -> tuple[int, str]:
    sql = "SELECT last_seq, last_hash FROM streams WHERE stream = ?"
    rows = query(db, path, f"read the chain head of {stream!r}", sql, (stream,))
    if not rows:
        return (0, "")
    return (rows[0][0], rows[0][1] or "")


def read_range(
    db: sqlite3.Connection, path: Path, stream: str, from_seq: int, to_seq: int
) -> list[str]:
    if from_seq < 1 or to_seq < from_seq:
        raise ValueError(f"a range 1 <= from_seq <= to_seq expected, found {from_seq}..{to_seq}")
    rows = query(
        db,
        path,
        f"read {stream!r} {from_seq}..{to_seq}",
        "SELECT body FROM events WHERE stream = ? AND seq BETWEEN ? AND ? ORDER BY seq",
        (stream, from_seq, to_seq),
    )
    return [r[0] for r in rows]


def load_snapshot(db: sqlite3.Connection, path: Path, table_id: str) -> dict[str, Any] | None:
    sql = "SELECT state FROM snapshots WHERE table_id = ?"
    rows = query(db, path, f"load the snapshot of {table_id!r}", sql, (table_id,))
    if not rows:
        return None
    try:
        state = read_json(rows[0][0])
    except ValueError as exc:
        raise fail(path, f"decode the snapshot of {table_id!r}", exc) from exc
    if not isinstance(state, dict):
        raise JournalError(f"journal {path}: snapshot of {table_id!r} is not an object")
    return state


def last_event(db: sqlite3.Connection, path: Path, stream: str) -> dict[str, Any] | None:
    sql = "SELECT body FROM events WHERE stream = ? ORDER BY seq DESC LIMIT 1"
    rows = query(db, path, f"read the last event of {stream!r}", sql, (stream,))
    if not rows:
        return None
    try:
        body = read_json(rows[0][0])
    except ValueError as exc:
        raise JournalError(f"journal {path}: {stream!r}: undecodable event") from exc
    return body if isinstance(body, dict) else None


def command_id_used(db: sqlite3.Connection, path: Path, command_id: str) -> bool:
    sql = "SELECT 1 FROM command_ids WHERE id = ?"
    return bool(query(db, path, "look up a command id", sql, (command_id,)))
