"""The unit's status line (`STATUS=`) counts halts from each runner's flag, never by
building every table's state: the flag says what `state()` says, halted or not. Both read
the committed state: a halt counts once it is on the record."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from test_engine_support import Clock
from test_journal_disk_full import connect, device, make_runner

from floord.contract import EventType
from floord.journal.store import Journal
from floord.processes.daemon import status_text
from floord.table.runner import TableRunner

pytestmark = pytest.mark.unit


def said_halted(runner: TableRunner) -> bool:
    return runner.state()["state"] == "halted"


def test_the_flag_says_what_the_state_says(tmp_path: Path) -> None:
    runner, journal, clock, _ = make_runner(tmp_path / "journal.db")
    try:
        connect(runner, clock)
        assert runner.halted is False and said_halted(runner) is False
        now = clock.step()
        latched = runner.engine.halt("test_halt", "a halt the engine latched", now)
        # Latched but not yet on the record: neither says halted.
        assert runner.halted is False and said_halted(runner) is False
        asyncio.run(runner.record_output(latched, now))
        assert runner.halted is True and said_halted(runner) is True
    finally:
        journal.close()


def test_a_table_that_cannot_record_is_halted(tmp_path: Path) -> None:
    runner, journal, clock, _ = make_runner(tmp_path / "journal.db")
    connect(runner, clock)
    journal.close()  # every write fails from here on
    device(runner, clock, EventType.DEVICE_PROTOCOL_ERROR, {"reason": "bad", "raw": "'x'"})
    assert runner.record_failure is not None
    assert runner.halted is True and said_halted(runner) is True
    # The failure alone says halted, as `state()` does, whatever the engine holds.
    runner.engine.table.halt_reasons = []
    assert runner.halted is True and said_halted(runner) is True


def _unit(runner: TableRunner, *online: bool) -> Any:
    return SimpleNamespace(
        runner=runner, adapters={f"d{i}": SimpleNamespace(online=o) for i, o in enumerate(online)}
    )


def _built(tmp_path: Path, name: str) -> tuple[TableRunner, Journal, Clock]:
    runner, journal, clock, _ = make_runner(tmp_path / f"{name}.db")
    connect(runner, clock)
    return runner, journal, clock


def test_the_status_line_text_without_building_any_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, first_journal, first_clock = _built(tmp_path, "first")
    second, second_journal, _ = _built(tmp_path, "second")
    try:
        units = [_unit(first, True, False), _unit(second, True)]
        for runner in (first, second):
            monkeypatch.setattr(runner, "state", _no_state)
        assert status_text(units) == "2 tables, 2/3 devices online"
        now = first_clock.step()
        latched = first.engine.halt("test_halt", "halted for the test", now)
        asyncio.run(first.record_output(latched, now))
        assert status_text(units) == "2 tables, 2/3 devices online, 1 halted"
        second.recorder.failure = "disk I/O error"
        assert status_text(units) == "2 tables, 2/3 devices online, 2 halted"
        assert status_text([]) == "0 tables, 0/0 devices online"
    finally:
        first_journal.close()
        second_journal.close()


def _no_state() -> dict[str, Any]:
    raise AssertionError("the status line built a table's state")
