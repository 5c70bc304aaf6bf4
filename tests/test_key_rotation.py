"""Operator key rotation: the previous key is accepted until it expires, then refused with
a reason that says so; the record shows which key signed each accepted command."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml

from floord.config.load import ConfigError, load_config
from floord.operator.commands import OperatorKeys, Refusal, Verified, build_command, check_command
from floord.processes.daemon import Daemon

pytestmark = pytest.mark.unit

EXPIRES = datetime(2026, 12, 1, 6, 0, tzinfo=UTC)
BEFORE = EXPIRES - timedelta(hours=1)
NEW, OLD = b"new-key-of-FP-1001", b"old-key-of-FP-1001"
KEYS = {"FP-1001": OperatorKeys("floorperson", NEW, OLD, EXPIRES), "SV-1": ("supervisor", b"s")}


def check(key: bytes, now: datetime, by: str = "FP-1001") -> Verified | Refusal:
    raw = json.dumps(build_command("open", by, {}, key, now)).encode()
    return check_command(raw, operators=KEYS, now=now, id_used=lambda cid: False)


def test_either_key_verifies_until_the_previous_one_expires() -> None:
    current = check(NEW, BEFORE)
    assert isinstance(current, Verified) and current.key == "current"
    previous = check(OLD, BEFORE)
    assert isinstance(previous, Verified) and previous.key == "previous"
    assert previous.command.by == "FP-1001" and previous.command.role == "floorperson"
    for now in (EXPIRES, EXPIRES + timedelta(days=30)):
        late = check(OLD, now)
        assert isinstance(late, Refusal) and late.code == "key_expired"
        assert late.reason == (
            "signed with the previous key of operator 'FP-1001', which expired at "
            "2026-12-01T06:00:00.000000Z; sign with the current key"
        )
        still = check(NEW, now)
        assert isinstance(still, Verified) and still.key == "current"
    stranger = check(b"some-other-key", BEFORE)
    assert isinstance(stranger, Refusal) and stranger.code == "bad_signature"
    single = check(b"s", BEFORE, by="SV-1")  # an operator with one key, as (role, key)
    assert isinstance(single, Verified) and single.key == "current"


def write(tmp: Path, operator: dict[str, Any]) -> Path:
    (tmp / "new.key").write_bytes(NEW + b"\n")
    (tmp / "old.key").write_bytes(OLD + b"\n")
    config = {
        "site": "s",
        "broker": {"url": "mqtt://127.0.0.1:1"},
        "journal": "journal.db",
        "operators": [{"id": "FP-1001", "role": "floorperson", "key_file": "new.key", **operator}],
        "tables": [
            {
                "id": "RL-01",
                "game": "roulette",
                "rules": {"wheel": "single_zero"},
                "devices": [{"id": "wheel", "profile": "cammegh-ss2", "port": "/dev/null"}],
            }
        ],
    }
    path = tmp / "floord.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def problems(path: Path) -> str:
    with pytest.raises(ConfigError) as err:
        load_config(path)
    return str(err.value)


def test_config_checks_the_rotation_fields(tmp_path: Path) -> None:
    found = problems(write(tmp_path, {"previous_key_file": "old.key"}))
    assert "operators.0.previous_key_expires: a value expected with previous_key_file" in found
    found = problems(write(tmp_path, {"previous_key_expires": "2026-12-01T06:00:00Z"}))
    assert "operators.0.previous_key_file: a value expected with previous_key_expires" in found
    found = problems(
        write(tmp_path, {"previous_key_file": "old.key", "previous_key_expires": "2026-12-01"})
    )
    assert "operators.0.previous_key_expires:" in found
    found = problems(
        write(tmp_path, {"previous_key_file": "gone.key", "previous_key_expires": EXPIRES})
    )
    assert "operators.0.previous_key_file: a readable file expected" in found
    assert "gone.key" in found
    found = problems(
        write(tmp_path, {"previous_key_file": "new.key", "previous_key_expires": EXPIRES})
    )
    assert "a key different from key_file expected, found the same secret in both" in found
    loaded = load_config(
        write(tmp_path, {"previous_key_file": "old.key", "previous_key_expires": EXPIRES})
    )
    assert loaded.operator_keys("FP-1001") == OperatorKeys("floorperson", NEW, OLD, EXPIRES)


def test_the_record_names_the_key_and_the_expired_key_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, {"previous_key_file": "old.key", "previous_key_expires": EXPIRES})
    now = [BEFORE]
    daemon = Daemon(load_config(path), clock=lambda: now[0])
    runner = daemon.tables["RL-01"].runner

    async def send(key: bytes) -> None:
        replay = {"from_seq": 1, "to_seq": 1}
        await runner.on_command(
            json.dumps(build_command("replay", "FP-1001", replay, key, now[0])).encode()
        )
        await asyncio.gather(*list(runner.effects.tasks))  # the (undelivered) replies

    async def scenario() -> None:
        await send(NEW)
        await send(OLD)
        now[0] = EXPIRES + timedelta(seconds=1)
        await send(OLD)
        await send(NEW)

    try:
        asyncio.run(scenario())
        events = [json.loads(e) for e in daemon.journal.read_range("RL-01", 1, 10)]
    finally:
        daemon.journal.close()
    kinds = [(e["type"], e["data"].get("key"), e["data"].get("code")) for e in events]
    assert kinds == [
        ("operator.command", "current", None),
        ("operator.command", "previous", None),
        ("operator.command_refused", None, "key_expired"),
        ("operator.command", "current", None),
    ]
    refused = events[2]
    assert refused["source"] == "daemon"  # an expired key proves nothing about who sent it
    assert "which expired at 2026-12-01T06:00:00.000000Z" in refused["data"]["reason"]
