"""One message of the floor read strictly: which stream, which `seq`, its body as received.

The archive takes what the boxes publish on `P/events`, `P/replay` and
`P/devices/<device>/events`, and nothing is believed before it is checked here: the
topic names the site, table and device, and the envelope must say the same, carry a
positive `seq`, a `ts` with its zone, the chain fields (`prev`, `hash`, 64 hex digits)
and text where the contract has text. The body is kept as the exact text received, so
anyone can recompute its hash from the archive later.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from floord.contract import SEQ_MAX, parse_ts
from floord.untrusted import parse_json

# An event is at most 64 KiB on the wire (docs/contract.md, the adapter topics).
MAX_EVENT_BYTES = 64 * 1024
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_TEXT_FIELDS = ("type", "source", "ts")
_LEVEL = re.compile(r"^[^/+#\s]+$")


@dataclass(frozen=True)
class Where:
    """What a topic says a message is: a table's record (`device` None) or a device's."""

    site: str
    table: str
    device: str | None
    replayed: bool

    @property
    def stream(self) -> str:
        """The stream's name as in its genesis text: `<table>` or `<table>/devices/<d>`."""
        if self.device is None:
            return self.table
        return f"{self.table}/devices/{self.device}"


@dataclass(frozen=True)
class Arrival:
    """One envelope taken: where it belongs and its fields, the body as received."""

    site: str
    stream: str
    table: str
    device: str | None
    seq: int
    ts: str
    ts_at: datetime
    type: str
    source: str
    round: str | None
    rule: str | None
    hash: str
    prev: str
    body_text: str
    body: dict[str, Any] = field(repr=False, compare=False)
    # When it was read from the socket (time.monotonic): the lag to its row is measured.
    received: float = field(default_factory=time.monotonic, compare=False)
    # (connection, mid) of a QoS 1 message acknowledged only once it is stored.
    ack: tuple[int, int] | None = field(default=None, compare=False)


def where(prefix: str, topic: str) -> Where | None:
    """The table (and device) an events topic under `prefix` names, or None for any other
    topic: `P/events`, `P/replay` or `P/devices/<device>/events`."""
    if not topic.startswith(prefix + "/"):
        return None
    parts = topic[len(prefix) + 1 :].split("/")
    if len(parts) < 3 or not all(_LEVEL.match(p) for p in parts):
        return None
    site, table, rest = parts[0], parts[1], parts[2:]
    if rest == ["events"]:
        return Where(site, table, None, False)
    if rest == ["replay"]:
        return Where(site, table, None, True)
    if len(rest) == 3 and rest[0] == "devices" and rest[2] == "events":
        return Where(site, table, rest[1], False)
    return None


def _text_or_null(body: dict[str, Any], key: str) -> str | None:
    value = body.get(key)
    if value is not None and not isinstance(value, str):
        raise ValueError(f"`{key}` text or null expected, found {type(value).__name__}")
    return value


def read_arrival(at: Where, raw: bytes, ack: tuple[int, int] | None = None) -> Arrival:
    """The envelope `raw` as an `Arrival` of the stream `at` names; ValueError says why not."""
    body = parse_json(raw, max_bytes=MAX_EVENT_BYTES)
    if not isinstance(body, dict):
        raise ValueError("a JSON object expected")
    if body.get("site") != at.site or body.get("table") != at.table:
        raise ValueError(
            f"an envelope of {at.site}/{at.table} expected, found "
            f"{body.get('site')!r}/{body.get('table')!r}"
        )
    seq = body.get("seq")
    if isinstance(seq, bool) or not isinstance(seq, int) or not 1 <= seq <= SEQ_MAX:
        raise ValueError(f"a positive integer `seq` up to {SEQ_MAX} expected, found {seq!r}")
    for key in _TEXT_FIELDS:
        if not isinstance(body.get(key), str) or not body[key]:
            raise ValueError(f"`{key}` text expected, found {body.get(key)!r}")
    if not isinstance(body.get("data"), dict):
        raise ValueError("`data` an object expected")
    own, prev = body.get("hash"), body.get("prev")
    if not isinstance(own, str) or not _HEX64.match(own):
        raise ValueError("`hash` of 64 lower-case hex digits expected")
    if not isinstance(prev, str) or not _HEX64.match(prev):
        raise ValueError("`prev` of 64 lower-case hex digits expected")
    try:
        ts_at = parse_ts(body["ts"])
    except ValueError as exc:
        raise ValueError(f"`ts` an ISO 8601 time with its zone expected ({exc})") from exc
    return Arrival(
        site=at.site,
        stream=at.stream,
        table=at.table,
        device=at.device,
        seq=seq,
        ts=body["ts"],
        ts_at=ts_at,
        type=body["type"],
        source=body["source"],
        round=_text_or_null(body, "round"),
        rule=_text_or_null(body, "rule"),
        hash=own,
        prev=prev,
        body_text=raw.decode("utf-8"),
        body=body,
        ack=ack,
    )
