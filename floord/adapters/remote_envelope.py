"""What the daemon takes from a remote adapter as an event of one device's stream.

An adapter's envelope comes from outside the daemon (the broker), so it is read
strictly here, at the edge: the right site, table and device, a positive integer `seq`,
a known event type, an object of data within bounds. What fails is a `BadEnvelope`,
which `floord.adapters.remote` records as a `device.protocol_error`.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from floord.contract import CONTRACT_VERSION, EVENT_TYPES, SEQ_MAX, Envelope, parse_ts
from floord.untrusted import escaped, json_problem

# Text of an event's data, and how deep it may nest.
MAX_DATA_TEXT = 4096
MAX_DATA_DEPTH = 8


class BadEnvelope(ValueError):
    """An adapter's message that is not an event of this device's stream."""


def unchained(env: Envelope, **changes: Any) -> Envelope:
    """`env` as the daemon's journal takes it: the version is ours, and the chain
    (`prev`, `hash`) is the journal's to fill in, not the adapter's."""
    return replace(env, v=CONTRACT_VERSION, prev=None, hash=None, **changes)


def printable(raw: bytes) -> str:
    """`repr`-style, printable ASCII, at most 80 characters (a protocol error's `raw`)."""
    text = repr(raw)[2:-1]
    return text[:80]


def read_envelope(body: Any, site: str, table: str, device: str) -> Envelope:
    """`body` as an event of `site`/`table`/`device`'s stream, unchained and with its
    text escaped; `BadEnvelope` if it is not one."""
    if not isinstance(body, dict):
        raise BadEnvelope(f"not an event envelope: an object expected, found {type(body).__name__}")
    try:
        env = Envelope.from_json(json.dumps(body))
        if not isinstance(env.ts, str):
            raise ValueError(f"ts {env.ts!r} is not text")
        parse_ts(env.ts)
    except (KeyError, TypeError, ValueError) as exc:
        raise BadEnvelope(f"not an event envelope: {exc!r}") from exc
    if (env.site, env.table, env.source) != (site, table, device):
        raise BadEnvelope(f"an event of {env.site!r}/{env.table!r}/{env.source!r}, not this device")
    if not isinstance(env.seq, int) or isinstance(env.seq, bool) or not 1 <= env.seq <= SEQ_MAX:
        raise BadEnvelope(f"seq {env.seq!r} is not a positive integer a journal can hold")
    if not isinstance(env.type, str) or env.type not in EVENT_TYPES:
        raise BadEnvelope(f"unknown event type {env.type!r}")
    if not isinstance(env.data, dict):
        raise BadEnvelope("data is not an object")
    for name, value in (("rule", env.rule), ("round", env.round)):
        if value is not None and not isinstance(value, str):
            raise BadEnvelope(f"{name} {value!r} is neither text nor null")
    # A real adapter's drivers escape what they decode, so unsafe text here did not come
    # from one: it is kept, escaped, so the stream goes on; an overlong or deeply nested
    # body is not taken at all.
    problem = json_problem(
        env.data, where="data", max_text=MAX_DATA_TEXT, max_depth=MAX_DATA_DEPTH, chars=False
    )
    if problem:
        raise BadEnvelope(problem)
    return unchained(env, data=escaped(env.data), rule=escaped(env.rule), round=escaped(env.round))
