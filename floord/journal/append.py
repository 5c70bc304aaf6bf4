"""Appending to a stream: number, chain and store events (and a snapshot) in ONE
transaction, on the journal's own connection (the writer thread, `floord.journal.writer`).

All or nothing: a table's input and the decisions it caused are never on the record
without each other, nor an operator command's id without the command's record.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from floord.contract import WIRE_JSON, Envelope
from floord.journal import watch_states
from floord.journal.chain import event_hash, genesis
from floord.journal.errors import INTERNAL, JournalError, fail
from floord.journal.feed import Feeds, Row
from floord.journal.integrity import write_snapshot
from floord.journal.shared_commit import Write
from floord.journal.watermark import Acks, move_marks, set_mark
from floord.untrusted import storable

Build = Callable[[int], Envelope]


class Append(Write):
    """Number, chain and store `builds` on `stream`, with the extras, in one transaction:
    its own when run alone (`append(db)`), or one it shares with the appends queued
    beside it on the journal's thread (`floord.journal.shared_commit`). All or nothing.

    `build(seq)` makes each envelope for the number the journal hands out, so the number
    in the stored JSON is always the journal's own. `before` ((stream, builds), a
    table's local devices) is stored first in the SAME transaction: one commit, one
    fsync, for a device's events and the table's record of them. `snapshot` (table,
    state) is written chained to the stream's new head; `drop_snapshot` deletes that
    table's snapshot (`floord journal retire`); `command_id` (id, ts) records an
    operator command's id; `watch` (the canonical text of the table's live tests as
    these events leave them) keeps them at the stream's new head
    (`floord.journal.watch_states`); `published` stores the events as published already (the
    daemon's copy of a stream a remote adapter published itself), so the copy is one
    transaction, not two. Once committed, the rows go to their publishers' `feeds`
    (`floord.journal.feed`); the link's `acks` not yet written move their watermarks in
    the same transaction.

    The outcome is (the envelopes of `stream`, those of each of `before`, in its order),
    carrying `prev` and `hash` as stored and published."""

    def __init__(
        self,
        path: Path,
        stream: str,
        builds: list[Build],
        *,
        before: Sequence[tuple[str, list[Build]]] = (),
        snapshot: tuple[str, dict[str, Any]] | None = None,
        drop_snapshot: str | None = None,
        command_id: tuple[str, str] | None = None,
        published: bool = False,
        feeds: Feeds | None = None,
        acks: Acks | None = None,
        watch: str | None = None,
    ) -> None:
        self.path = path
        self.stream = stream
        self.builds = builds
        self.before = before
        self.snapshot = snapshot
        self.drop_snapshot = drop_snapshot
        self.command_id = command_id
        self.published = published
        self.feeds = feeds
        self.acks = acks
        self.watch = watch
        self._doing = stream
        self._stored: list[Row] = []
        self._acked: dict[str, list[int]] = {}

    def __call__(self, conn: sqlite3.Connection) -> tuple[list[Envelope], list[list[Envelope]]]:
        return super().__call__(conn)  # type: ignore[return-value]

    def write(self, conn: sqlite3.Connection) -> tuple[list[Envelope], list[list[Envelope]]]:
        db, path, stored = conn, self.path, self._stored
        self._acked = self.acks.take() if self.acks is not None else {}
        others = []
        for doing, other in self.before:
            self._doing = doing
            others.append(_store(db, path, doing, other, False, stored)[0])
        self._doing = self.stream
        envelopes, seq, prev = _store(db, path, self.stream, self.builds, self.published, stored)
        if self.snapshot is not None:
            table_id, state = self.snapshot
            head = (seq, prev) if table_id == self.stream else None
            write_snapshot(db, table_id, state, head)
        if self.watch is not None:
            watch_states.save_text(db, self.stream, self.watch)
        if self.drop_snapshot is not None:
            db.execute("DELETE FROM snapshots WHERE table_id = ?", (self.drop_snapshot,))
            watch_states.drop(db, self.drop_snapshot)
        if self.command_id is not None:
            db.execute(
                "INSERT INTO command_ids (id, ts) VALUES (?, ?) ON CONFLICT (id) DO NOTHING",
                self.command_id,
            )
        move_marks(db, self._acked)
        return envelopes, others

    def failed(self, exc: BaseException) -> BaseException:
        """Undone: the acknowledgements it took wait for the next write, the rows it
        stored go to no feed, and the error is named for what failed."""
        self._stored = []
        if self.acks is not None:
            self.acks.put_back(self._acked)
        self._acked = {}
        if isinstance(exc, JournalError):
            return exc
        # Only the storage failing is the journal failing; anything else (a bug
        # building or encoding an event) is named for what it is.
        if isinstance(exc, sqlite3.Error | OSError):
            return fail(self.path, f"append to {self._doing!r}", exc)
        if isinstance(exc, Exception):
            return JournalError(
                f"journal {self.path}: append to {self._doing!r}: could not build or encode "
                f"what was to be stored: {exc!r}",
                INTERNAL,
            )
        return exc

    def committed(self) -> None:
        if self.feeds is not None:
            self.feeds.put(self._stored)


class AppendRows(Append):
    """`Append`, its outcome the envelopes of `stream` only: what its `write` gives,
    which the transaction around it returns."""

    def __call__(self, conn: sqlite3.Connection) -> list[Envelope]:  # type: ignore[override]
        return super().__call__(conn)  # type: ignore[return-value]

    def write(self, conn: sqlite3.Connection) -> list[Envelope]:  # type: ignore[override]
        return super().write(conn)[0]


def _store(
    db: sqlite3.Connection,
    path: Path,
    stream: str,
    builds: list[Build],
    published: bool,
    stored: list[Row],
) -> tuple[list[Envelope], int, str | None]:
    """Inside the caller's transaction: number, chain and store `builds` on `stream` and
    move its head; (the envelopes, the stream's last seq, its hash). The rows to publish
    are added to `stored`, for the publishers' feeds once committed."""
    row = db.execute(
        "SELECT last_seq, last_hash FROM streams WHERE stream = ?", (stream,)
    ).fetchone()
    seq, prev = (row[0], row[1]) if row else (0, None)
    if type(seq) is not int or seq < 0:
        raise JournalError(f"journal {path}: {stream!r} has a head whose seq is {seq!r}")
    if seq and prev is None:
        raise JournalError(f"journal {path}: {stream!r} has no chain head")
    envelopes: list[Envelope] = []
    for build in builds:
        seq += 1
        envelope = build(seq)
        if envelope.seq != seq:
            raise JournalError(
                f"journal {path}: envelope for {stream!r} carries seq "
                f"{envelope.seq}, the journal handed out {seq}"
            )
        if prev is None:
            prev = genesis(envelope.site, stream)
        body = _body(envelope, prev)
        # Encoded twice, no more: canonically for the hash, compactly for storage
        # (the stored form is the envelope's JSON with `hash` as its last key).
        hashed = event_hash(body)
        text = f'{dumps(body)[:-1]},"hash":"{hashed}"}}'
        db.execute(
            "INSERT INTO events (stream, seq, body, published) VALUES (?, ?, ?, ?)",
            (stream, seq, text, int(published)),
        )
        if not published:
            stored.append((stream, seq, text))
        prev = hashed
        envelopes.append(_returned(envelope, body, hashed))
    if envelopes:
        db.execute(
            "INSERT INTO streams (stream, last_seq, last_hash) VALUES (?, ?, ?) "
            "ON CONFLICT (stream) DO UPDATE SET last_seq = excluded.last_seq, "
            "last_hash = excluded.last_hash",
            (stream, seq, prev),
        )
    if published and envelopes:
        set_mark(db, stream, seq)
    return envelopes, seq, prev


def _returned(envelope: Envelope, body: dict[str, Any], hashed: str) -> Envelope:
    """`envelope` as stored: the stored body's data, chained and hashed. Made field by
    field, at half the cost of `dataclasses.replace`, which reads the fields' list
    again for every event."""
    return Envelope(
        site=envelope.site,
        table=envelope.table,
        seq=envelope.seq,
        ts=envelope.ts,
        type=envelope.type,
        source=envelope.source,
        data=body["data"] or {},
        rule=envelope.rule,
        round=envelope.round,
        v=envelope.v,
        prev=body["prev"],
        hash=hashed,
    )


def _body(envelope: Envelope, prev: str) -> dict[str, Any]:
    """The stored body of `envelope` chained to `prev`, without its `hash`: the keys of
    `Envelope.to_dict` in its order, as JSON would give them back (text keys, lists),
    and text UTF-8 cannot hold (a lone surrogate from outside) escaped: what came in
    must never be what stops the record. A fresh copy: nothing the engine holds."""
    return {
        "v": envelope.v,
        "site": _plain(envelope.site),
        "table": _plain(envelope.table),
        "seq": envelope.seq,
        "ts": _plain(envelope.ts),
        "type": _plain(envelope.type),
        "source": _plain(envelope.source),
        "data": _plain(envelope.data),
        "rule": _plain(envelope.rule),
        "round": _plain(envelope.round),
        "prev": prev,
    }


def _plain(value: Any) -> Any:
    """`value` as `json.loads(json.dumps(value))` would return it, for what an event
    holds, with lone surrogates escaped (`floord.untrusted.storable`)."""
    if isinstance(value, str):
        # ASCII holds no surrogate; `isascii` reads a flag CPython keeps on the string.
        return value if value.isascii() else storable(value)
    if isinstance(value, dict):
        return {_key(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _key(key: Any) -> str:
    """A dict key as JSON writes it (`1` -> "1", `True` -> "true", `None` -> "null")."""
    if isinstance(key, str):
        return key if type(key) is str and key.isascii() else str(storable(key))
    if key is None or isinstance(key, bool | int | float):
        return json.dumps(key)
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")


def dumps(body: dict[str, Any]) -> str:
    """The stored form of a body: compact JSON, the same bytes as `Envelope.to_json`."""
    return WIRE_JSON.encode(body)
