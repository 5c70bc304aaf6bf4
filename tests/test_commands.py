"""Operator command authentication: every refusal code, in its documented order."""

from __future__ import annotations

import hashlib
import hmac
import json
from datetime import UTC, datetime, timedelta

import pytest

from floord.contract import COMMAND_MAX_SKEW_S, format_ts
from floord.engine.core.types import VerifiedCommand
from floord.operator.commands import Refusal, build_command, sign_command, verify_command

pytestmark = pytest.mark.unit

NOW = datetime(2024, 5, 1, 12, 0, 0, tzinfo=UTC)
FLOOR_KEY = b"floor-secret"
DEALER_KEY = b"dealer-secret"
OPERATORS = {"fp1": ("floorperson", FLOOR_KEY), "d1": ("dealer", DEALER_KEY)}


def verify(command: dict | bytes, *, now: datetime = NOW, used: frozenset[str] = frozenset()):
    raw = command if isinstance(command, bytes) else json.dumps(command).encode()
    return verify_command(raw, operators=OPERATORS, now=now, id_used=lambda cid: cid in used)


def good(name: str = "inspect", by: str = "fp1", key: bytes = FLOOR_KEY, **kw) -> dict:
    return build_command(name, by, kw.get("args", {"note": "ok"}), key, kw.get("now", NOW), "c-1")


def test_signature_is_hmac_sha256_of_the_canonical_json() -> None:
    cmd = build_command("inspect", "fp1", {"b": 2, "a": [1, "é"]}, FLOOR_KEY, NOW, "id-9")
    assert cmd["ts"] == format_ts(NOW) and cmd["id"] == "id-9"
    body = {k: v for k, v in cmd.items() if k != "sig"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"))
    assert cmd["sig"] == hmac.new(FLOOR_KEY, text.encode(), hashlib.sha256).hexdigest()
    assert sign_command(cmd, FLOOR_KEY) == cmd  # re-signing replaces, never nests, sig
    assert sign_command(body, FLOOR_KEY) is not body


def test_build_command_makes_a_fresh_id_when_none_is_given() -> None:
    a = build_command("inspect", "fp1", {}, FLOOR_KEY, NOW)
    b = build_command("inspect", "fp1", {}, FLOOR_KEY, NOW)
    assert a["id"] != b["id"] and len(a["id"]) == 32


def test_a_good_command_is_verified() -> None:
    result = verify(good(args={"note": "ok"}))
    assert result == VerifiedCommand(
        id="c-1", name="inspect", by="fp1", role="floorperson", args={"note": "ok"}
    )


def test_a_command_within_the_allowed_skew_is_accepted() -> None:
    almost = NOW - timedelta(seconds=COMMAND_MAX_SKEW_S)
    assert isinstance(verify(good(now=almost)), VerifiedCommand)


@pytest.mark.parametrize(
    "raw",
    [
        b"\xff\xfe",
        b"not json",
        b"[1, 2]",
        b'{"id": "x", "id": "y"}',
        b'{"id":"c","name":"inspect","by":"fp1","ts":"2024-05-01T12:00:00Z","args":{"x":NaN},"sig":"00"}',
    ],
)
def test_bytes_that_are_not_a_command_object_are_malformed(raw: bytes) -> None:
    result = verify(raw)
    assert isinstance(result, Refusal) and result.code == "malformed", result
    assert result.reason.startswith("malformed command:")


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda c: c.pop("name"), "missing"),
        (lambda c: c.pop("ts"), "missing"),
        (lambda c: c.update(extra=1), "unknown field"),
        (lambda c: c.update(args=[]), "'args' must be a dict"),
        (lambda c: c.update(id=7), "'id' must be a str"),
        (lambda c: c.update(id=""), "'id' must be 1 to"),
        (lambda c: c.update(ts="yesterday"), "'ts'"),
        (lambda c: c.update(ts="2024-05-01T12:00:00"), "'ts'"),
        # Instants with no UTC form: an unsigned message that halted the table.
        (lambda c: c.update(ts="9999-12-31T23:59:59-01:00"), "out of range"),
        (lambda c: c.update(ts="0001-01-01T00:00:00+01:00"), "out of range"),
        (lambda c: c.update(sig=5), "'sig' must be a str"),
    ],
)
def test_wrong_fields_are_malformed(change, words: str) -> None:
    cmd = good()
    change(cmd)
    result = verify(cmd)
    assert isinstance(result, Refusal) and result.code == "malformed", result
    assert words in result.reason


def test_refusals_carry_what_is_known_of_the_command() -> None:
    cmd = good()
    cmd["extra"] = True
    result = verify(cmd)
    assert (result.command_id, result.name, result.by) == ("c-1", "inspect", "fp1")


def test_unknown_operator() -> None:
    result = verify(good(by="ghost"))
    assert isinstance(result, Refusal) and result.code == "unknown_operator"
    assert "ghost" in result.reason


@pytest.mark.parametrize("how", ["missing", "wrong_key", "tampered", "upper_case", "non_ascii"])
def test_bad_signature(how: str) -> None:
    cmd = good()
    if how == "missing":
        del cmd["sig"]
    elif how == "wrong_key":
        cmd = good(key=DEALER_KEY)
    elif how == "tampered":
        cmd["args"] = {"note": "changed"}
    elif how == "upper_case":
        cmd["sig"] = cmd["sig"].upper()
    else:
        cmd["sig"] = "é" * 64
    result = verify(cmd)
    assert isinstance(result, Refusal) and result.code == "bad_signature", result


@pytest.mark.parametrize("offset", [COMMAND_MAX_SKEW_S + 0.5, -(COMMAND_MAX_SKEW_S + 0.5)])
def test_stale_in_either_direction(offset: float) -> None:
    result = verify(good(now=NOW + timedelta(seconds=offset)))
    assert isinstance(result, Refusal) and result.code == "stale"


def test_replayed() -> None:
    result = verify(good(), used=frozenset({"c-1"}))
    assert isinstance(result, Refusal) and result.code == "replayed"


def test_unknown_command() -> None:
    result = verify(good(name="launch_missiles"))
    assert isinstance(result, Refusal) and result.code == "unknown_command"


def test_role_not_allowed() -> None:
    result = verify(good(name="open", by="d1", key=DEALER_KEY))
    assert isinstance(result, Refusal) and result.code == "role_not_allowed"
    assert "dealer" in result.reason
    assert isinstance(verify(good(name="replay", by="d1", key=DEALER_KEY)), VerifiedCommand)


def test_checks_run_in_the_documented_order() -> None:
    # Everything wrong at once: each fix reveals the next check in order.
    cmd = build_command("launch", "ghost", {}, b"k", NOW - timedelta(hours=1), "c-1")
    cmd["extra"] = 1
    codes = []
    steps = [
        lambda c: c.pop("extra"),
        lambda c: c.update(by="d1"),
        lambda c: c.update(sign_command(c, DEALER_KEY)),
        lambda c: c.update(sign_command({**c, "ts": format_ts(NOW)}, DEALER_KEY)),
        lambda c: c.update(sign_command({**c, "id": "c-2"}, DEALER_KEY)),
        lambda c: c.update(sign_command({**c, "name": "open"}, DEALER_KEY)),
    ]
    for step in [*steps, None]:
        result = verify(cmd, used=frozenset({"c-1"}))
        codes.append(result.code if isinstance(result, Refusal) else "ok")
        if step:
            step(cmd)
    assert codes == [
        "malformed",
        "unknown_operator",
        "bad_signature",
        "stale",
        "replayed",
        "unknown_command",
        "role_not_allowed",
    ]


def test_naive_now_is_a_programming_error() -> None:
    with pytest.raises(ValueError):
        verify(good(), now=datetime(2024, 5, 1, 12, 0, 0))
