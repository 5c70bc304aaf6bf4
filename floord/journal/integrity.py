"""Whether the chain vouches for a table's snapshot, and the quick check `run` makes.

The snapshot row restores a table after a restart, latched halts included, so it is
covered by the chain (schema version 3): it carries `after_seq` and `after_hash`, the
seq and hash of the table stream's event it was written with (the journal writes the
snapshot in the same transaction as the events), and `hash`, the SHA-256 of its
canonical form `{"table", "after_seq", "prev": after_hash, "state"}` (docs/journal.md).

A hash anyone can recompute does not stop someone who edits the file and knows the
scheme, so the halt is also checked against the events themselves: when the table
stream's last `table.halted` comes after its last `table.resumed`, the reasons that
halt latched must be in the snapshot. The table stream is in the chain, its head is
published on MQTT: lifting a halt needs a `table.resumed` there.

`tail_breaks` is what `floord run` checks on start (the last `TAIL_EVENTS` events of
every stream and every snapshot); `floord journal verify` walks everything.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
from re import Match
from typing import Any

from floord.journal.chain import (
    Anchor,
    Break,
    anchor_of,
    canonical_bytes,
    canonical_text,
    verify_bodies,
)
from floord.journal.schema import LATCH_INDEX, LATCH_INDEX_SQL
from floord.untrusted import read_json

TAIL_EVENTS = 64


# What JSON's ASCII form escapes that its canonical form (UTF-8) writes as it is: DEL
# and every character past ASCII.
_NOT_ASCII = re.compile("[\x7f-\U0010ffff]")


def snapshot_hash(table: str, after_seq: int, after_hash: str | None, state: Any) -> str:
    """SHA-256 (hex) of a snapshot's canonical form (`state` as the decoded object)."""
    body = {"table": table, "after_seq": after_seq, "prev": after_hash, "state": state}
    return hashlib.sha256(canonical_bytes(body)).hexdigest()


def encode_snapshot(
    table: str, after_seq: int, after_hash: str | None, state: dict[str, Any]
) -> tuple[str, str]:
    """(the stored text, the hash) of a snapshot, `state` encoded once.

    The state's canonical text (sorted keys, compact, UTF-8) is what the hash covers,
    spliced into the canonical form of the whole body (its keys sorted: `after_seq`,
    `prev`, `state`, `table`); the stored text is that same text with every character
    past ASCII escaped as `\\uXXXX`, which is what JSON's ASCII encoder writes. Decoding
    the stored text and encoding it canonically gives the state's canonical text back
    (what `check_snapshot` hashes) because a snapshot's keys are text, as the engines
    write them (`dict[str, Any]` all the way down): a key of another type would be
    written, and sorted, as JSON's text of it only after a decode."""
    text = canonical_text(state)
    head = canonical_text({"after_seq": after_seq, "prev": after_hash})
    body = f'{head[:-1]},"state":{text},"table":{canonical_text(table)}}}'
    own = hashlib.sha256(body.encode("utf-8")).hexdigest()
    # Most states are printable ASCII (DEL, 0x7f, is escaped too): nothing to escape.
    stored = text if text.isascii() and "\x7f" not in text else _NOT_ASCII.sub(_escaped, text)
    return stored, own


def _escaped(found: Match[str]) -> str:
    """One character as JSON's ASCII encoder escapes it (past the BMP: a surrogate pair)."""
    code = ord(found.group())
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 | (code >> 10):04x}\\u{0xDC00 | (code & 0x3FF):04x}"


def write_snapshot(
    db: sqlite3.Connection,
    table_id: str,
    state: dict[str, Any],
    head: tuple[int, str | None] | None,
) -> None:
    """Store a table's snapshot chained to its stream's head, inside the caller's
    transaction (so the head is the event it was written with; None: read it)."""
    if head is None:
        row = db.execute(
            "SELECT last_seq, last_hash FROM streams WHERE stream = ?", (table_id,)
        ).fetchone()
        head = (row[0], row[1]) if row else (0, None)
    text, own = encode_snapshot(table_id, head[0], head[1], state)
    db.execute(
        "INSERT INTO snapshots (table_id, state, after_seq, after_hash, hash) "
        "VALUES (?, ?, ?, ?, ?) ON CONFLICT (table_id) DO UPDATE SET "
        "state = excluded.state, after_seq = excluded.after_seq, "
        "after_hash = excluded.after_hash, hash = excluded.hash",
        (table_id, text, head[0], head[1], own),
    )


def check_snapshot(
    table: str,
    state_text: str,
    after_seq: int | None,
    after_hash: str | None,
    own: str | None,
    head: tuple[int, str | None] | None,
) -> Break | None:
    """The first thing wrong with one snapshot row, or None when the chain vouches for it.

    kinds: `snapshot_unchained` (no hash: written before schema 3 and never rewritten),
    `snapshot_unreadable`, `snapshot_edited` (it no longer hashes to its `hash`),
    `snapshot_stale` (not the one written with the stream's last event).
    """
    seq = after_seq or 0
    if own is None or after_seq is None:
        return Break(table, seq, "snapshot_unchained", "the snapshot carries no hash")
    try:
        state = read_json(state_text)
    except ValueError as exc:
        return Break(table, seq, "snapshot_unreadable", f"the snapshot is not JSON ({exc})")
    if snapshot_hash(table, after_seq, after_hash, state) != own:
        return Break(
            table, seq, "snapshot_edited", "the snapshot no longer hashes to its own `hash`"
        )
    head_seq, head_hash = head if head is not None else (0, None)
    if (after_seq, after_hash) != (head_seq, head_hash):
        return Break(
            table,
            seq,
            "snapshot_stale",
            f"the snapshot follows seq {after_seq}, the stream's head is seq {head_seq}",
        )
    return None


def unsupported_halt(table: str, state: dict[str, Any] | None, latch: str | None) -> Break | None:
    """A break when the stream's last halt latched reasons the snapshot does not hold.

    `latch` is the stored body of the stream's last `table.halted` or `table.resumed`.
    A halt whose reasons cannot be read (a body floord never writes: the file edited and
    chained again) is a break too: nothing then shows the snapshot holds them.
    """
    if latch is None:
        return None
    try:
        body = read_json(latch)
    except ValueError:
        body = None
    if not isinstance(body, dict):
        return Break(table, 0, "unreadable", "its last table.halted or table.resumed is not JSON")
    if body.get("type") != "table.halted":
        return None
    seq = body.get("seq")
    at = seq if isinstance(seq, int) and not isinstance(seq, bool) else 0
    data = body.get("data")
    wanted = _reason_keys(data.get("reasons") if isinstance(data, dict) else None)
    if wanted is None:
        detail = f"the record's last table.halted (seq {seq}) has no readable reasons"
        return Break(table, at, "unreadable", detail)
    held = _reason_keys((state or {}).get("halt_reasons")) or set()
    missing = sorted(wanted - held, key=str)
    if not missing:
        return None
    names = ", ".join(f"{c}" + (f" ({d})" if d else "") for c, d in missing)
    return Break(
        table,
        at,
        "halt_unsupported",
        f"the record's last table.halted (seq {seq}) latched {names} and no "
        "table.resumed follows it, but the snapshot does not hold it",
    )


def _reason_keys(reasons: Any) -> set[tuple[Any, Any]] | None:
    """The (code, device) of each halt reason; None when `reasons` is not a list of
    objects whose code and device are text or absent (`reasons` absent: none)."""
    if reasons is None:
        return set()
    if not isinstance(reasons, list) or not all(_readable_reason(r) for r in reasons):
        return None
    return {(r.get("code"), r.get("device")) for r in reasons}


def _readable_reason(reason: Any) -> bool:
    return isinstance(reason, dict) and all(
        isinstance(reason.get(key), str | None) for key in ("code", "device")
    )


# The latch condition, written as the index's (`floord.journal.schema.LATCH_INDEX_SQL`):
# SQLite takes a partial index for a query whose WHERE holds its condition as written.
_LATCH_WHERE = LATCH_INDEX_SQL.split(" WHERE ", 1)[1]
_LAST_LATCH = (
    "SELECT body FROM {source} WHERE stream = ? AND " + _LATCH_WHERE + " ORDER BY seq DESC LIMIT 1"
)


def last_latch(db: sqlite3.Connection, table: str, *, indexed: bool = True) -> str | None:
    """The stored body of the table stream's last `table.halted` or `table.resumed`:
    through the journal's index of them when the file holds it as floord makes it
    (a few pages), else (or with `indexed` false) by reading the stream back from its
    end, every body (a table's month: about 0.3 s)."""
    source = f"events INDEXED BY {LATCH_INDEX}" if indexed and latch_index_kept(db) else "events"
    row = db.execute(_LAST_LATCH.format(source=source), (table,)).fetchone()
    return row[0] if row else None


def latch_index_kept(db: sqlite3.Connection) -> bool:
    """Whether the file holds the latch index with the condition floord gives it (one
    dropped and made again under another would hide a halt)."""
    row = db.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ? AND tbl_name = 'events'",
        (LATCH_INDEX,),
    ).fetchone()
    return row is not None and row[0] == LATCH_INDEX_SQL.replace(" IF NOT EXISTS", "", 1)


def snapshot_breaks(
    db: sqlite3.Connection, table: str | None = None, *, indexed: bool = True
) -> list[Break]:
    """Every snapshot row the chain does not vouch for (all tables, or one). With
    `indexed` false (an audit), each table's last latch is read from the events, not the
    index, and an index that disagrees with them is a break of its own."""
    heads = {
        s: (seq, h) for s, seq, h in db.execute("SELECT stream, last_seq, last_hash FROM streams")
    }
    where, params = ("WHERE table_id = ?", (table,)) if table is not None else ("", ())
    found: list[Break] = []
    rows = db.execute(
        f"SELECT table_id, state, after_seq, after_hash, hash FROM snapshots {where}", params
    ).fetchall()
    states: dict[str, Any] = {}
    for table_id, text, after_seq, after_hash, own in rows:
        broken = check_snapshot(table_id, text, after_seq, after_hash, own, heads.get(table_id))
        if broken is not None:
            found.append(broken)
        try:
            states[table_id] = read_json(text)
        except ValueError:
            states[table_id] = None
    tables = [table] if table is not None else sorted(s for s in heads if "/" not in s)
    check_index = not indexed and latch_index_kept(db)
    for name in tables:
        state = states.get(name)
        latch = last_latch(db, name, indexed=indexed)
        if check_index and last_latch(db, name) != latch:
            detail = (
                "the journal's index of table.halted and table.resumed does not give the "
                "stream's last one: the index was edited"
            )
            found.append(Break(name, 0, "latch_index_mismatch", detail))
        halt = unsupported_halt(name, state if isinstance(state, dict) else None, latch)
        if halt is not None:
            found.append(halt)
    return found


def tail_breaks(db: sqlite3.Connection, streams: list[str], last: int = TAIL_EVENTS) -> list[Break]:
    """Every broken link among the last `last` events of each of `streams`, and the head.

    The window is anchored on the stored hash of the event just before it (or on the
    genesis, or on the pruning anchor); a break does not hide the ones after it: the walk
    starts again on the broken event's own hash.
    """
    found: list[Break] = []
    for stream in streams:
        head = db.execute(
            "SELECT last_seq, last_hash FROM streams WHERE stream = ?", (stream,)
        ).fetchone()
        broken_head = _head_break(db, stream, head)
        if broken_head is not None:
            found.append(broken_head)
            continue
        if head is None:
            continue
        rows = db.execute(
            "SELECT seq, body FROM events WHERE stream = ? AND seq >= ? ORDER BY seq",
            (stream, head[0] - last),
        ).fetchall()
        odd = next((seq for seq, _ in rows if not _is_seq(seq)), None)
        if odd is not None:
            found.append(Break(stream, 0, "unreadable", f"a stored seq is {odd!r}, no number"))
            continue
        pruned = db.execute(
            "SELECT up_to_seq, last_hash FROM pruned WHERE stream = ?", (stream,)
        ).fetchone()
        # An unreadable pruning record anchors nothing: the window's first event does.
        anchor = anchor_of(*pruned) if pruned else None
        if rows and rows[0][0] > 1 and not (anchor and anchor.up_to_seq + 1 == rows[0][0]):
            anchor = _anchor_on(rows[0])
            rows = rows[1:]
        found.extend(_walk(stream, rows, anchor, (head[0], head[1])))
    return found


def _is_seq(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _head_break(db: sqlite3.Connection, stream: str, head: Any) -> Break | None:
    """What is wrong with a stream's head in `streams` (None: nothing): a stream with
    events and no head, a head whose seq is no number of its own or whose hash is
    missing once events were numbered. Appending would fail on each; the start check
    names it instead, so the table halts for its record, not at its first event."""
    if head is None:
        row = db.execute("SELECT max(seq) FROM events WHERE stream = ?", (stream,)).fetchone()
        if row is None or row[0] is None:
            return None
        seq = row[0] if _is_seq(row[0]) else 0
        return Break(stream, seq, "inserted", "a stream the journal never numbered")
    seq, own = head
    if not _is_seq(seq) or seq < 0:
        return Break(stream, 0, "unreadable", f"its head's seq is {seq!r}, no number of events")
    if seq > 0 and not isinstance(own, str):
        return Break(stream, seq, "head_mismatch", "the journal recorded no chain head for it")
    return None


def _anchor_on(row: tuple[int, str]) -> Anchor:
    """The event just before the window, trusted as far as its own hash goes."""
    try:
        body = read_json(row[1])
        own = body.get("hash") if isinstance(body, dict) else None
    except ValueError:
        own = None
    return Anchor(row[0], own if isinstance(own, str) else "")


def _walk(
    stream: str, rows: list[tuple[int, str]], anchor: Anchor | None, head: tuple[int, str | None]
) -> list[Break]:
    found: list[Break] = []
    while True:
        broken = verify_bodies(
            ((stream, seq, body) for seq, body in rows),
            anchors={stream: anchor} if anchor else None,
            heads={stream: head},
        )
        if broken is None:
            return found
        found.append(broken)
        after = [r for r in rows if r[0] > broken.seq]
        here = [r for r in rows if r[0] == broken.seq]
        if not after or not here or len(after) == len(rows):
            return found
        # Start again after the break, anchored on the broken event's stored hash.
        anchor = _anchor_on(here[0])
        rows = after
