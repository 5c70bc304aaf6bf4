"""Unsigned junk on `P/cmd` is bounded on the record (`floord.table.refusal_limiter`): a
window's first refusals are recorded and answered, the rest counted in one event."""

from __future__ import annotations

import json
import sqlite3
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from table_turns import take
from test_engine_support import T0
from test_journal_integrity import TABLE, start

from floord.contract import EventType
from floord.operator.commands import Refusal
from floord.table.bus import CommandArrived, Tick
from floord.table.refusal_limiter import RECORDED_A_WINDOW, WINDOW_S, RefusalLimiter

pytestmark = pytest.mark.unit


def refusal(code: str) -> Refusal:
    return Refusal(code, f"{code}: why", None, None, None)


def test_a_window_records_its_first_unverified_refusals_and_counts_the_rest() -> None:
    limiter = RefusalLimiter()
    admitted = [limiter.admit(refusal("malformed"), T0) for _ in range(RECORDED_A_WINDOW)]
    assert all(admitted)
    later = T0 + timedelta(seconds=1)
    assert not limiter.admit(refusal("bad_signature"), later)
    assert not limiter.admit(refusal("malformed"), later)
    # A key holder's refusal is always recorded.
    assert limiter.admit(refusal("role_not_allowed"), later)
    assert limiter.closed(T0 + timedelta(seconds=WINDOW_S - 1)) is None  # not over yet
    summary = limiter.closed(T0 + timedelta(seconds=WINDOW_S))
    assert summary == {
        "count": 2,
        "codes": {"bad_signature": 1, "malformed": 1},
        "first": "2024-03-05T15:00:01.000000Z",
        "last": "2024-03-05T15:00:01.000000Z",
        "window_s": WINDOW_S,
        "sample": {"code": "bad_signature", "reason": "bad_signature: why"},
    }
    # The next window records its own first ones; one with nothing counted says nothing.
    assert limiter.admit(refusal("malformed"), T0 + timedelta(seconds=20))
    assert limiter.closed(T0 + timedelta(seconds=40)) is None


def stored(path: Path, kind: str) -> list[dict[str, Any]]:
    db = sqlite3.connect(path)
    try:
        rows = db.execute(
            "SELECT body FROM events WHERE stream = ? ORDER BY seq", (TABLE,)
        ).fetchall()
    finally:
        db.close()
    return [e for e in (json.loads(r[0]) for r in rows) if e["type"] == kind]


def test_a_flood_of_junk_on_a_table_makes_a_bounded_record(tmp_path: Path) -> None:
    daemon = start(tmp_path, 0)
    runner = daemon.tables[TABLE].runner
    answered: list[Any] = []
    runner.effects.reply = lambda *args: answered.append(args)  # type: ignore[method-assign]
    try:
        take(runner, *[CommandArrived(b"not json") for _ in range(50)])
        take(runner, Tick(T0 + timedelta(minutes=1)))  # the window has ended: its count
    finally:
        daemon.journal.close()
    path = tmp_path / "journal.db"
    assert len(stored(path, EventType.OPERATOR_COMMAND_REFUSED)) == RECORDED_A_WINDOW
    assert len(answered) == RECORDED_A_WINDOW
    [counted] = stored(path, EventType.OPERATOR_COMMANDS_REFUSED)
    assert counted["data"]["count"] == 50 - RECORDED_A_WINDOW
    assert counted["data"]["codes"] == {"malformed": 50 - RECORDED_A_WINDOW}
    assert counted["source"] == "daemon" and counted["rule"] is None
