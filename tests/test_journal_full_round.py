"""A disk that fills mid-round leaves a consistent record.

The engine acts only on inputs the journal holds: when an append fails, the engine is
put back to the committed state, so the halt that follows voids no round whose start
is not on the record, and the halt, once recorded, names the inputs that were refused.
Each halt reason appears once, in `P/state` and in the snapshot.

Two ways to fill the disk: a real small filesystem (a tmpfs mounted for the test, as
root), and `PRAGMA max_page_count` on the journal's connection (SQLITE_FULL, as SQLite
reports a full disk), which needs no privilege.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from table_turns import take
from test_engine_support import PASSING, make_table
from test_journal_disk_full import command, connect, device, make_runner, table_events

from floord.contract import EventType
from floord.journal.audit import verify_journal
from floord.journal.store import DISK_FULL, Journal
from floord.table.bus import Tick
from floord.table.runner import TableRunner

pytestmark = pytest.mark.unit

SPIN = {"rotor_direction": "cw", "rotor_rpm": 17.2}


def open_table(runner: TableRunner, clock: Any) -> None:
    connect(runner, clock)
    inspected = asyncio.run(command(runner, clock, "inspect", "fp1", {"checklist": PASSING}))
    assert inspected["ok"], inspected
    opened = asyncio.run(command(runner, clock, "open", "fp1", {}))
    assert opened["ok"], opened


def wheel_cycle(spin: int, number: str) -> list[tuple[str, dict[str, Any]]]:
    """One spin as the wheel reports it: game started, launch, no more bets, number."""
    return [
        (EventType.WHEEL_GAME_STARTED, {"spin": spin, "state": 2, **SPIN}),
        (EventType.WHEEL_BALL_LAUNCHED, {"spin": spin, **SPIN}),
        (EventType.WHEEL_NO_MORE_BETS, {"spin": spin}),
        (EventType.WHEEL_NUMBER, {"spin": spin, "number": number, "origin": "line"}),
    ]


def play_into_a_full_disk(
    runner: TableRunner, clock: Any, fill: Callable[[], None]
) -> tuple[str, str]:
    """Open, play spin 1, fill the disk after spin 2's game started, and play on until
    an input is refused; return that input's type and the failure's code."""
    open_table(runner, clock)
    for etype, data in wheel_cycle(1, "7"):
        device(runner, clock, etype, data)
    assert runner.record_failure is None
    inputs = wheel_cycle(2, "17") + wheel_cycle(3, "32") + wheel_cycle(4, "0")
    device(runner, clock, *inputs[0])
    fill()
    for etype, data in inputs[1:]:
        device(runner, clock, etype, data)
        if runner.record_failure:
            return str(etype), runner.record_failure_code
    raise AssertionError("the disk never filled")


def check_consistent(runner: TableRunner, path: Path, refused: str) -> None:
    """The record voids, ends or resolves only rounds it started; the engine holds only
    what the record holds; the recorded halt names the refused input; one reason each."""
    events = table_events(path, runner.table)
    started = {e["round"] for e in events if e["type"] == EventType.ROUND_STARTED}
    assert started
    for e in events:
        if e["type"] in (EventType.ROUND_VOIDED, EventType.ROUND_ENDED, EventType.ROULETTE_RESULT):
            assert e["round"] in started, f"{e['type']} of a round never started: {e}"
    current = runner.engine.current_round
    assert current is None or current in started

    halts = [e for e in events if e["type"] == EventType.TABLE_HALTED]
    assert [h["data"]["code"] for h in halts] == [DISK_FULL]
    named = halts[0]["data"]["unrecorded_inputs"]
    assert named and named[0]["type"] == refused and named[0]["source"] == "wheel-1"

    saved = stored_snapshot(path, runner.table)
    for reasons in (
        runner.state()["halt_reasons"],
        runner.engine.snapshot()["halt_reasons"],
        saved["halt_reasons"],
    ):
        codes = [r["code"] for r in reasons]
        assert codes == [DISK_FULL], codes

    # What a restart would restore is what the running engine holds.
    assert make_table(snapshot=saved).engine.snapshot() == runner.engine.snapshot()


def stored_snapshot(path: Path, table: str) -> dict[str, Any]:
    journal = Journal.open_readonly(path)  # beside the runner's open journal
    try:
        saved = journal.load_snapshot(table)
    finally:
        journal.close()
    assert saved is not None
    return saved


def refuse_more_then_recover(runner: TableRunner, clock: Any, free: Callable[[], None]) -> None:
    """One more input while full (refused too) and a tick, then room again: the halt goes
    on the record at the next tick, naming the refused inputs."""
    device(runner, clock, EventType.WHEEL_NO_MORE_BETS, {"spin": 9})
    take(runner, Tick(clock.step()))
    assert runner.state()["state"] == "halted"
    assert [r["code"] for r in runner.state()["halt_reasons"]] == [DISK_FULL]
    free()
    take(runner, Tick(clock.step()))
    assert runner.record_failure is None


# ----- a real small filesystem ----------------------------------------------------


# ----- SQLite's own size limit (no privilege needed) --------------------------------


def limit_after(runner: TableRunner, clock: Any, padding: int) -> Callable[[], None]:
    """`padding` protocol errors recorded, then no new page may be taken."""

    def fill() -> None:
        for i in range(padding):
            raw = repr(f"noise {i:03d}")
            device(runner, clock, EventType.DEVICE_PROTOCOL_ERROR, {"reason": "bad", "raw": raw})
        # SQLite clamps the limit to the current size: no new page may be taken.
        runner.recorder.journal._db.execute("PRAGMA max_page_count = 1")

    return fill


def unlimit(journal: Journal) -> None:
    journal._db.execute("PRAGMA max_page_count = 1000000")


@pytest.mark.parametrize("padding", range(0, 24, 3))
def test_a_size_limit_reached_mid_round_leaves_a_consistent_record(
    tmp_path: Path, padding: int
) -> None:
    """The page limit is set at a different point of the page for each `padding`, so
    the refused input differs: whichever it is, the record stays consistent."""
    path = tmp_path / "journal.db"
    runner, journal, clock, _ = make_runner(path)
    try:
        refused, code = play_into_a_full_disk(runner, clock, limit_after(runner, clock, padding))
        assert code == DISK_FULL
        refuse_more_then_recover(runner, clock, lambda: unlimit(journal))
        check_consistent(runner, path, refused)
    finally:
        journal.close()
    assert verify_journal(path).broken is None


def test_the_size_limit_hits_a_round_start_for_some_padding(tmp_path: Path) -> None:
    """The case of the issue: the input that would start a round is the one refused.
    Found by moving the limit along the page; the engine then holds no round at all."""
    for padding in range(40):
        path = tmp_path / f"journal-{padding}.db"
        runner, journal, clock, _ = make_runner(path)
        try:
            refused, _ = play_into_a_full_disk(runner, clock, limit_after(runner, clock, padding))
            if refused != EventType.WHEEL_BALL_LAUNCHED:
                continue
            assert runner.engine.current_round is None
            refuse_more_then_recover(runner, clock, lambda j=journal: unlimit(j))
            check_consistent(runner, path, refused)
            return
        finally:
            journal.close()
    raise AssertionError("no padding made the launch the refused input")


def test_a_halt_names_twenty_refused_inputs_and_counts_the_rest(tmp_path: Path) -> None:
    """A long outage: the recorded halt names the first 20 refused inputs one by one and
    counts the others (`unrecorded_more`), so the halt's own row stays bounded."""
    path = tmp_path / "journal.db"
    runner, journal, clock, _ = make_runner(path)
    try:
        play_into_a_full_disk(runner, clock, limit_after(runner, clock, 0))
        for spin in range(10, 35):
            device(runner, clock, EventType.WHEEL_NO_MORE_BETS, {"spin": spin})
        take(runner, Tick(clock.step()))
        unlimit(journal)
        take(runner, Tick(clock.step()))
        assert runner.record_failure is None
        [halt] = [e for e in table_events(path, runner.table) if e["type"] == "table.halted"]
        assert len(halt["data"]["unrecorded_inputs"]) == 20
        # The input that hit the full disk and the 25 after it: 26 refused in all.
        assert halt["data"]["unrecorded_more"] == 6
    finally:
        journal.close()
    assert verify_journal(path).broken is None
