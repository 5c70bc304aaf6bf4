"""The archive's tables, in PostgreSQL and in SQLite, and the migrations between versions.

`archive_events` is the record itself, one row per event of each stream as received
(`body`, so every hash can be recomputed); readers (the floor reports) depend on its
columns. Beside it: `archive_streams` (each stream's highest `seq` and its hash, per
epoch), `archive_gaps` (the ranges not yet held), `archive_epochs` (a stream going on from
a restored journal's head, docs/contract.md "Restores"), `archive_breaks` (a chain that
did not link, an edited event, a `seq` seen again with another hash) and
`archive_schema` (the version, so a newer archive's database is refused, never altered).

Each migration is a list of statements per backend, applied in one transaction with the
version row; version N is what `MIGRATIONS[:N]` built.
"""

from __future__ import annotations

from typing import Literal

Backend = Literal["postgresql", "sqlite"]

# The column types that differ: PostgreSQL's own time and integer types; SQLite keeps
# the envelope's `ts` text as is (ISO 8601, `Z`), which sorts as time does.
_TYPES: dict[Backend, dict[str, str]] = {
    "postgresql": {"TS": "TIMESTAMPTZ", "BIG": "BIGINT", "ID": "BIGSERIAL", "BOOL": "BOOLEAN"},
    "sqlite": {"TS": "TEXT", "BIG": "INTEGER", "ID": "INTEGER", "BOOL": "INTEGER"},
}

_V1 = [
    """CREATE TABLE archive_events (
  site TEXT NOT NULL,
  stream TEXT NOT NULL,
  epoch INTEGER NOT NULL DEFAULT 0,
  seq {BIG} NOT NULL,
  table_id TEXT NOT NULL,
  device TEXT,
  ts {TS} NOT NULL,
  type TEXT NOT NULL, source TEXT NOT NULL, round TEXT, rule TEXT,
  hash TEXT NOT NULL, prev TEXT NOT NULL,
  body TEXT NOT NULL,
  stored_at {TS} NOT NULL,
  PRIMARY KEY (site, stream, epoch, seq))""",
    "CREATE INDEX archive_events_by_time ON archive_events (ts)",
    "CREATE INDEX archive_events_by_table ON archive_events (site, table_id, ts)",
    """CREATE TABLE archive_streams (
  site TEXT NOT NULL,
  stream TEXT NOT NULL,
  epoch INTEGER NOT NULL,
  high {BIG} NOT NULL,
  head_hash TEXT,
  updated_at {TS} NOT NULL,
  PRIMARY KEY (site, stream, epoch))""",
    """CREATE TABLE archive_gaps (
  site TEXT NOT NULL,
  stream TEXT NOT NULL,
  epoch INTEGER NOT NULL,
  from_seq {BIG} NOT NULL,
  to_seq {BIG} NOT NULL,
  fillable {BOOL} NOT NULL,
  noticed_at {TS} NOT NULL,
  PRIMARY KEY (site, stream, epoch, from_seq))""",
    """CREATE TABLE archive_epochs (
  site TEXT NOT NULL,
  stream TEXT NOT NULL,
  epoch INTEGER NOT NULL,
  after_seq {BIG} NOT NULL,
  after_hash TEXT NOT NULL,
  restored_hash TEXT NOT NULL,
  noticed_at {TS} NOT NULL,
  PRIMARY KEY (site, stream, epoch))""",
    """CREATE TABLE archive_breaks (
  id {ID} PRIMARY KEY,
  site TEXT NOT NULL,
  stream TEXT NOT NULL,
  epoch INTEGER NOT NULL,
  seq {BIG} NOT NULL,
  kind TEXT NOT NULL,
  detail TEXT NOT NULL,
  hash TEXT NOT NULL,
  body TEXT NOT NULL,
  found_at {TS} NOT NULL,
  UNIQUE (site, stream, epoch, seq, kind, hash))""",
]

# Every version's statements, in order; the version a database is at is how many ran.
MIGRATIONS: list[list[str]] = [_V1]
VERSION = len(MIGRATIONS)

SCHEMA_TABLE = {
    "postgresql": "CREATE TABLE IF NOT EXISTS archive_schema "
    "(version INTEGER NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())",
    "sqlite": "CREATE TABLE IF NOT EXISTS archive_schema "
    "(version INTEGER NOT NULL, applied_at TEXT NOT NULL DEFAULT (datetime('now')))",
}


def statements(backend: Backend, version: int) -> list[str]:
    """The statements that take a database from `version - 1` to `version`."""
    return [s.format(**_TYPES[backend]) for s in MIGRATIONS[version - 1]]
