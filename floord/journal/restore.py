"""`floord journal restore`: a verified backup put in a journal's place, on the record.

A restore is a writer: it takes the journal's lock (`floord.journal.lock`), so it is
refused while a daemon (or any writer) holds it, naming the holder. It refuses a backup
whose chain does not verify, and a journal that holds what the backup does not (`losses`:
a stream ahead of the backup's head, a stream the backup lacks, or a fork, where the
journal's event at some seq is not the backup's) unless forced. The replaced journal is
set aside under a new name beside it (its -wal and -shm with it), never deleted.

The restored file is the backup plus, on each table's stream, one `journal.restored`
event chained to the backup's head, naming the backup, the heads it continues from, the
journal it replaced and what that journal held past them (docs/journal.md, "Restore").
The table's snapshot is rewritten chained to that event, in the same transaction, so
the start check finds the record whole. The daemon publishes it at its next start: a
subscriber that held higher `seq`s learns there that the stream was restored, not edited.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from floord.contract import Envelope, EventType, format_ts
from floord.journal.append import AppendRows
from floord.journal.audit import SNAPSHOTS_CHAINED, AuditError, copy_journal, verify_journal
from floord.journal.audit import open_readonly as open_audit
from floord.journal.backup import STAMP, Head, file_sha256, fsync_path, read_heads
from floord.journal.errors import rollback
from floord.journal.lock import JournalLock
from floord.untrusted import read_json

POLICY = (
    "floord policy: a restored journal continues from the backup's heads; what the "
    "replaced journal held past them is named here and kept in the file set aside"
)
HashAt = Callable[[str, int], str | None]


class RestoreError(ValueError):
    """Why a restore was refused or failed; the journal in place was left as it was."""


@dataclass(frozen=True)
class Loss:
    """Events of one stream the journal holds and the backup does not: `first_seq` to
    `last_seq`; `fork` when they replace events the backup holds at the same seqs."""

    stream: str
    first_seq: int
    last_seq: int
    fork: bool

    def describe(self) -> str:
        count = self.last_seq - self.first_seq + 1
        events = "1 event" if count == 1 else f"{count} events"
        what = f"{self.stream} seq {self.first_seq}..{self.last_seq} ({events}"
        return what + (", a fork: the backup holds others at those seqs)" if self.fork else ")")

    def data(self) -> dict[str, Any]:
        return {
            "stream": self.stream,
            "from_seq": self.first_seq,
            "to_seq": self.last_seq,
            "fork": self.fork,
        }


def losses(
    current: dict[str, Head], backup: dict[str, Head], current_at: HashAt, backup_at: HashAt
) -> list[Loss]:
    """What restoring `backup` over `current` would lose, stream by stream (sorted).

    For each stream of `current` the last seq both hold the same event at is found
    (the chain makes agreement at seq k mean agreement at every seq before it, so a
    bisection finds it); every event of `current` after it is lost. A seq whose hash
    one side cannot tell (pruned under retention) counts as agreeing.
    """
    found = []
    for stream, head in sorted(current.items()):
        if head.seq < 1:
            continue
        theirs = backup.get(stream)
        if theirs is None or theirs.seq < 1:
            found.append(Loss(stream, 1, head.seq, False))
            continue

        def same(seq: int, stream: str = stream) -> bool:
            mine, other = current_at(stream, seq), backup_at(stream, seq)
            return mine is None or other is None or mine == other

        shared = min(head.seq, theirs.seq)
        if same(shared):
            if head.seq > shared:
                found.append(Loss(stream, shared + 1, head.seq, False))
            continue
        low, high = 0, shared  # same(low) holds (seq 0: before anything), same(high) not
        while high - low > 1:
            middle = (low + high) // 2
            low, high = (middle, high) if same(middle) else (low, middle)
        found.append(Loss(stream, high, head.seq, True))
    return found


def hash_lookup(path: Path) -> tuple[HashAt, Callable[[], None]]:
    """`(stream, seq) -> hash` over a journal opened read-only, and its closer."""
    db = open_audit(path)

    def at(stream: str, seq: int) -> str | None:
        row = db.execute(
            "SELECT json_extract(body, '$.hash') FROM events WHERE stream = ? AND seq = ?",
            (stream, seq),
        ).fetchone()
        return row[0] if row else None

    return at, db.close


@dataclass(frozen=True)
class Restored:
    """What a restore did: the heads it continues from, what it replaced and lost."""

    journal: Path
    heads: dict[str, Head]
    set_aside: Path | None
    lost: list[Loss]
    events: list[Envelope]

    def describe(self, backup: Path) -> str:
        tables = ", ".join(f"{e.table} seq {e.seq}" for e in self.events)
        aside = f"; the journal it replaced is kept as {self.set_aside}" if self.set_aside else ""
        lost = (
            "; not in the backup, so gone from this journal: "
            + "; ".join(x.describe() for x in self.lost)
            if self.lost
            else ""
        )
        return (
            f"{backup} restored to {self.journal}: {len(self.heads)} streams, journal.restored "
            f"recorded ({tables}){aside}{lost}"
        )


def restore_journal(
    backup: Path, journal: Path, *, force: bool = False, now: datetime | None = None
) -> Restored:
    """Put `backup` in `journal`'s place, as the module says. Raises `RestoreError`, or
    `JournalInUse` when another writer holds the journal."""
    backup, journal = Path(backup), Path(journal)
    moment = now or datetime.now(UTC)
    try:
        journal.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RestoreError(f"cannot make the journal's folder {journal.parent}: {exc}") from exc
    lock = JournalLock(journal)
    try:
        heads = _verified_heads(backup)
        lost, old_mode = _what_would_be_lost(backup, journal, heads, force)
        restoring = journal.with_name(f".{journal.name}.restoring-{os.getpid()}")
        restoring.unlink(missing_ok=True)
        try:
            copy_journal(backup, restoring)
            facts = {
                "backup": {"file": str(backup.resolve()), "sha256": file_sha256(backup)},
                "forced": force,
            }
            aside = _aside_name(journal, moment) if journal.exists() else None
            events = _record_restore(restoring, heads, lost, aside, facts, moment)
            os.chmod(restoring, old_mode)
            fsync_path(restoring)
            _put_in_place(restoring, journal, aside)
        except (AuditError, OSError, sqlite3.Error) as exc:
            raise RestoreError(f"cannot restore {backup} to {journal}: {exc}") from exc
        finally:
            restoring.unlink(missing_ok=True)
    finally:
        lock.release()
    return Restored(journal, heads, aside, lost, events)


def _verified_heads(backup: Path) -> dict[str, Head]:
    try:
        report = verify_journal(backup)
        if report.broken is not None:
            raise RestoreError(
                f"{backup} does not verify ({report.broken}); a backup whose chain is broken "
                "is never restored"
            )
        db = open_audit(backup)
        try:
            version = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        finally:
            db.close()
        heads = read_heads(backup)
    except AuditError as exc:
        raise RestoreError(str(exc)) from exc
    if version[0] != SNAPSHOTS_CHAINED:
        raise RestoreError(
            f"{backup} is a journal of schema version {version[0]}; this floord restores "
            f"version {SNAPSHOTS_CHAINED} (open it with the floord that wrote it)"
        )
    if not any("/" not in s for s in heads):
        raise RestoreError(
            f"{backup} holds no table's stream (an adapter's journal?); restore puts back a "
            "daemon's journal"
        )
    return heads


def _what_would_be_lost(
    backup: Path, journal: Path, heads: dict[str, Head], force: bool
) -> tuple[list[Loss], int]:
    """The losses of restoring over `journal` (none when there is none), and the mode
    the restored file gets (the replaced journal's; 0600 for a new one)."""
    if not journal.exists():
        return [], 0o600
    mode = journal.stat().st_mode & 0o777
    try:
        current = read_heads(journal)
        current_at, close_current = hash_lookup(journal)
        try:
            backup_at, close_backup = hash_lookup(backup)
            try:
                found = losses(current, heads, current_at, backup_at)
            finally:
                close_backup()
        finally:
            close_current()
    except (AuditError, sqlite3.Error) as exc:
        if force:
            return [], mode
        raise RestoreError(
            f"cannot read {journal} to tell whether it is newer than {backup} ({exc}); "
            "--force restores over it, setting it aside"
        ) from exc
    if found and not force:
        raise RestoreError(
            f"{journal} is newer than {backup}: "
            + "; ".join(x.describe() for x in found)
            + " would be gone from the journal; --force restores anyway, setting it aside"
        )
    return found, mode


def _put_in_place(restoring: Path, journal: Path, aside: Path | None) -> None:
    """The journal (with its -wal and -shm, which SQLite would otherwise read into the
    restored file) renamed `aside`, then the restored copy renamed to the journal; on a
    failure between the two the journal is put back as it was."""
    moved: list[str] = []
    try:
        for suffix in ("", "-wal", "-shm") if aside is not None else ():
            if Path(f"{journal}{suffix}").exists():
                os.rename(f"{journal}{suffix}", f"{aside}{suffix}")
                moved.append(suffix)
        os.rename(restoring, journal)
    except OSError:
        for suffix in moved:
            os.rename(f"{aside}{suffix}", f"{journal}{suffix}")
        raise
    fsync_path(journal.parent)


def _aside_name(journal: Path, moment: datetime) -> Path:
    """`journal.db.replaced-20261204T203000Z` beside it (`-2`, ... when that is taken)."""
    base = f"{journal.name}.replaced-{moment.astimezone(UTC).strftime(STAMP)}"
    aside, n = journal.with_name(base), 1
    while any(Path(f"{aside}{s}").exists() for s in ("", "-wal", "-shm")):
        n += 1
        aside = journal.with_name(f"{base}-{n}")
    return aside


def _record_restore(
    path: Path,
    heads: dict[str, Head],
    lost: list[Loss],
    aside: Path | None,
    facts: dict[str, Any],
    moment: datetime,
) -> list[Envelope]:
    """One `journal.restored` on each table's stream of the copy at `path`, its snapshot
    chained to it, all in one transaction."""
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute("BEGIN IMMEDIATE")
        events = []
        for table in sorted(s for s in heads if "/" not in s):
            mine = [s for s in heads if s == table or s.startswith(f"{table}/")]
            data = {
                **facts,
                "head": _head(heads[table]),
                "streams": {s: _head(heads[s]) for s in sorted(mine) if s != table},
                "replaced": str(aside) if aside is not None else None,
                "lost": [x.data() for x in lost if _of(x.stream, table)],
                "policy": POLICY,
            }
            snapshot = _snapshot(db, table)
            append = AppendRows(
                path,
                table,
                [_build(_site(db, table), table, format_ts(moment), data)],
                snapshot=(table, snapshot) if snapshot is not None else None,
            )
            events.extend(append.write(db))
        db.execute("COMMIT")
        return events
    finally:
        rollback(db)
        db.close()


def _of(stream: str, table: str) -> bool:
    return stream == table or stream.startswith(f"{table}/")


def _head(head: Head) -> dict[str, Any]:
    return {"seq": head.seq, "hash": head.hash}


def _site(db: sqlite3.Connection, table: str) -> str:
    row = db.execute(
        "SELECT json_extract(body, '$.site') FROM events WHERE stream = ? "
        "ORDER BY seq DESC LIMIT 1",
        (table,),
    ).fetchone()
    if row is None or not isinstance(row[0], str):
        raise RestoreError(f"the backup's stream {table!r} has no event naming its site")
    return str(row[0])


def _snapshot(db: sqlite3.Connection, table: str) -> dict[str, Any] | None:
    row = db.execute("SELECT state FROM snapshots WHERE table_id = ?", (table,)).fetchone()
    if row is None:
        return None
    state = read_json(row[0])
    return state if isinstance(state, dict) else None


def _build(site: str, table: str, ts: str, data: dict[str, Any]) -> Callable[[int], Envelope]:
    def build(seq: int) -> Envelope:
        return Envelope(
            site=site,
            table=table,
            seq=seq,
            ts=ts,
            type=EventType.JOURNAL_RESTORED,
            source="daemon",
            data=data,
        )

    return build
