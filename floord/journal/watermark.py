"""What the broker has acknowledged: one watermark per stream, not a flag per row.

Each stream's events go out in seq order and only an acknowledged prefix counts
(`floord.mqtt.outbox`), so "published" is one number per stream: `up_to_seq` in
`published_marks`, every event at or below it acknowledged. Moving it is one row, written
WITHOUT an fsync (`synchronous=OFF` for that transaction): should a power cut lose the
latest mark, the events after the previous one are sent again, and subscribers drop
what they already have by `seq` (docs/contract.md). Every commit of an event still
fsyncs, and that fsync also makes the marks written before it durable.

The per-row `published` column of `events` stays for readers of the file that know only
it (older floord versions, a query by hand): it is brought up to the watermark when the
journal is closed (`fold_and_close`), not on every acknowledgement.

Runs on the journal's own thread (`floord.journal.writer`), inside the caller's error
handling.
"""

from __future__ import annotations

import contextlib
import sqlite3

# The journal's WAL checkpoint threshold, in pages (SQLite's default).
AUTOCHECKPOINT = 1000

SCHEMA = """
CREATE TABLE IF NOT EXISTS published_marks (
    stream TEXT PRIMARY KEY,
    up_to_seq INTEGER NOT NULL
);
"""


# `mark` as an SQL expression (0: none yet), its stream the next parameter.
_MARK_OF_STREAM = "coalesce((SELECT up_to_seq FROM published_marks WHERE stream = ?), 0)"


def mark(db: sqlite3.Connection, stream: str) -> int:
    """The stream's watermark: every event up to it is acknowledged (0: none yet)."""
    row = db.execute("SELECT up_to_seq FROM published_marks WHERE stream = ?", (stream,)).fetchone()
    return int(row[0]) if row else 0


def advance(db: sqlite3.Connection, stream: str, seqs: list[int]) -> None:
    """The broker acknowledged `seqs`: move the watermark over the run of them that
    continues it, in one transaction without an fsync. An acknowledgement past a gap
    does not count (the event in the gap, and those after it, go out again)."""
    up_to = mark(db, stream)
    start = up_to
    for seq in sorted(set(seqs)):
        if seq == up_to + 1:
            up_to = seq
        elif seq > up_to:
            break
    if up_to == start:
        return
    db.execute("PRAGMA synchronous=OFF")
    # And no checkpoint in this commit: one run with synchronous=OFF copies the WAL into
    # the database file without an fsync, and the WAL then starts again over the frames
    # that were the only durable copy of events committed with FULL; a power cut then
    # could lose them. The next event's commit (FULL) checkpoints instead.
    db.execute("PRAGMA wal_autocheckpoint=0")
    try:
        db.execute("BEGIN IMMEDIATE")
        set_mark(db, stream, up_to)
        db.execute("COMMIT")
    finally:
        if db.in_transaction:
            db.execute("ROLLBACK")
        db.execute("PRAGMA synchronous=FULL")
        db.execute(f"PRAGMA wal_autocheckpoint={AUTOCHECKPOINT}")


def set_mark(db: sqlite3.Connection, stream: str, up_to: int) -> None:
    """Write the watermark in the caller's transaction (never moves it back)."""
    db.execute(
        "INSERT INTO published_marks (stream, up_to_seq) VALUES (?, ?) ON CONFLICT (stream) "
        "DO UPDATE SET up_to_seq = max(up_to_seq, excluded.up_to_seq)",
        (stream, up_to),
    )


def unpublished(
    db: sqlite3.Connection, streams: list[str], limit: int
) -> list[tuple[str, int, str]]:
    """Events past their stream's watermark, (stream, seq, json), by stream then seq."""
    out: list[tuple[str, int, str]] = []
    for stream in sorted(set(streams)):
        if len(out) >= limit:
            break
        # The watermark read in the same statement: one query a stream, not two (this
        # runs after every acknowledgement).
        rows = db.execute(
            "SELECT seq, body FROM events WHERE stream = ? AND seq > "
            f"{_MARK_OF_STREAM} ORDER BY seq LIMIT ?",
            (stream, stream, limit - len(out)),
        ).fetchall()
        out.extend((stream, seq, body) for seq, body in rows)
    return out


def backlog(db: sqlite3.Connection, streams: list[str]) -> int:
    """How many events of these streams are past their watermark."""
    return sum(
        int(
            db.execute(
                "SELECT COUNT(*) FROM events WHERE stream = ? AND seq > ?",
                (stream, mark(db, stream)),
            ).fetchone()[0]
        )
        for stream in set(streams)
    )


def fold(db: sqlite3.Connection) -> None:
    """Bring the per-row `published` flags up to the watermarks (caller's transaction)."""
    db.execute(
        "UPDATE events SET published = 1 WHERE published = 0 AND seq <= "
        "(SELECT up_to_seq FROM published_marks m WHERE m.stream = events.stream)"
    )


def fold_and_close(db: sqlite3.Connection) -> None:
    """Bring the per-row flags up to the watermarks (best effort: a full disk must not
    stop a close, and the watermarks are what counts), then close."""
    try:
        db.execute("BEGIN IMMEDIATE")
        fold(db)
        db.execute("COMMIT")
    except sqlite3.Error:
        with contextlib.suppress(sqlite3.Error):
            if db.in_transaction:
                db.execute("ROLLBACK")
    db.close()
