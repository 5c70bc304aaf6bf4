"""The archive's database, whichever it is: the SQL both backends share.

PostgreSQL (`floord.archive.postgres`) for a floor, a SQLite file
(`floord.archive.sqlite_store`) for one box or the demo; each supplies a connection and
how it writes times, and this class speaks the same SQL to both (written with `?`
placeholders; the PostgreSQL store turns them into its own). Used from the archive's
writer thread only: every call blocks.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from floord.archive.batch import Batch, Epoch, Gap, Head, StreamKey
from floord.archive.schema import SCHEMA_TABLE, VERSION, Backend, statements


class ArchiveDatabaseError(Exception):
    """The database refused or could not be reached; the message is one line."""


class SchemaTooNew(ArchiveDatabaseError):
    """The database was made by a newer archive: this one must not write to it."""


_INSERT_EVENT = (
    "INSERT INTO archive_events (site, stream, epoch, seq, table_id, device, ts, type, "
    "source, round, rule, hash, prev, body, stored_at) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING"
)
_UPSERT_HEAD = (
    "INSERT INTO archive_streams (site, stream, epoch, high, head_hash, updated_at) "
    "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (site, stream, epoch) DO UPDATE SET "
    "high = excluded.high, head_hash = excluded.head_hash, updated_at = excluded.updated_at"
)
_INSERT_GAP = (
    "INSERT INTO archive_gaps (site, stream, epoch, from_seq, to_seq, fillable, noticed_at) "
    "VALUES (?, ?, ?, ?, ?, ?, ?)"
)
_INSERT_EPOCH = (
    "INSERT INTO archive_epochs (site, stream, epoch, after_seq, after_hash, restored_hash, "
    "noticed_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING"
)
_INSERT_BREAK = (
    "INSERT INTO archive_breaks (site, stream, epoch, seq, kind, detail, hash, body, "
    "found_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING"
)


class Store(ABC):
    """One connection to the archive's database, used by one thread."""

    backend: Backend

    @abstractmethod
    def _execute(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Run one statement; its rows (empty for a write)."""

    @abstractmethod
    def _executemany(self, sql: str, rows: list[tuple[Any, ...]]) -> None: ...

    @abstractmethod
    def _commit(self) -> None: ...

    @abstractmethod
    def _rollback(self) -> None: ...

    @abstractmethod
    def close(self) -> None: ...

    @abstractmethod
    def time_value(self, text: str | None, when: datetime) -> Any:
        """A time as this backend stores it: PostgreSQL a timestamptz, SQLite the text."""

    @property
    @abstractmethod
    def where(self) -> str:
        """The database, for the logs (no password)."""

    # The schema.

    def version(self) -> int:
        """The schema version the database is at (0: empty)."""
        self._execute(SCHEMA_TABLE[self.backend])
        rows = self._execute("SELECT max(version) FROM archive_schema")
        self._commit()
        found = rows[0][0] if rows else None
        return int(found) if found is not None else 0

    def read_version(self) -> int:
        """The schema version without creating anything (0: no archive tables yet), for
        `--check`, which writes nothing."""
        try:
            rows = self._execute("SELECT max(version) FROM archive_schema")
        except ArchiveDatabaseError:
            self._rollback()
            return 0
        self._rollback()
        found = rows[0][0] if rows else None
        return int(found) if found is not None else 0

    def migrate(self) -> int:
        """Bring the schema up to `VERSION`, each step in one transaction; the version
        it was at. A database of a newer archive is refused."""
        at = self.version()
        if at > VERSION:
            raise SchemaTooNew(
                f"the archive database {self.where} is at schema version {at}, newer than "
                f"this floord's {VERSION}: upgrade floord, never write to it with this one"
            )
        for version in range(at + 1, VERSION + 1):
            try:
                for sql in statements(self.backend, version):
                    self._execute(sql)
                self._execute("INSERT INTO archive_schema (version) VALUES (?)", (version,))
                self._commit()
            except Exception:
                self._rollback()
                raise
        return at

    # What the writer starts from.

    def heads(self) -> dict[StreamKey, Head]:
        rows = self._execute("SELECT site, stream, epoch, high, head_hash FROM archive_streams")
        self._commit()
        return {(r[0], r[1], int(r[2])): Head(int(r[3]), r[4]) for r in rows}

    def gaps(self) -> dict[StreamKey, list[Gap]]:
        rows = self._execute(
            "SELECT site, stream, epoch, from_seq, to_seq, fillable, noticed_at "
            "FROM archive_gaps ORDER BY site, stream, epoch, from_seq"
        )
        self._commit()
        found: dict[StreamKey, list[Gap]] = {}
        for site, stream, epoch, first, last, fillable, noticed in rows:
            found.setdefault((site, stream, int(epoch)), []).append(
                Gap(int(first), int(last), bool(fillable), self.read_time(noticed))
            )
        return found

    def epochs(self) -> list[Epoch]:
        rows = self._execute(
            "SELECT site, stream, epoch, after_seq, after_hash, restored_hash, noticed_at "
            "FROM archive_epochs ORDER BY site, stream, epoch"
        )
        self._commit()
        return [
            Epoch(r[0], r[1], int(r[2]), int(r[3]), r[4], r[5], self.read_time(r[6])) for r in rows
        ]

    def read_time(self, value: Any) -> datetime:
        if isinstance(value, datetime):
            return value
        return datetime.fromisoformat(str(value).replace("Z", "+00:00"))

    def link_at(self, key: StreamKey, seq: int) -> tuple[str, str] | None:
        """(hash, prev) of the event held at `seq` of a stream's epoch, or None."""
        rows = self._execute(
            "SELECT hash, prev FROM archive_events WHERE site = ? AND stream = ? "
            "AND epoch = ? AND seq = ?",
            (*key, seq),
        )
        return (str(rows[0][0]), str(rows[0][1])) if rows else None

    def count(self) -> int:
        """How many events the archive holds."""
        rows = self._execute("SELECT count(*) FROM archive_events")
        self._commit()
        return int(rows[0][0])

    # The one write.

    def write(self, batch: Batch, now: datetime) -> None:
        """Everything of `batch` in one transaction, or nothing (and the error raised)."""
        try:
            self._write(batch, now)
            self._commit()
        except Exception:
            self._rollback()
            raise

    def _write(self, batch: Batch, now: datetime) -> None:
        stored = self.time_value(None, now)
        if batch.events:
            self._executemany(
                _INSERT_EVENT,
                [
                    (
                        a.site,
                        a.stream,
                        epoch,
                        a.seq,
                        a.table,
                        a.device,
                        self.time_value(a.ts, a.ts_at),
                        a.type,
                        a.source,
                        a.round,
                        a.rule,
                        a.hash,
                        a.prev,
                        a.body_text,
                        stored,
                    )
                    for epoch, a in batch.events
                ],
            )
        if batch.epochs:
            self._executemany(
                _INSERT_EPOCH,
                [
                    (
                        e.site,
                        e.stream,
                        e.epoch,
                        e.after_seq,
                        e.after_hash,
                        e.restored_hash,
                        self.time_value(None, e.noticed_at),
                    )
                    for e in batch.epochs
                ],
            )
        if batch.heads:
            self._executemany(
                _UPSERT_HEAD,
                [(*key, h.high, h.hash, stored) for key, h in batch.heads.items()],
            )
        for key, gaps in batch.gaps.items():
            self._execute(
                "DELETE FROM archive_gaps WHERE site = ? AND stream = ? AND epoch = ?", key
            )
            if gaps:
                self._executemany(
                    _INSERT_GAP,
                    [
                        (
                            *key,
                            g.first,
                            g.last,
                            self.bool_value(g.fillable),
                            self.time_value(None, g.noticed_at),
                        )
                        for g in gaps
                    ],
                )
        if batch.breaks:
            self._executemany(
                _INSERT_BREAK,
                [
                    (
                        b.site,
                        b.stream,
                        b.epoch,
                        b.seq,
                        b.kind,
                        b.detail,
                        b.hash,
                        b.body,
                        self.time_value(None, b.found_at),
                    )
                    for b in batch.breaks
                ],
            )

    def bool_value(self, value: bool) -> Any:
        return value
