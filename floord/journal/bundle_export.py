"""Write an evidence bundle: one table's range of the record, tied to each stream's head.

For the table's stream and each of its devices' streams (`<table>/devices/<device>`)
the bundle holds, byte for byte as stored:

- `events/<stream>.jsonl`: the range (a round on the table stream, and on the device
  streams the time from that round's first event to its last; or a window of time on
  every stream);
- `links/<stream>.jsonl`: the event just before the range (so the range is shown to
  start where it says: that event is outside it), then every event after the range up to
  the stream's head as the journal held it at export. A hash covers the whole body it is
  taken over, so nothing less than each body lets a verifier recompute it: these are the
  links from the range's last event to the head.

Everything is read in one read transaction of a `mode=ro` connection: the daemon may go
on writing (no lock is taken), the bundle is one consistent state of the journal.
The layout and the manifest are documented in docs/journal.md, "Evidence bundles".
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import IO, Any

from floord.contract import format_ts, parse_ts
from floord.journal.audit import AuditError, open_readonly
from floord.journal.bundle_format import (
    FORMAT,
    FORMAT_VERSION,
    MANIFEST,
    SUMS,
    BundleWriter,
    events_member,
    links_member,
    manifest_bytes,
    sums_bytes,
)
from floord.untrusted import read_json

HOW_TO_VERIFY = (
    "Check every member against SHA256SUMS (sha256sum -c SHA256SUMS) and against "
    "`members` here. For each stream of `streams`: the lines of `links` before the range "
    "(`before_seq`), of `events` (the range) and the rest of `links` (up to `head`) are one "
    "run of seq without a gap; each line's `hash` is the SHA-256 of the line's JSON object "
    "without `hash`, keys sorted, no spaces, non-ASCII as is, UTF-8; each line's `prev` is "
    "the `hash` of the line before it (for seq 1 the SHA-256 of `floord/v1 genesis "
    "<site>/<stream>`); the last line's seq and hash are `head`; the event before the range "
    "and the event after it fall outside `select`, the range's first and last inside it. "
    "Then compare each `head` with the journal (or a copy, or the chain seen on MQTT): "
    "docs/journal.md, Evidence bundles."
)


@dataclass(frozen=True)
class Selection:
    """What to export: a round of the table (`round`), or `start <= ts < end`."""

    round: str | None = None
    start: str | None = None
    end: str | None = None

    @classmethod
    def window(cls, start: str, end: str) -> Selection:
        """A window of time from the command line's ISO 8601 texts (a zone required)."""
        try:
            low, high = format_ts(parse_ts(start)), format_ts(parse_ts(end))
        except ValueError as exc:
            raise AuditError(f"--from and --to must be ISO 8601 times with a zone: {exc}") from exc
        if high <= low:
            raise AuditError(f"--to ({end}) must be later than --from ({start})")
        return cls(start=low, end=high)

    def manifest(self) -> dict[str, str]:
        if self.round is not None:
            return {"round": self.round}
        return {"from": str(self.start), "to": str(self.end)}


@dataclass(frozen=True)
class Attachment:
    """A file that goes into the bundle beside the record (the config, a profile)."""

    member: str
    data: bytes


@dataclass(frozen=True)
class ExportSummary:
    """What was written: per stream (name, first seq, last seq, count, head seq)."""

    streams: list[tuple[str, int | None, int | None, int, int]]
    manifest: dict[str, Any]

    @property
    def events(self) -> int:
        return sum(s[3] for s in self.streams)


@dataclass(frozen=True)
class _Plan:
    """One stream's part: the range `first..last` (None, None: empty, lying after seq
    `gap`), its start (`event`, `genesis` or `pruned`) and its head."""

    stream: str
    select: dict[str, str]
    gap: int
    first: int | None
    last: int | None
    start: str
    anchor: tuple[int, str] | None
    head: tuple[int, str]


def _one(db: sqlite3.Connection, sql: str, params: tuple[Any, ...]) -> Any:
    row = db.execute(sql, params).fetchone()
    return None if row is None else row[0]


_TS = "json_extract(body, '$.ts')"


def _time_range(
    db: sqlite3.Connection, stream: str, low: str, high: str
) -> tuple[int | None, int | None, int]:
    """(first, last, gap): the first event at or after `low`, the last before `high`."""
    first = _one(db, f"SELECT min(seq) FROM events WHERE stream = ? AND {_TS} >= ?", (stream, low))
    last = _one(db, f"SELECT max(seq) FROM events WHERE stream = ? AND {_TS} < ?", (stream, high))
    if first is not None and last is not None and first <= last:
        return first, last, first - 1
    if first is None:  # every event is before the window: it lies after the head
        head = _one(db, "SELECT last_seq FROM streams WHERE stream = ?", (stream,))
        return None, None, int(head or 0)
    return None, None, first - 1


def _round_range(db: sqlite3.Connection, table: str, round_id: str) -> tuple[int, int, str, str]:
    """The table stream's first and last event of the round, and their `ts`."""
    row = db.execute(
        "SELECT min(seq), max(seq) FROM events WHERE stream = ? "
        "AND json_extract(body, '$.round') = ?",
        (table, round_id),
    ).fetchone()
    if row is None or row[0] is None:
        raise AuditError(f"no event of round {round_id!r} on table {table}'s stream")
    first, last = int(row[0]), int(row[1])
    ts = [
        _one(db, f"SELECT {_TS} FROM events WHERE stream = ? AND seq = ?", (table, seq))
        for seq in (first, last)
    ]
    return first, last, str(ts[0]), str(ts[1])


def _start(db: sqlite3.Connection, stream: str, gap: int) -> tuple[str, tuple[int, str] | None]:
    """How the range's stream starts: after the event `gap` (in the bundle), at the
    genesis, or after events pruned under retention (their last hash, the anchor)."""
    if gap == 0:
        return "genesis", None
    if _one(db, "SELECT 1 FROM events WHERE stream = ? AND seq = ?", (stream, gap)):
        return "event", None
    pruned = db.execute(
        "SELECT up_to_seq, last_hash FROM pruned WHERE stream = ?", (stream,)
    ).fetchone()
    if pruned is not None and int(pruned[0]) == gap:
        return "pruned", (int(pruned[0]), str(pruned[1]))
    raise AuditError(
        f"stream {stream!r} has no seq {gap} and no record of pruning it: the journal is "
        "broken there (floord journal verify names the break)"
    )


def _plans(db: sqlite3.Connection, table: str, selection: Selection) -> list[_Plan]:
    heads = {
        str(s): (int(seq), str(h) if h is not None else "")
        for s, seq, h in db.execute("SELECT stream, last_seq, last_hash FROM streams")
        if s == table or str(s).startswith(f"{table}/devices/")
    }
    if table not in heads:
        raise AuditError(f"the journal has no stream for table {table!r}")
    if selection.round is not None:
        first, last, low, last_ts = _round_range(db, table, selection.round)
        try:
            high = format_ts(parse_ts(str(last_ts)) + timedelta(microseconds=1))
        except ValueError as exc:
            raise AuditError(
                f"round {selection.round!r} ends on an event whose ts ({last_ts!r}) is not a "
                "time: the journal is damaged there (floord journal verify names it)"
            ) from exc
        table_part: tuple[int | None, int | None, int] = (first, last, first - 1)
        table_select = {"round": selection.round}
    else:
        low, high = str(selection.start), str(selection.end)
        table_part = _time_range(db, table, low, high)
        table_select = {"from": low, "to": high}
    plans = []
    for stream in [table, *sorted(s for s in heads if s != table)]:
        if stream == table:
            first_, last_, gap = table_part
            select = table_select
        else:
            first_, last_, gap = _time_range(db, stream, low, high)
            select = {"from": low, "to": high}
        start, anchor = _start(db, stream, gap)
        plans.append(_Plan(stream, select, gap, first_, last_, start, anchor, heads[stream]))
    return plans


def _bodies(db: sqlite3.Connection, stream: str, low: int, high: int) -> Iterator[bytes]:
    for (body,) in db.execute(
        "SELECT body FROM events WHERE stream = ? AND seq BETWEEN ? AND ? ORDER BY seq",
        (stream, low, high),
    ):
        yield str(body).encode("utf-8") + b"\n"


def _write_stream(db: sqlite3.Connection, out: BundleWriter, plan: _Plan) -> dict[str, Any]:
    """Write one stream's two members; return its entry of the manifest."""
    head_seq, head_hash = plan.head
    counted = [0]

    def counting(rows: Iterator[bytes]) -> Iterator[bytes]:
        for row in rows:
            counted[0] += 1
            yield row

    if plan.first is not None and plan.last is not None:
        out.add_lines(
            events_member(plan.stream), counting(_bodies(db, plan.stream, plan.first, plan.last))
        )
        after_from = plan.last + 1
    else:
        out.add(events_member(plan.stream), b"")
        after_from = plan.gap + 1
    before = plan.gap if plan.start == "event" else None

    def links() -> Iterator[bytes]:
        if before is not None:
            yield from _bodies(db, plan.stream, before, before)
        yield from _bodies(db, plan.stream, after_from, head_seq)

    out.add_lines(links_member(plan.stream), links())
    entry: dict[str, Any] = {
        "stream": plan.stream,
        "select": plan.select,
        "events": {
            "member": events_member(plan.stream),
            "first_seq": plan.first,
            "last_seq": plan.last,
            "count": counted[0],
        },
        "start": plan.start,
        "before_seq": before,
        "links": {
            "member": links_member(plan.stream),
            "after_first_seq": after_from if after_from <= head_seq else None,
            "after_last_seq": head_seq if after_from <= head_seq else None,
        },
        "head": {"seq": head_seq, "hash": head_hash},
    }
    if plan.anchor is not None:
        entry["anchor"] = {"seq": plan.anchor[0], "hash": plan.anchor[1]}
    return entry


def _started(db: sqlite3.Connection, table: str) -> dict[str, Any] | None:
    """What the table's last `daemon.started` says: the run now under way, its version
    and the profile (path, origin, SHA-256) each device runs with."""
    row = db.execute(
        "SELECT seq, body FROM events WHERE stream = ? "
        "AND json_extract(body, '$.type') = 'daemon.started' ORDER BY seq DESC LIMIT 1",
        (table,),
    ).fetchone()
    if row is None:
        return None
    body = read_json(row[1])
    data = body.get("data") if isinstance(body.get("data"), dict) else {}
    return {
        "seq": int(row[0]),
        "ts": body.get("ts"),
        "version": data.get("version"),
        "profiles": data.get("profiles"),
    }


def _site(db: sqlite3.Connection, table: str) -> str:
    site = _one(
        db,
        "SELECT json_extract(body, '$.site') FROM events WHERE stream = ? ORDER BY seq DESC "
        "LIMIT 1",
        (table,),
    )
    return str(site) if site is not None else ""


def export_bundle(
    path: Path,
    table: str,
    selection: Selection,
    out: IO[bytes],
    *,
    now: datetime,
    version: str,
    attachments: list[Attachment],
    about: dict[str, Any],
) -> ExportSummary:
    """Write the bundle of `table`'s `selection` into `out` (a new, seekable file).

    `attachments` are the config's and profiles' files, each stored as its member; `about`
    goes into the manifest as it is (what those files are, where they came from).
    """
    db = open_readonly(path)
    writer: BundleWriter | None = None
    try:
        db.execute("BEGIN")
        schema = _one(db, "SELECT value FROM meta WHERE key = 'schema_version'", ())
        plans = _plans(db, table, selection)
        writer = BundleWriter(out)
        entries = [_write_stream(db, writer, plan) for plan in plans]
        site = _site(db, table)
        started = _started(db, table)
        db.execute("COMMIT")
        for attachment in attachments:
            writer.add(attachment.member, attachment.data)
        manifest: dict[str, Any] = {
            **about,
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "floord_version": version,
            "exported_at": format_ts(now),
            "site": site,
            "table": table,
            "selection": selection.manifest(),
            "journal": {"path": str(Path(path).resolve()), "schema_version": schema},
            "streams": entries,
            "started": started,
            "members": dict(sorted(writer.hashes.items())),
            "how_to_verify": HOW_TO_VERIFY,
        }
        writer.add(MANIFEST, manifest_bytes(manifest))
        writer.add(SUMS, sums_bytes(writer.hashes))
    except sqlite3.Error as exc:
        raise AuditError(f"journal {path}: cannot read: {exc}") from exc
    finally:
        db.close()
        if writer is not None:
            writer.close()  # on a failure too: the caller deletes what was written
    summary = [
        (
            e["stream"],
            e["events"]["first_seq"],
            e["events"]["last_seq"],
            e["events"]["count"],
            e["head"]["seq"],
        )
        for e in entries
    ]
    return ExportSummary(summary, manifest)
