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
journal is closed (`fold_and_close`), not on every acknowledgement, over each stream's
rows since the last fold (a range of the primary key: no index on the flag, which would
cost every commit a page).

Runs on the journal's own thread (`floord.journal.writer`), inside the caller's error
handling.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections import deque

from floord.untrusted import read_json

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
    found = row[0] if row else 0
    # A mark that is no integer (the file edited): none, so everything goes out again.
    return found if isinstance(found, int) and not isinstance(found, bool) else 0


def advance(db: sqlite3.Connection, stream: str, seqs: list[int]) -> None:
    """The broker acknowledged `seqs`: move the watermark over the run of them that
    continues it, in one transaction without an fsync. An acknowledgement past a gap
    does not count (the event in the gap, and those after it, go out again)."""
    advance_many(db, {stream: seqs})


def advance_many(db: sqlite3.Connection, acked: dict[str, list[int]]) -> None:
    """`advance` for several streams, in ONE transaction without an fsync."""
    if not acked:
        return
    db.execute("PRAGMA synchronous=OFF")
    # And no checkpoint in this commit: one run with synchronous=OFF copies the WAL into
    # the database file without an fsync, and the WAL then starts again over the frames
    # that were the only durable copy of events committed with FULL; a power cut then
    # could lose them. A checkpoint with its fsyncs (FULL) comes later instead: the
    # journal's checkpointer (`floord.journal.checkpointer`; its own connection never
    # checkpoints), or, on a connection that does, the next event's commit.
    threshold = db.execute("PRAGMA wal_autocheckpoint").fetchone()[0]
    db.execute("PRAGMA wal_autocheckpoint=0")
    try:
        db.execute("BEGIN IMMEDIATE")
        move_marks(db, acked)
        db.execute("COMMIT")
    finally:
        if db.in_transaction:
            db.execute("ROLLBACK")
        db.execute("PRAGMA synchronous=FULL")
        db.execute(f"PRAGMA wal_autocheckpoint={int(threshold)}")


def move_marks(db: sqlite3.Connection, acked: dict[str, list[int]]) -> None:
    """In the caller's transaction: each stream's watermark over the run of its
    acknowledged seqs that continues it (none past a gap)."""
    for stream, seqs in acked.items():
        up_to = start = mark(db, stream)
        for seq in sorted(set(seqs)):
            if seq == up_to + 1:
                up_to = seq
            elif seq > up_to:
                break
        if up_to != start:
            set_mark(db, stream, up_to)


class Acks:
    """Acknowledgements the link has had and the journal has not written yet.

    Writing each batch's marks in a transaction of its own would put a job on the
    journal's thread after every PUBACK, just when the next frame's commit wants it.
    So the link hands its acknowledgements here (`add`, on the loop) and the next job on
    the journal's thread that writes takes them all (`take`): the next commit of events
    writes them in its own transaction (and its fsync makes them durable), and a read of
    what is unpublished, or the link's own flush a moment later, writes them first.
    A lost acknowledgement only sends its events again (docs/contract.md).

    `deque.append` on the loop and `popleft` on the journal's thread are each atomic in
    CPython: no lock.
    """

    def __init__(self) -> None:
        self._acked: deque[dict[str, list[int]]] = deque()

    def add(self, acked: dict[str, list[int]]) -> None:
        if acked:
            self._acked.append(acked)

    def __bool__(self) -> bool:
        return bool(self._acked)

    def take(self) -> dict[str, list[int]]:
        """Every acknowledgement handed in so far, by stream (journal's thread)."""
        out: dict[str, list[int]] = {}
        while True:
            try:
                acked = self._acked.popleft()
            except IndexError:
                return out
            for stream, seqs in acked.items():
                out.setdefault(stream, []).extend(seqs)

    def put_back(self, acked: dict[str, list[int]]) -> None:
        """A transaction that took them was rolled back: they wait for the next one."""
        if acked:
            self._acked.appendleft(acked)


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


# The meta key of how far each stream's per-row flags were folded: {stream: up_to_seq}.
FOLDED_KEY = "published_folded"


def fold(db: sqlite3.Connection) -> None:
    """Bring the per-row `published` flags up to the watermarks (caller's transaction).

    Each stream's rows between where the last fold left it (`FOLDED_KEY`) and its mark: a
    range of the primary key, so no index on the flag is needed (a partial index on the
    unpublished rows would take a page of every commit)."""
    folded = _folded(db)
    # A mark that is no integer (the file edited) is none, as `mark` reads it: nothing to fold.
    marks = [
        (stream, up_to)
        for stream, up_to in db.execute("SELECT stream, up_to_seq FROM published_marks")
        if isinstance(up_to, int) and not isinstance(up_to, bool)
    ]
    for stream, up_to in marks:
        start = folded.get(stream, 0)
        if up_to > start:
            db.execute(
                "UPDATE events SET published = 1 "
                "WHERE stream = ? AND seq > ? AND seq <= ? AND published = 0",
                (stream, start, up_to),
            )
    _set_folded(
        db, {**folded, **{stream: max(up_to, folded.get(stream, 0)) for stream, up_to in marks}}
    )


def retire_unpublished_index(db: sqlite3.Connection) -> bool:
    """A file from a version that kept the partial index `events_unpublished` (caller's
    transaction): fold its flags up to the watermarks while the index makes that quick,
    note the fold, and drop the index. True if there was one.

    A floord that knows only the flags creates the index again when it opens the file
    (its schema says `IF NOT EXISTS`), and the next open here retires it again."""
    found = db.execute(
        "SELECT 1 FROM sqlite_schema WHERE type = 'index' AND name = 'events_unpublished'"
    ).fetchone()
    if not found:
        return False
    db.execute(
        "UPDATE events SET published = 1 WHERE published = 0 AND seq <= "
        "(SELECT up_to_seq FROM published_marks m WHERE m.stream = events.stream)"
    )
    # Rows at or below a mark are all flagged now: the next fold starts at the marks.
    _set_folded(db, dict(db.execute("SELECT stream, up_to_seq FROM published_marks").fetchall()))
    db.execute("DROP INDEX events_unpublished")
    return True


def _folded(db: sqlite3.Connection) -> dict[str, int]:
    row = db.execute("SELECT value FROM meta WHERE key = ?", (FOLDED_KEY,)).fetchone()
    if row is None:
        return {}
    try:
        found = read_json(row[0])
    except ValueError:
        return {}  # unreadable (edited by hand): fold every stream from its start
    if not isinstance(found, dict):
        return {}
    return {str(k): v for k, v in found.items() if isinstance(v, int) and not isinstance(v, bool)}


def _set_folded(db: sqlite3.Connection, folded: dict[str, int]) -> None:
    db.execute(
        "INSERT INTO meta (key, value) VALUES (?, ?) "
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (FOLDED_KEY, json.dumps(folded, sort_keys=True, separators=(",", ":"))),
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
