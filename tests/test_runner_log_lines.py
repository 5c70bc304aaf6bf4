"""The runner's log lines for the journal's failures and the operator's answers to them.

A real journal filled up (SQLite's page limit) and a journal closed under the runner:
each failure is one critical line naming its code, however often it is retried; the
halt, once recorded, and the resume that lifts it are one line each, with who, why and
the rule; a refused command names the operator and the reason, never the key.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import structlog
from table_turns import take
from test_journal_disk_full import KEYS, command, connect, device, make_runner

from floord.contract import Envelope, EventType
from floord.journal.store import DISK_FULL, FAILURE
from floord.table.bus import Tick
from floord.table.state_lines import state_line

pytestmark = pytest.mark.unit


def _runner_lines(logs: list[dict]) -> list[dict]:
    return [e for e in logs if e["event"] not in ("device online", "device identified")]


def test_disk_full_then_space_then_resume_logs_one_line_each(tmp_path: Path) -> None:
    runner, journal, clock, _ = make_runner(tmp_path / "journal.db")
    try:
        connect(runner, clock)
        with structlog.testing.capture_logs() as logs:
            journal._db.execute("PRAGMA max_page_count = 1")
            for i in range(500):
                device(runner, clock, EventType.DEVICE_PROTOCOL_ERROR,
                       {"reason": "bad", "raw": f"'frame {i:04d} {'x' * 60}'"})  # fmt: skip
                if runner.record_failure:
                    break
            for _ in range(3):
                take(runner, Tick(clock.step()))  # still full: retried, not logged again
            journal._db.execute("PRAGMA max_page_count = 1000000")
            take(runner, Tick(clock.step()))
            refused = asyncio.run(command(runner, clock, "resume", "dl1", {"reason": "space"}))
            accepted = asyncio.run(command(runner, clock, "resume", "fp1", {"reason": "freed"}))
        assert not refused["ok"] and accepted["ok"]
    finally:
        journal.close()
    lines = _runner_lines(logs)
    assert [e["event"] for e in lines] == [
        "journal disk full: table halted",
        "journal recording again; the table stays halted until resumed",
        "table halted",
        "command refused",
        "table resumed",
    ], lines
    full, again, halted, refusal, resumed = lines
    assert full["log_level"] == "critical" and full["code"] == DISK_FULL
    assert "disk is full" in full["error"]
    assert again["code"] == DISK_FULL
    assert halted["code"] == DISK_FULL and halted["rule"] is None  # floord's policy
    assert refusal["by"] == "dl1" and refusal["name"] == "resume" and refusal["reason"]
    assert "key" not in refusal and "signature" not in refusal
    assert resumed["by"] == "fp1" and resumed["role"] == "floorperson"
    assert resumed["reason"] == "freed" and resumed["cleared"] == [DISK_FULL]
    secrets = [key.decode() for _, key in KEYS.values()]
    assert not [s for s in secrets if s in repr(logs)]


def test_a_journal_failure_is_one_critical_line(tmp_path: Path) -> None:
    runner, journal, clock, _ = make_runner(tmp_path / "journal.db")
    connect(runner, clock)
    journal.close()
    with structlog.testing.capture_logs() as logs:
        device(runner, clock, EventType.DEVICE_PROTOCOL_ERROR, {"reason": "bad", "raw": "'x'"})
        take(runner, Tick(clock.step()))
    [line] = _runner_lines(logs)
    assert line["event"] == "journal failure: table halted" and line["code"] == FAILURE
    assert line["log_level"] == "critical"


def _envelope(etype: str, data: dict, rule: str | None = None) -> Envelope:
    return Envelope(site="s", table="T", seq=7, ts="2024-01-01T00:00:00.000Z", type=etype,
                    source="wheel", data=data, rule=rule)  # fmt: skip


def test_steady_play_makes_no_line_and_long_text_is_cut() -> None:
    for etype in ("wheel.number", "roulette.result", "round.started", "operator.command",
                  "device.protocol_error", "shoe.card_drawn", "blackjack.result"):  # fmt: skip
        assert state_line(_envelope(etype, {"number": 1})) is None
    level, message, fields = state_line(
        _envelope(EventType.DEVICE_OFFLINE, {"port": "/dev/x", "reason": "r" * 5000})
    )
    assert (level, message) == ("warning", "device offline")
    assert len(fields["reason"]) <= 201 and fields["port"] == "/dev/x"
    assert "rule" not in fields  # only halts, resumes and refusals name a missing rule
    refused = state_line(_envelope(
        EventType.OPERATOR_COMMAND_REFUSED,
        {"id": "c1", "name": "open", "by": "FP-1", "role": "floorperson", "key": "previous",
         "args": {"x": 1}, "code": "refused", "reason": "no inspection"},
        rule="58 Pa. Code § 531.3(a)",
    ))  # fmt: skip
    assert refused is not None
    assert refused[2] == {"seq": 7, "source": "wheel", "name": "open", "by": "FP-1",
                          "code": "refused", "reason": "no inspection", "id": "c1",
                          "rule": "58 Pa. Code § 531.3(a)"}  # fmt: skip
