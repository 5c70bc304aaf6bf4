"""The commands a table's link has heard, bounded (`floord.mqtt.command_inbox`): a flood
of large payloads on `P/cmd` held a daemon at 2.8 GB."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest
import structlog

from floord.contract import COMMAND_MAX_BYTES
from floord.mqtt.command_inbox import DROPPED_LINE_EVERY_S, CommandInbox
from floord.operator.commands import Refusal, check_command

pytestmark = pytest.mark.unit


def test_a_payload_past_the_limit_is_kept_short_and_still_refused_as_too_large() -> None:
    inbox = CommandInbox("RL-01")
    inbox.put(b"{" + b" " * (10 * COMMAND_MAX_BYTES), False)
    inbox.put("text", True)
    kept, replay_only = asyncio.run(inbox.get())
    assert len(kept) == COMMAND_MAX_BYTES + 1 and not replay_only
    assert asyncio.run(inbox.get()) == (b"text", True)
    now = datetime(2026, 12, 7, tzinfo=UTC)
    refused = check_command(kept, operators={}, now=now, id_used=lambda _: False)
    assert isinstance(refused, Refusal) and refused.code == "malformed"
    assert f"at most {COMMAND_MAX_BYTES} bytes" in refused.reason


def test_a_full_inbox_drops_and_says_so_once_a_spell() -> None:
    now = [0.0]
    inbox = CommandInbox("RL-01", size=2, clock=lambda: now[0])
    with structlog.testing.capture_logs() as logs:
        for _ in range(5):  # 2 kept, 3 dropped: one line, then counted
            inbox.put(b"{}", False)
        now[0] = DROPPED_LINE_EVERY_S
        inbox.put(b"{}", False)  # the spell's next line, with what it counted
    assert {line["event"] for line in logs} == {"commands dropped: the table's inbox is full"}
    assert [line["dropped"] for line in logs] == [1, 3]
    assert all(line["table"] == "RL-01" and line["waiting"] == 2 for line in logs)
