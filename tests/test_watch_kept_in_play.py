"""A table's live tests kept during play, so that a start after a crash (no clean stop,
so no save at the stop) replays only the play after them (`floord.table.watch_state
.DuringPlay`, `floord.journal.append.Append`'s `watch`).

What is kept must be what the tests were when the commit that carried them was decided:
taken with the watcher as that turn's events left it, stored in the same transaction
at the head those events leave, and taken up by the next start as if it never stopped.
"""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import structlog
import test_surveillance_dice_live as dice_live
from e2e_support import write_config
from live_wheel_support import LiveWheel
from table_turns import restore
from test_journal_integrity import TABLE
from test_start_refill_breaks import played, result
from test_watch_state import SETUP, _decide, _results

from floord.config.load import load_config
from floord.contract import Envelope
from floord.engine.roulette.layout import SINGLE_ZERO_ORDER
from floord.journal.chain import canonical_text
from floord.journal.readers import saved_watch
from floord.journal.store import Journal, JournalError
from floord.journal.watch_states import SavedWatch
from floord.operator.commands import build_command
from floord.processes.daemon import Daemon
from floord.table import watch_state
from floord.table.dice_surveillance import DiceSurveillance
from floord.table.surveillance import ResultAlerts, TableSurveillance
from floord.table.watch_state import KEPT_DURING_PLAY_EVERY, DuringPlay

pytestmark = pytest.mark.unit

T0 = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)


class Clock:
    """A table's clock the test moves; from now by default (operators' commands are
    signed with the time they were made, and a table refuses a stale one)."""

    def __init__(self, start: datetime | None = None) -> None:
        self.now = start or datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.now


def test_kept_once_the_interval_has_passed_and_a_turn_fed_the_tests() -> None:
    clock = Clock(T0)
    during = DuringPlay("RL-01", clock)
    watcher = TableSurveillance(SETUP)
    bodies = _results(40, seed=5)
    _decide(watcher, bodies[0])
    assert during.due(watcher) is None  # fed, but the start kept them a moment ago
    clock.now += KEPT_DURING_PLAY_EVERY
    assert during.due(watcher) is None  # nothing fed since the last turn asked
    _decide(watcher, bodies[1])
    text = during.due(watcher)
    assert text == canonical_text(watcher.watch_state())
    during.kept()
    _decide(watcher, bodies[2])
    clock.now += KEPT_DURING_PLAY_EVERY - timedelta(seconds=1)
    assert during.due(watcher) is None  # not yet time again
    clock.now += timedelta(seconds=1)
    _decide(watcher, bodies[3])
    assert during.due(watcher) == canonical_text(watcher.watch_state())


def test_a_refused_commit_keeps_nothing_and_the_next_fed_turn_tries_again() -> None:
    clock = Clock(T0)
    during = DuringPlay("RL-01", clock)
    watcher = TableSurveillance(SETUP)
    clock.now += KEPT_DURING_PLAY_EVERY
    bodies = _results(3, seed=6)
    _decide(watcher, bodies[0])
    assert during.due(watcher) is not None  # its commit is refused: no `kept`
    _decide(watcher, bodies[1])
    assert during.due(watcher) == canonical_text(watcher.watch_state())


@pytest.mark.parametrize("watcher", [None, ResultAlerts(None)])
def test_no_watcher_or_one_without_kept_tests_keeps_nothing(watcher: object) -> None:
    clock = Clock(T0)
    during = DuringPlay("RL-01", clock)
    clock.now += KEPT_DURING_PLAY_EVERY * 2
    if isinstance(watcher, ResultAlerts):
        watcher.changes += 1
    assert during.due(watcher) is None


class ClockedWheel(LiveWheel):
    """`LiveWheel` on a daemon whose clock the test moves."""

    def __init__(self, config: Path, clock: Clock) -> None:
        self.daemon = Daemon(load_config(config), clock=clock)
        restore(self.daemon)
        self.runner = self.daemon.tables["RL-01"].runner
        self.spins = 0


def _spins(wheel: LiveWheel, clock: Clock, rng: random.Random, count: int) -> None:
    for _ in range(count):
        clock.now += timedelta(seconds=70)
        release = rng.randrange(37)
        number = SINGLE_ZERO_ORDER[(release + rng.randrange(37)) % 37]
        wheel.spin(number, release=SINGLE_ZERO_ORDER[release])


def test_a_start_after_a_crash_takes_up_what_play_kept(tmp_path: Path) -> None:
    """28 spins at 70 s: the tests are kept during play every five spins (350 s);
    the daemon then dies (no `daemon.stopped`, no save at the stop) after spins the
    last keep missed. The next start takes up what play kept, replays only the results
    after it, and its tests are the dead daemon's, exactly."""
    config = write_config(tmp_path, "mqtt://127.0.0.1:1", "/dev/null")
    path = tmp_path / "journal.db"
    clock = Clock()
    rng = random.Random(21)
    wheel = ClockedWheel(config, clock)
    try:
        wheel.open()
        wheel.dealer_in()
        assert saved_watch(path, "RL-01") == "none saved"  # a fresh record: nothing to keep
        _spins(wheel, clock, rng, 28)
        live = wheel.runner.surveillance
        assert isinstance(live, TableSurveillance)
        dead = json.loads(json.dumps(live.watch_state()))
        kept = saved_watch(path, "RL-01")
        assert isinstance(kept, SavedWatch)
        # Kept at the head of the commit that carried it, before the last spins (they
        # are the replay's).
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            [(head,)] = db.execute("SELECT last_seq FROM streams WHERE stream = 'RL-01'")
            results = [
                seq
                for (seq,) in db.execute(
                    "SELECT seq FROM events WHERE stream = 'RL-01' AND "
                    'body LIKE \'%"type":"roulette.result"%\' ORDER BY seq'
                )
            ]
        finally:
            db.close()
        assert len(results) == 28
        assert results[24] <= kept.after_seq < results[25] < head
        assert kept.state != dead
        assert watch_state.taken_up(TableSurveillance(live.setup), path, "RL-01") == (
            kept.after_seq,
            True,
        )
    finally:
        wheel.daemon.journal.close()  # a crash: nothing more recorded, nothing saved
    with structlog.testing.capture_logs() as logs:
        again = Daemon(load_config(config), clock=clock)
        restore(again)
    try:
        resumed = again.tables["RL-01"].runner.surveillance
        assert isinstance(resumed, TableSurveillance)
        assert resumed.watch_state() == dead
        assert resumed.watch.statistics() == live.watch.statistics()
    finally:
        again.journal.close()
    assert not [e for e in logs if e["event"] == "live tests refilled from the whole record"]
    [line] = [e for e in logs if e["event"] == "live tests replayed"]
    assert (line["what"], line["count"], line["taken_up"]) == ("results", 3, True)
    assert line["after_seq"] == kept.after_seq


class ClockedCraps(dice_live.LiveCraps):
    """`LiveCraps` on a daemon whose clock the test moves."""

    def __init__(self, config: Path, clock: Clock) -> None:
        self.daemon = Daemon(load_config(config), clock=clock)
        restore(self.daemon)
        self.runner = self.daemon.tables[dice_live.TABLE].runner
        self.throws = 0
        self.clock = clock

    def command(self, who: str, name: str, **args: Any) -> None:
        """Signed at the table's time: the stick's commands come as the clock moves."""
        body = build_command(name, who, args, dice_live.KEYS[who][0], self.clock.now)
        asyncio.run(self.runner.on_command(json.dumps(body).encode()))


def test_a_dice_table_keeps_its_tests_during_play_too(tmp_path: Path) -> None:
    """Twelve throws at 40 s: kept at the eighth (320 s), then a crash; the next start
    takes up the eight and replays the four after them."""
    config = dice_live.write_config(tmp_path)
    clock = Clock()
    rng = random.Random(3)
    table = ClockedCraps(config, clock)
    try:
        table.open()
        for n in range(12):
            clock.now += timedelta(seconds=40)
            table.throw(rng.randint(1, 6), rng.randint(1, 6), seat=n % 4 + 1)
        watcher = table.runner.surveillance
        assert isinstance(watcher, DiceSurveillance)
        dead = json.loads(json.dumps(watcher.watch_state()))
        kept = saved_watch(tmp_path / "journal.db", dice_live.TABLE)
        assert isinstance(kept, SavedWatch)
        assert kept.state["dice"]["rolls"] == 8 and dead["dice"]["rolls"] == 12
    finally:
        table.daemon.journal.close()  # a crash
    with structlog.testing.capture_logs() as logs:
        again = dice_live.LiveCraps(config)
    [line] = [e for e in logs if e["event"] == "live tests replayed"]
    assert (line["what"], line["count"], line["taken_up"]) == ("rolls", 4, True)
    assert line["after_seq"] == kept.after_seq
    try:
        resumed = again.runner.surveillance
        assert isinstance(resumed, DiceSurveillance)
        assert resumed.watch_state() == dead
    finally:
        again.daemon.journal.close()


class Unencodable(TableSurveillance):
    """A watcher whose state cannot be encoded (a bug in a test's `state()`)."""

    def watch_state(self) -> dict[str, Any]:
        return {"v": 1, "window": {1, 2, 3}}


def test_a_state_that_cannot_be_encoded_is_not_kept_and_play_goes_on() -> None:
    clock = Clock(T0)
    during = DuringPlay("RL-01", clock)
    watcher = Unencodable(SETUP)
    clock.now += KEPT_DURING_PLAY_EVERY
    _decide(watcher, _results(1, seed=8)[0])
    with structlog.testing.capture_logs() as logs:
        assert during.due(watcher) is None
        _decide(watcher, _results(2, seed=8)[1])
        assert during.due(watcher) is None  # said once an interval
    [line] = [e for e in logs if e["event"] == "live tests not saved"]
    assert "set" in line["error"] and line["log_level"] == "warning"
    assert line["table"] == "RL-01"


async def append(
    journal: Journal, builds: list[Callable[[int], Envelope]], watch: str
) -> list[Envelope]:
    """As a table's recorder commits a turn (`floord.table.recorder`)."""
    return await journal.append_many_async(TABLE, builds, watch=watch)


def test_the_journal_keeps_them_in_the_commit_at_the_head_it_leaves(tmp_path: Path) -> None:
    """`Append`'s `watch`: stored in the events' own transaction, at the head they leave,
    and nothing of it when that transaction fails."""
    path, _ = played(tmp_path, ["5", "17"], after=0)
    watcher = TableSurveillance(SETUP)
    _decide(watcher, _results(1, seed=9)[0])
    text = canonical_text(watcher.watch_state())
    journal = Journal(path)
    try:
        [envelope] = asyncio.run(append(journal, [result("9")], text))
        kept = saved_watch(path, TABLE)
        assert isinstance(kept, SavedWatch) and kept.after_seq == envelope.seq
        assert kept.state == json.loads(text)

        def unencodable(seq: int) -> Envelope:
            raise ValueError("not an event")

        _decide(watcher, _results(2, seed=9)[1])
        with pytest.raises(JournalError):
            asyncio.run(
                append(journal, [result("3"), unencodable], canonical_text(watcher.watch_state()))
            )
        assert saved_watch(path, TABLE) == kept  # the failed commit kept nothing
        assert journal.last_seq(TABLE) == envelope.seq
    finally:
        journal.close()
