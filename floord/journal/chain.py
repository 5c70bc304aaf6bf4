"""The hash chain that makes the journal tamper-evident: pure functions, no I/O.

Every event of a stream carries `prev`, the hash of the event before it in the same
stream (for seq 1, the hash of a genesis string naming the site and stream), and `hash`,
the SHA-256 of its own canonical form. Editing, deleting, inserting or reordering an
event breaks a link that anyone holding the bodies can find again: the journal's own
`floord journal verify`, an auditor with an export, or a subscriber on MQTT.

Canonical form: the envelope's JSON object WITHOUT its `hash` key, serialised with
sorted keys, no spaces, `ensure_ascii=False`, encoded as UTF-8.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from floord.untrusted import read_json

GENESIS_FORMAT = "floord/v1 genesis {site}/{stream}"
# The canonical encoder, made once: `json.dumps` with options builds one per call, and
# this runs for every event journaled. An encoder holds only its options.
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical_text(value: Any) -> str:
    """`value` as canonical JSON (sorted keys, compact, UTF-8 unescaped)."""
    return _CANONICAL.encode(value)


def canonical_bytes(body: dict[str, Any]) -> bytes:
    """The bytes an event's hash is taken over: its body without `hash`, canonical JSON."""
    # The journal hashes a body before it has a `hash`: no copy is needed then.
    unhashed = {k: v for k, v in body.items() if k != "hash"} if "hash" in body else body
    return _CANONICAL.encode(unhashed).encode("utf-8")


def event_hash(body: dict[str, Any]) -> str:
    """SHA-256 (hex) of the canonical form: what an event's own `hash` must be."""
    return hashlib.sha256(canonical_bytes(body)).hexdigest()


def genesis(site: str, stream: str) -> str:
    """The `prev` of a stream's first event: no earlier event exists to point at."""
    text = GENESIS_FORMAT.format(site=site, stream=stream)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Break:
    """The first broken link of a stream, as `verify` reports it.

    kind: `unreadable`, `unchained`, `edited`, `inserted`, `reordered`, `deleted`,
    `prev_mismatch`, `anchor_mismatch` or `head_mismatch`.
    """

    stream: str
    seq: int
    kind: str
    detail: str

    def __str__(self) -> str:
        return f"stream {self.stream!r} seq {self.seq}: {self.kind}: {self.detail}"


@dataclass(frozen=True)
class Anchor:
    """Where a stream's remaining record starts: after `up_to_seq`, whose hash it was.

    A stream never pruned starts after seq 0, anchored on its genesis hash.
    """

    up_to_seq: int
    last_hash: str


def anchor_of(up_to_seq: Any, last_hash: Any) -> Anchor | None:
    """The anchor a pruning record's row (`up_to_seq`, `last_hash`) says; None when the
    row is not one floord writes (a seq that is no positive integer, a hash that is no
    text): the file was edited, and nothing can be anchored on it."""
    if not isinstance(up_to_seq, int) or isinstance(up_to_seq, bool) or up_to_seq < 1:
        return None
    return Anchor(up_to_seq, last_hash) if isinstance(last_hash, str) else None


class _StreamCheck:
    """The walk along one stream: what the next event must link to."""

    def __init__(self, stream: str, anchor: Anchor | None) -> None:
        self.stream = stream
        self.anchor = anchor
        self.last_row_seq: int | None = None
        self.last_body_seq = anchor.up_to_seq if anchor else 0
        self.last_hash: str | None = anchor.last_hash if anchor else None
        self.seen: dict[str, int] = {}

    def expected_prev(self, site: str) -> str:
        if self.last_hash is None:
            return genesis(site, self.stream)
        return self.last_hash

    def step(self, seq: int, body_json: str) -> Break | None:
        def broken(kind: str, detail: str) -> Break:
            return Break(self.stream, seq, kind, detail)

        if not isinstance(seq, int) or isinstance(seq, bool):
            return Break(self.stream, 0, "unreadable", f"a row is stored under seq {seq!r}")
        try:
            body = read_json(body_json)
        except ValueError as exc:
            return broken("unreadable", f"the stored body is not JSON ({exc})")
        if not isinstance(body, dict):
            return broken("unreadable", "the stored body is not a JSON object")
        own, prev, body_seq = body.get("hash"), body.get("prev"), body.get("seq")
        if not isinstance(own, str) or not isinstance(prev, str):
            return broken("unchained", "the body carries no `prev` and `hash`")
        if event_hash(body) != own:
            return broken("edited", "its content no longer hashes to its own `hash`")
        if not isinstance(body_seq, int) or isinstance(body_seq, bool):
            return broken("unreadable", f"the body's seq is {body_seq!r}, not an integer")
        site = body.get("site")
        expected = self.expected_prev(site if isinstance(site, str) else "")
        first_row = self.last_row_seq is None
        problem = self._classify(seq, body_seq, prev, expected, first_row)
        if problem is not None:
            return broken(*problem)
        self.seen[own] = seq
        self.last_row_seq = seq
        self.last_body_seq = body_seq
        self.last_hash = own
        return None

    def _classify(
        self, seq: int, body_seq: int, prev: str, expected: str, first_row: bool
    ) -> tuple[str, str] | None:
        want_seq = self.last_body_seq + 1
        if prev == expected and body_seq == seq == want_seq:
            return None
        if prev in self.seen and prev != expected:
            earlier = self.seen[prev]
            return (
                "inserted",
                f"its prev is the hash of seq {earlier}, so seq {earlier + 1}..{seq - 1} "
                "were inserted before it",
            )
        if body_seq != seq:
            return (
                "reordered",
                f"stored as seq {seq} but its body says seq {body_seq} "
                "(events reordered or renumbered)",
            )
        if seq > want_seq:
            if first_row and self.anchor is None:
                where = "the stream starts there, with no record of pruning"
            else:
                where = f"after seq {self.last_body_seq}"
            return ("deleted", f"seq {want_seq}..{seq - 1} missing ({where})")
        if seq < want_seq:
            return ("reordered", f"seq {seq} comes after seq {self.last_body_seq}")
        if first_row and self.anchor is not None:
            return (
                "anchor_mismatch",
                f"its prev is not the hash recorded for pruned seq {self.anchor.up_to_seq}",
            )
        before = f"seq {self.last_body_seq}" if self.last_hash else "the genesis"
        return ("prev_mismatch", f"its prev does not match the hash of {before}")

    def finish(self, head: tuple[int, str | None] | None) -> Break | None:
        """Compare the stream's end with the head the journal recorded for it."""
        if head is None:
            return None
        head_seq, head_hash = head
        if not isinstance(head_seq, int) or isinstance(head_seq, bool) or head_seq < 0:
            return Break(self.stream, 0, "unreadable", f"its head's seq is {head_seq!r}")
        last = self.last_body_seq if self.last_row_seq is not None else None
        if last is None:
            if self.anchor is not None and self.anchor.up_to_seq == head_seq:
                return None
            if head_seq == 0:
                return None
            return Break(self.stream, head_seq, "deleted", "the stream has no events left")
        if last < head_seq:
            return Break(
                self.stream,
                last + 1,
                "deleted",
                f"the record ends at seq {last} but the journal numbered up to seq {head_seq}",
            )
        if last > head_seq:
            return Break(
                self.stream,
                last,
                "inserted",
                f"the record goes on past seq {head_seq}, the last the journal numbered",
            )
        if head_hash != self.last_hash:
            return Break(
                self.stream,
                last,
                "head_mismatch",
                "the last event's hash is not the chain head the journal recorded",
            )
        return None


def verify_bodies(
    rows: Iterable[tuple[str, int, str]],
    *,
    anchors: dict[str, Anchor] | None = None,
    heads: dict[str, tuple[int, str | None]] | None = None,
) -> Break | None:
    """The first broken link in `rows` (stream, seq, stored JSON), or None if whole.

    Rows must come grouped by stream and in stored seq order (as `ORDER BY stream, seq`
    gives them). `anchors` holds where pruned streams start again; `heads` the journal's
    own note of each stream's last seq and hash, which catches deletions at the end,
    streams whose every event is gone and streams it never numbered (None: not checked,
    as for an export, which has no heads).
    """
    anchors = anchors or {}
    checks: dict[str, _StreamCheck] = {}
    current: _StreamCheck | None = None
    for stream, seq, body_json in rows:
        if current is None or current.stream != stream:
            if current is not None and heads is not None:
                found = current.finish(heads.get(current.stream))
                if found is not None:
                    return found
            if stream in checks:
                return Break(stream, seq, "reordered", "the stream's rows are not together")
            if heads is not None and stream not in heads:
                return Break(stream, seq, "inserted", "a stream the journal never numbered")
            current = _StreamCheck(stream, anchors.get(stream))
            checks[stream] = current
        found = current.step(seq, body_json)
        if found is not None:
            return found
    if heads is None:
        return None
    if current is not None:
        found = current.finish(heads.get(current.stream))
        if found is not None:
            return found
    for stream in sorted(set(heads) - set(checks)):
        found = _StreamCheck(stream, anchors.get(stream)).finish(heads[stream])
        if found is not None:
            return found
    return None
