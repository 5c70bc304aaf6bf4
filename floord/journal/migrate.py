"""Chaining an older journal in place, on its first open: events (version 1 to 2) and
snapshots (version 2 to 3), in one transaction of their own (`bring_up_to_date`); and
the published watermarks of a file that had only the per-row flags (`fill_watermarks`).

Only `prev` and `hash` are added to each stored body, in seq order per stream, so the
chain over those events proves only that they have not changed since the migration
(`docs/journal.md` says so). The chaining functions run inside the caller's
transaction; the caller commits, or rolls back on any error.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from floord.journal.chain import event_hash, genesis
from floord.journal.errors import JournalError, rollback
from floord.journal.integrity import snapshot_hash
from floord.untrusted import read_json


def bring_up_to_date(db: sqlite3.Connection, path: Path, version: int) -> None:
    """Record a new file's schema `version`, or chain an older file up to it (its own
    transaction); a file of another version is refused (`JournalError`, naming `path`)."""
    row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    if row is None:
        if db.execute("SELECT 1 FROM events LIMIT 1").fetchone() is not None:
            # floord records the version before its first event: this file was edited,
            # and taking it for a new one would start every table afresh on its record.
            raise JournalError(f"journal {path}: it holds events but no schema version")
        db.execute("INSERT INTO meta (key, value) VALUES ('schema_version', ?)", (str(version),))
    elif row[0] in ("1", "2"):
        claimed = shape_problem(db, row[0])
        if claimed is not None:
            raise JournalError(f"journal {path}: {claimed}")
        _migrate_from(db, path, int(row[0]), version)
    elif row[0] != str(version):
        raise JournalError(f"journal {path}: schema version {row[0]} is not {version}")


# The columns each migration adds: a file that claims an older version but already has
# them was edited (or written by a floord that failed to record its version), and
# chaining it again would fail half-way on SQL's own words.
_ADDED_BY = {
    "1": (("streams", "last_hash"),),
    "2": (("snapshots", "after_seq"), ("snapshots", "after_hash"), ("snapshots", "hash")),
}


def shape_problem(db: sqlite3.Connection, claimed: str) -> str | None:
    """Why a file whose `meta.schema_version` is `claimed` ("1" or "2") cannot be
    chained up from it: it already holds a column a later version adds; None when its
    tables are that version's. Reads only (`floord check` asks it on a read-only
    connection, the journal's open before it migrates)."""
    later = [
        f"{table}.{column}"
        for version, added in _ADDED_BY.items()
        if int(version) >= int(claimed)
        for table, column in added
        if column in _columns(db, table)
    ]
    if not later:
        return None
    return (
        f"schema version {claimed} is recorded, but the file already has a later "
        f"version's columns ({', '.join(later)}): its version was edited"
    )


def _columns(db: sqlite3.Connection, table: str) -> set[str]:
    return {str(row[1]) for row in db.execute(f"PRAGMA table_info({table})").fetchall()}


def _migrate_from(db: sqlite3.Connection, path: Path, old: int, version: int) -> None:
    """Chain an older file in place, in one transaction: its events (from version 1),
    then its snapshots (from version 2)."""
    db.execute("BEGIN IMMEDIATE")
    try:
        if old == 1:
            chain_version_1(db, 2)
        chain_snapshots(db, version)
        db.execute("COMMIT")
    except BaseException as exc:
        rollback(db)
        if isinstance(exc, sqlite3.Error | ValueError | KeyError | TypeError):
            raise JournalError(
                f"journal {path}: migrating schema {old} to {version} failed: {exc}"
            ) from exc
        raise


def chain_version_1(db: sqlite3.Connection, schema_version: int) -> int:
    """Chain every stream of a version-1 file; returns how many events were chained.

    Raises ValueError for a body that cannot be chained (the caller refuses the file).
    """
    db.execute("ALTER TABLE streams ADD COLUMN last_hash TEXT")
    chained = 0
    streams = db.execute("SELECT stream FROM streams ORDER BY stream").fetchall()
    for (stream,) in streams:
        prev: str | None = None
        rows = db.execute(
            "SELECT seq, body FROM events WHERE stream = ? ORDER BY seq", (stream,)
        ).fetchall()
        for seq, text in rows:
            body = read_json(text)
            if not isinstance(body, dict) or body.get("seq") != seq:
                raise ValueError(f"{stream!r} seq {seq} is unreadable; cannot chain it")
            body.pop("hash", None)
            body["prev"] = prev if prev is not None else genesis(body["site"], stream)
            body["hash"] = prev = event_hash(body)
            db.execute(
                "UPDATE events SET body = ? WHERE stream = ? AND seq = ?",
                (_dumps(body), stream, seq),
            )
            chained += 1
        db.execute("UPDATE streams SET last_hash = ? WHERE stream = ?", (prev, stream))
    db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(schema_version),))
    db.execute(
        "INSERT INTO meta (key, value) VALUES ('chain_migrated', ?) "
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (json.dumps({"from_version": 1, "events": chained}),),
    )
    return chained


def chain_snapshots(db: sqlite3.Connection, schema_version: int) -> int:
    """Version 2 to 3: each snapshot row gains `after_seq`, `after_hash` (its table
    stream's head, as when it was written) and `hash`; returns how many were chained.

    Like the events of a version-1 file, a snapshot chained this way is vouched for
    only since the migration; the latched halts are still checked against the events.
    """
    for column in ("after_seq INTEGER", "after_hash TEXT", "hash TEXT"):
        db.execute(f"ALTER TABLE snapshots ADD COLUMN {column}")
    chained = 0
    for table_id, text in db.execute("SELECT table_id, state FROM snapshots").fetchall():
        head = db.execute(
            "SELECT last_seq, last_hash FROM streams WHERE stream = ?", (table_id,)
        ).fetchone()
        after_seq, after_hash = head if head else (0, None)
        own = snapshot_hash(table_id, after_seq, after_hash, read_json(text))
        db.execute(
            "UPDATE snapshots SET after_seq = ?, after_hash = ?, hash = ? WHERE table_id = ?",
            (after_seq, after_hash, own, table_id),
        )
        chained += 1
    db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(schema_version),))
    db.execute(
        "INSERT INTO meta (key, value) VALUES ('snapshots_migrated', ?) "
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (json.dumps({"from_version": 2, "snapshots": chained}),),
    )
    return chained


def fill_watermarks(db: sqlite3.Connection) -> int:
    """A file written before the watermarks (`floord.journal.watermark`): each stream's
    mark is its leading run of rows flagged published (events pruned before it were
    published), recorded once in `meta.published_marks`; returns how many streams.

    The schema version stays: the change is additive, and a file so marked can still be
    read by a floord that knows only the flags (they are folded when the journal closes).
    """
    if db.execute("SELECT 1 FROM meta WHERE key = 'published_marks'").fetchone():
        return 0
    marked = 0
    for stream, last_seq in db.execute("SELECT stream, last_seq FROM streams").fetchall():
        gap = db.execute(
            "SELECT MIN(seq) FROM events WHERE stream = ? AND published = 0", (stream,)
        ).fetchone()[0]
        up_to = last_seq if gap is None else gap - 1
        db.execute(
            "INSERT INTO published_marks (stream, up_to_seq) VALUES (?, ?) "
            "ON CONFLICT (stream) DO UPDATE SET up_to_seq = excluded.up_to_seq",
            (stream, up_to),
        )
        marked += 1
    db.execute(
        "INSERT INTO meta (key, value) VALUES ('published_marks', ?)",
        (json.dumps({"streams": marked}),),
    )
    return marked


def _dumps(body: dict) -> str:
    """The stored form of a body, as `floord.journal.store` writes it."""
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False)
