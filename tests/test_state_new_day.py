"""`P/state` shows the committed snapshot; a gaming day the engine takes up on a tick
that records nothing shows there at once, not at the table's next event, and goes on
the record with the table's next turn."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from table_turns import take
from test_journal_disk_full import connect, make_runner

from floord.table.bus import Tick

pytestmark = pytest.mark.unit


class CountingPort:
    def __init__(self) -> None:
        self.changed = 0

    def state_changed(self) -> None:
        self.changed += 1


def test_a_new_gaming_day_shows_on_the_state_without_an_event(tmp_path: Path) -> None:
    runner, journal, clock, link = make_runner(tmp_path / "journal.db")
    try:
        connect(runner, clock)
        day = runner.state()["gaming_day"]
        assert day is not None
        port = CountingPort()
        link.state_changed = port.state_changed  # type: ignore[method-assign]
        # A tick within the same day changes nothing and says nothing.
        take(runner, Tick(clock.step()))
        assert runner.state()["gaming_day"] == day and port.changed == 0
        # A tick a day later: the engine records nothing, the state says the new day.
        take(runner, Tick(clock.step(timedelta(days=1).total_seconds())))
        assert runner.state()["gaming_day"] != day
        assert runner.state()["gaming_day"] == runner.engine.gaming_day
        assert port.changed == 1
    finally:
        journal.close()
