"""An auditor's view of a journal: verify its chain, export a time window, copy it.

Everything here reads only. The file is opened through a `mode=ro` URI, so it may be
the daemon's live WAL journal (readers never block the writer, and each read runs in
one transaction, so it sees one consistent state), or a copy taken with `copy_journal`,
which uses SQLite's online backup API and so is consistent even while the daemon writes.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from floord.contract import format_ts, parse_ts
from floord.journal.chain import Anchor, Break, anchor_of, verify_bodies
from floord.journal.integrity import snapshot_breaks

CHAINED_SCHEMA = "2"  # events chained; snapshots too from version 3 (SNAPSHOTS_CHAINED)
SNAPSHOTS_CHAINED = "3"


class AuditError(ValueError):
    """The journal cannot be read as asked (missing, not a journal, not chained)."""


@dataclass(frozen=True)
class VerifyReport:
    """What `verify_journal` found: the first break (None when whole) and what it read."""

    broken: Break | None
    streams: int
    events: int
    pruned: dict[str, Anchor]


def open_readonly(path: Path) -> sqlite3.Connection:
    """A read-only connection to a journal file; refuses a file that is not there."""
    path = Path(path)
    if not path.is_file():
        raise AuditError(f"no journal at {path}")
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None)
    except sqlite3.Error as exc:
        raise AuditError(f"journal {path}: cannot open read-only: {exc}") from exc
    try:
        row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    except sqlite3.Error as exc:
        db.close()
        raise AuditError(f"journal {path}: not a floord journal: {exc}") from exc
    if row is None or row[0] not in (CHAINED_SCHEMA, SNAPSHOTS_CHAINED):
        db.close()
        found = row[0] if row else "none"
        raise AuditError(
            f"journal {path}: schema version {found} carries no hash chain (version "
            f"{CHAINED_SCHEMA} and later do); floord chains a version-1 file when it next "
            "opens it"
        )
    return db


def _snapshots_chained(db: sqlite3.Connection) -> bool:
    row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    return bool(row) and row[0] == SNAPSHOTS_CHAINED


def _where_stream(stream: str | None) -> tuple[str, tuple[str, ...]]:
    return ("WHERE stream = ?", (stream,)) if stream is not None else ("", ())


def verify_journal(path: Path, stream: str | None = None) -> VerifyReport:
    """Walk every stream's chain (or one stream's) and report the first broken link."""
    db = open_readonly(path)
    try:
        db.execute("BEGIN")
        where, params = _where_stream(stream)
        heads: dict[str, tuple[int, str | None]] = {
            s: (seq, h)
            for s, seq, h in db.execute(
                f"SELECT stream, last_seq, last_hash FROM streams {where}", params
            )
        }
        if stream is not None and stream not in heads:
            raise AuditError(f"journal {path}: no stream {stream!r}")
        anchors: dict[str, Anchor] = {}
        for s, seq, h in db.execute(
            f"SELECT stream, up_to_seq, last_hash FROM pruned {where}", params
        ):
            anchor = anchor_of(seq, h)
            if anchor is None:
                raise AuditError(
                    f"journal {path}: the pruning record of {s!r} is unreadable "
                    f"(up_to_seq {seq!r}): nothing to verify its stream from"
                )
            anchors[s] = anchor
        counted = [0]

        def rows() -> Iterator[tuple[str, int, str]]:
            for row in db.execute(
                f"SELECT stream, seq, body FROM events {where} ORDER BY stream, seq", params
            ):
                counted[0] += 1
                yield (row[0], row[1], row[2])

        broken = verify_bodies(rows(), anchors=anchors, heads=heads)
        if broken is None and _snapshots_chained(db):
            # The snapshots that restore each table, latched halts included.
            # An audit reads every latch from the events (and checks the index by them).
            device = stream is not None and "/" in stream
            found = [] if device else snapshot_breaks(db, stream, indexed=False)
            broken = found[0] if found else None
        db.execute("COMMIT")
    except sqlite3.Error as exc:
        raise AuditError(f"journal {path}: cannot read: {exc}") from exc
    finally:
        db.close()
    return VerifyReport(broken, len(heads), counted[0], anchors)


def export_journal(path: Path, start: str, end: str, out: TextIO, stream: str | None = None) -> int:
    """Write the stored bodies with `start <= ts < end` as JSON lines; return how many.

    Bodies go out byte for byte as stored, in stream then seq order, so an auditor can
    check each event's hash and the links between consecutive events of a stream.
    """
    try:
        low, high = format_ts(parse_ts(start)), format_ts(parse_ts(end))
    except ValueError as exc:
        raise AuditError(f"--from and --to must be ISO 8601 times with a zone: {exc}") from exc
    if high <= low:
        raise AuditError(f"--to ({end}) must be later than --from ({start})")
    db = open_readonly(path)
    written = 0
    try:
        db.execute("BEGIN")
        where = "WHERE json_extract(body, '$.ts') >= ? AND json_extract(body, '$.ts') < ?"
        params: tuple[str, ...] = (low, high)
        if stream is not None:
            where += " AND stream = ?"
            params = (*params, stream)
        sql = f"SELECT stream, seq, body FROM events {where} ORDER BY stream, seq"
        for found, seq, body in db.execute(sql, params):
            if not isinstance(body, str):
                # Stored as bytes or a number: not a body floord wrote (the file was edited).
                raise AuditError(f"journal {path}: {found!r} seq {seq}: its body is not text")
            out.write(body)
            out.write("\n")
            written += 1
        db.execute("COMMIT")
    except sqlite3.Error as exc:
        raise AuditError(f"journal {path}: cannot read: {exc}") from exc
    finally:
        db.close()
    return written


def copy_journal(path: Path, out: Path) -> int:
    """A consistent single-file copy of a (possibly live) journal; returns its pages.

    SQLite's backup API copies one consistent state of the source even while the daemon
    writes to it. The copy is switched out of WAL mode so it is one self-contained file
    an auditor can take away. An existing `out` is never overwritten.
    """
    out = Path(out)
    if out.exists():
        raise AuditError(f"{out} already exists; the copy never overwrites a file")
    source = open_readonly(path)
    try:
        target = sqlite3.connect(out)
        try:
            source.backup(target)
            target.execute("PRAGMA journal_mode=DELETE")
            pages = target.execute("PRAGMA page_count").fetchone()[0]
        finally:
            target.close()
    except sqlite3.Error as exc:
        out.unlink(missing_ok=True)
        raise AuditError(f"cannot copy {path} to {out}: {exc}") from exc
    finally:
        source.close()
    return int(pages)


def describe(report: VerifyReport, path: Path) -> str:
    """One line for the command line: whole, or the first broken link."""
    if report.broken is not None:
        return f"{path}: BROKEN: {report.broken}"
    pruned = ""
    if report.pruned:
        anchors = ", ".join(
            f"{s} after seq {a.up_to_seq}" for s, a in sorted(report.pruned.items())
        )
        pruned = f"; pruned, anchored: {anchors}"
    return f"{path}: whole: {report.events} events in {report.streams} streams{pruned}"
