"""Signed operator commands: who may tell a regulated table what, and proof that they did.

A command arrives on `P/cmd` as JSON `{"id", "name", "by", "ts", "args", "sig"}`. `sig`
is the lower-case hex HMAC-SHA256, keyed with the operator's secret, of the command
without `sig` serialised canonically (`sort_keys=True`, separators `(",", ":")`). A
command is accepted only if it is well formed, from a known operator, correctly signed,
fresh, not seen before, a known command and allowed to the operator's role; otherwise it
is answered with a `Refusal` that says which check failed. Pure: no clock, no I/O.

Key rotation: an operator may have a previous key besides the current one. A command
signed with the previous key is accepted until that key's expiry and refused after it
(`key_expired`); which key verified a command is part of its record (`key`).
"""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from floord.contract import (
    COMMAND_MAX_BYTES,
    COMMAND_MAX_SKEW_S,
    COMMAND_ROLES,
    format_ts,
    parse_ts,
)
from floord.engine.core.types import VerifiedCommand
from floord.untrusted import escape_text, json_problem, text_problem

_REQUIRED: dict[str, type] = {"id": str, "name": str, "by": str, "ts": str, "args": dict}
_ALLOWED = frozenset({*_REQUIRED, "sig"})
MAX_ID_LENGTH = 128
MAX_COMMAND_BYTES = COMMAND_MAX_BYTES
# The longest each text field may be (`id`: MAX_ID_LENGTH); `args` text: untrusted.MAX_TEXT.
_MAX_FIELD = {"name": 64, "by": 128, "ts": 64, "sig": 128}
# A refusal's reason is cut to this many characters (it may quote what was refused).
MAX_REASON_LENGTH = 512


@dataclass(frozen=True)
class Refusal:
    """Why a command was not accepted: a stable `code` and a sentence for the operator."""

    code: str
    reason: str
    command_id: str | None
    name: str | None
    by: str | None


@dataclass(frozen=True)
class OperatorKeys:
    """An operator's role and signing keys: the current key and, during a rotation, the
    previous key, accepted until `previous_expires` (timezone-aware)."""

    role: str
    key: bytes
    previous_key: bytes | None = None
    previous_expires: datetime | None = None


@dataclass(frozen=True)
class Verified:
    """An accepted command and which of its operator's keys signed it."""

    command: VerifiedCommand
    key: str  # "current" or "previous"


# What verification is given per operator id: OperatorKeys, or (role, key) when the
# operator has a single key.
Operators = Mapping[str, OperatorKeys | tuple[str, bytes]]


def _keys(entry: OperatorKeys | tuple[str, bytes]) -> OperatorKeys:
    if isinstance(entry, OperatorKeys):
        return entry
    role, key = entry
    return OperatorKeys(role=role, key=key)


def canonical(command: dict[str, Any]) -> bytes:
    """The bytes that are signed: the command without `sig`, keys sorted, compact."""
    body = {k: v for k, v in command.items() if k != "sig"}
    return json.dumps(body, sort_keys=True, separators=(",", ":")).encode("utf-8")


def signature(command: dict[str, Any], key: bytes) -> str:
    return hmac.new(key, canonical(command), hashlib.sha256).hexdigest()


def sign_command(command: dict[str, Any], key: bytes) -> dict[str, Any]:
    """A copy of `command` with its `sig` (any old `sig` is replaced)."""
    signed = copy.deepcopy({k: v for k, v in command.items() if k != "sig"})
    signed["sig"] = signature(signed, key)
    return signed


def build_command(
    name: str,
    by: str,
    args: dict[str, Any],
    key: bytes,
    now: datetime,
    command_id: str | None = None,
) -> dict[str, Any]:
    """A signed command as an operator's client sends it."""
    return sign_command(
        {
            "id": command_id if command_id is not None else uuid.uuid4().hex,
            "name": name,
            "by": by,
            "ts": format_ts(now),
            "args": args,
        },
        key,
    )


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not a JSON number")


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    body: dict[str, Any] = {}
    for key, value in pairs:
        if key in body:
            raise ValueError(f"duplicate key {key!r}")
        body[key] = value
    return body


def _parse(raw: bytes) -> dict[str, Any] | str:
    """The command object, or a sentence saying why the bytes are not one."""
    if len(raw) > MAX_COMMAND_BYTES:
        return f"a command of at most {MAX_COMMAND_BYTES} bytes expected, found more"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"UTF-8 text expected: {exc}"
    try:
        body = json.loads(
            text, object_pairs_hook=_no_duplicate_keys, parse_constant=_reject_constant
        )
    except (ValueError, RecursionError) as exc:
        return f"a JSON object expected: {exc}"
    if not isinstance(body, dict):
        return f"a JSON object expected, found {type(body).__name__}"
    return body


def _shape_problem(body: dict[str, Any]) -> str | None:
    extra = sorted(set(body) - _ALLOWED)
    if extra:
        return f"unknown field(s) {', '.join(repr(k) for k in extra)}"
    missing = [k for k in _REQUIRED if k not in body]
    if missing:
        return f"missing field(s) {', '.join(repr(k) for k in missing)}"
    for key, kind in _REQUIRED.items():
        if not isinstance(body[key], kind):
            return f"field {key!r} must be a {kind.__name__}, found {type(body[key]).__name__}"
    if "sig" in body and not isinstance(body["sig"], str):
        return f"field 'sig' must be a str, found {type(body['sig']).__name__}"
    if not body["id"] or len(body["id"]) > MAX_ID_LENGTH:
        return f"field 'id' must be 1 to {MAX_ID_LENGTH} characters"
    # Text that could not be stored or shown safely (a lone surrogate, a control
    # character) or that is overlong is refused here, before anything else reads it.
    for key, limit in (("id", MAX_ID_LENGTH), *_MAX_FIELD.items()):
        if key in body:
            problem = text_problem(body[key], max_length=limit)
            if problem:
                return f"field {key!r}: {problem}"
    problem = json_problem(body["args"], where="args")
    if problem:
        return f"field {problem}"
    try:
        parse_ts(body["ts"])
    except ValueError as exc:
        return f"field 'ts' must be an ISO 8601 time with a time zone: {exc}"
    return None


def _reason(text: str) -> str:
    return escape_text(text, MAX_REASON_LENGTH)


def verify_command(
    raw: bytes,
    *,
    operators: Operators,
    now: datetime,
    id_used: Callable[[str], bool],
) -> VerifiedCommand | Refusal:
    """Check a raw `P/cmd` payload (see `check_command`); the accepted command only."""
    outcome = check_command(raw, operators=operators, now=now, id_used=id_used)
    return outcome if isinstance(outcome, Refusal) else outcome.command


def _signed_by(sig: str, body: dict[str, Any], keys: OperatorKeys) -> str | None:
    """Which key made `sig`: "current", "previous", or None for neither."""
    given = sig.encode("utf-8")
    if hmac.compare_digest(given, signature(body, keys.key).encode("ascii")):
        return "current"
    if keys.previous_key is not None and hmac.compare_digest(
        given, signature(body, keys.previous_key).encode("ascii")
    ):
        return "previous"
    return None


def check_command(
    raw: bytes,
    *,
    operators: Operators,
    now: datetime,
    id_used: Callable[[str], bool],
) -> Verified | Refusal:
    """Check a raw `P/cmd` payload; `operators` maps an operator id to `OperatorKeys`
    (or `(role, key)`). An accepted command comes with the key that verified it.

    Checks run in a fixed order (malformed, unknown operator, signature and the key's
    expiry, freshness, replay, command name, role) so that nothing about a command is
    trusted before its signature is.
    """
    if now.tzinfo is None:
        raise ValueError("now must be timezone-aware")
    parsed = _parse(raw)
    if isinstance(parsed, str):
        return Refusal("malformed", _reason(f"malformed command: {parsed}"), None, None, None)
    body = parsed

    def text(key: str) -> str | None:
        # What a refusal names of a command not yet checked: escaped, so that the
        # refusal itself can always be recorded and sent.
        value = body.get(key)
        return escape_text(value, MAX_ID_LENGTH) if isinstance(value, str) else None

    cid, name, by = text("id"), text("name"), text("by")

    def refuse(code: str, reason: str) -> Refusal:
        return Refusal(code, _reason(reason), cid, name, by)

    problem = _shape_problem(body)
    if problem is not None:
        return refuse("malformed", f"malformed command: {problem}")
    cid, name, by = body["id"], body["name"], body["by"]

    operator = operators.get(by)
    if operator is None:
        return refuse("unknown_operator", f"operator {by!r} is not configured on this table")
    keys = _keys(operator)
    role = keys.role

    sig = body.get("sig")
    if sig is None:
        return refuse("bad_signature", "command is not signed (no 'sig' field)")
    which = _signed_by(sig, body, keys)
    if which is None:
        return refuse("bad_signature", f"signature does not match operator {by!r}'s key")
    if which == "previous":
        expires = keys.previous_expires
        if expires is None or now >= expires:
            when = format_ts(expires) if expires is not None else "(no expiry set)"
            return refuse(
                "key_expired",
                f"signed with the previous key of operator {by!r}, which expired at "
                f"{when}; sign with the current key",
            )

    skew = abs((parse_ts(body["ts"]) - now).total_seconds())
    if skew > COMMAND_MAX_SKEW_S:
        return refuse(
            "stale",
            f"command time {body['ts']} is {skew:.1f} s from the table's clock "
            f"(at most {COMMAND_MAX_SKEW_S:g} s allowed)",
        )

    if id_used(cid):
        return refuse("replayed", f"command id {cid!r} was already used")

    allowed = COMMAND_ROLES.get(name)
    if allowed is None:
        known = ", ".join(sorted(COMMAND_ROLES))
        return refuse("unknown_command", f"no command {name!r} (known: {known})")
    if role not in allowed:
        roles = ", ".join(sorted(allowed))
        return refuse(
            "role_not_allowed",
            f"{name!r} may be issued by {roles}; operator {by!r} is {role}",
        )

    return Verified(
        VerifiedCommand(id=cid, name=name, by=by, role=role, args=dict(body["args"])), which
    )


def claimed_id(payload: bytes) -> str | None:
    """The `id` a command claims, escaped, for the reply to a command that could not be
    taken (nothing else of it is trusted)."""
    try:
        body = json.loads(payload)
    except (ValueError, RecursionError):
        return None
    found = body.get("id") if isinstance(body, dict) else None
    return escape_text(found, MAX_ID_LENGTH) if isinstance(found, str) else None


def looked_up_id(payload: bytes) -> str | None:
    """The `id` a command carries, as sent (what `check_command` asks `id_used` of), if
    it can be read: the runner reads the replay guard for it off the loop beforehand."""
    try:
        body = json.loads(payload)
    except (ValueError, RecursionError):
        return None
    found = body.get("id") if isinstance(body, dict) else None
    if not isinstance(found, str):
        return None
    try:
        found.encode("utf-8")
    except UnicodeEncodeError:
        return None  # a lone surrogate: the check refuses it before it asks of the id
    return found
