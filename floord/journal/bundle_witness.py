"""A bundle's heads compared with a journal: what turns "unedited relative to the heads
the bundle names" into "as journaled".

A bundle proves its range is chained to the head it names; anyone rebuilding the chain
from an edited event can name another head. The journal the bundle was taken from (live,
read-only, or a copy taken since) holds each stream's event at that seq: when its hash
is the head's, the range is the journal's own (docs/journal.md, "Evidence bundles").
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from floord.journal.audit import AuditError, open_readonly
from floord.journal.chain import event_hash
from floord.untrusted import read_json

# A seq SQLite can hold (a signed 64-bit integer); a bundle may name any number.
_SEQS = range(-(2**63), 2**63)


def _against(db: sqlite3.Connection, stream: str, seq: int, digest: str) -> str | None:
    row = (
        db.execute("SELECT body FROM events WHERE stream = ? AND seq = ?", (stream, seq)).fetchone()
        if seq in _SEQS
        else None
    )
    if row is None:
        pruned = db.execute(
            "SELECT up_to_seq, last_hash FROM pruned WHERE stream = ?", (stream,)
        ).fetchone()
        if pruned is not None and int(pruned[0]) == seq:
            held = str(pruned[1])
        elif pruned is not None and int(pruned[0]) > seq:
            return f"pruned under retention past seq {seq}: compare with an older copy"
        else:
            return f"the journal has no seq {seq} on this stream"
    else:
        try:
            body = read_json(row[0])
        except ValueError:
            return f"the journal's seq {seq} is not JSON"
        if not isinstance(body, dict):
            return f"the journal's seq {seq} is not an event"
        held = str(body.get("hash"))
        if event_hash(body) != held:
            return f"the journal's seq {seq} no longer hashes to its own hash (verify it)"
    if held != digest:
        return f"the journal's seq {seq} has hash {held[:16]}, the bundle names {digest[:16]}"
    return None


def compare_heads(path: Path, heads: dict[str, tuple[int, str]]) -> list[tuple[str, str]]:
    """(stream, what is wrong) for each head the journal at `path` does not hold."""
    db = open_readonly(path)
    found = []
    try:
        db.execute("BEGIN")
        for stream, (seq, digest) in sorted(heads.items()):
            if seq == 0:
                continue  # a stream with no event yet: nothing to compare
            problem = _against(db, stream, seq, digest)
            if problem is not None:
                found.append((stream, problem))
        db.execute("COMMIT")
    except sqlite3.Error as exc:
        raise AuditError(f"journal {path}: cannot read: {exc}") from exc
    finally:
        db.close()
    return found


def stored_bodies(path: Path, wanted: list[tuple[str, int]]) -> dict[tuple[str, int], str]:
    """The journal's stored bodies of these (stream, seq), those it holds."""
    db = open_readonly(path)
    found: dict[tuple[str, int], str] = {}
    try:
        db.execute("BEGIN")
        for stream, seq in wanted:
            if seq not in _SEQS:
                continue  # no journal holds it
            row = db.execute(
                "SELECT body FROM events WHERE stream = ? AND seq = ?", (stream, seq)
            ).fetchone()
            if row is not None:
                found[(stream, seq)] = str(row[0])
        db.execute("COMMIT")
    except sqlite3.Error as exc:
        raise AuditError(f"journal {path}: cannot read: {exc}") from exc
    finally:
        db.close()
    return found


def differing_fields(ours: object, theirs: object, where: str = "") -> list[str]:
    """The dotted paths where two decoded bodies differ (`data.number`), leaves only."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        found = []
        for key in sorted(set(ours) | set(theirs), key=str):
            path = f"{where}.{key}" if where else str(key)
            if key not in ours or key not in theirs:
                found.append(path)
            else:
                found += differing_fields(ours[key], theirs[key], path)
        return found
    if isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs):
        found = []
        for index, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            found += differing_fields(a, b, f"{where}[{index}]")
        return found
    return [] if ours == theirs else [where or "(the whole body)"]
