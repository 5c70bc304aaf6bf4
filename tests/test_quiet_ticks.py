"""A table is spared the clock's ticks that could change nothing (`quiet_until`,
`TableRunner.wants_tick`): the promise is that a tick before the instant an engine
names changes nothing and decides nothing, and it is checked here against every game's
engine tests (each input followed by ticks on a copy at the instants it promised quiet),
against the gaming day's edges in zones with clock changes, and through a runner taking
half an hour of ticks every 0.5 s or only those it wants: the same record either way.
"""

from __future__ import annotations

import importlib
import importlib.util
import itertools
import json
import pkgutil
import sqlite3
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, time, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from table_turns import take
from test_committed_copy import (
    ENGINE_TESTS,
    engine_classes,
    engines_checked,
    run_engine_tests,
    wrap_engine_inputs,
)
from test_journal_disk_full import connect, make_runner
from test_restored_engines import assert_alike

import floord.engine
from floord.engine.core.base import TableEngineBase
from floord.engine.core.checked_results import CheckedResults
from floord.engine.core.copies import deep_copy
from floord.engine.core.gaming_day import GamingDay
from floord.table.bus import CommandArrived, Tick
from floord.table.refusal_limiter import WINDOW_S

pytestmark = pytest.mark.unit

# Every game's engine names an instant (a card game's only between rounds: its idle
# watch counts each tick in play as activity).
CARD_GAMES = (
    "BlackjackEngine",
    "BaccaratEngine",
    "StudEngine",
    "CarnivalEngine",
    "PokerEngine",
    "WarEngine",
)
QUIET_GAMES = ("RouletteEngine", "BigSixEngine", "CrapsEngine", "PaiGowEngine", *CARD_GAMES)
MICRO = timedelta(microseconds=1)


# ----- the promise, over every game's engine tests ----------------------------------


def _probes(engine: Any, now: datetime) -> list[datetime]:
    """Instants a tick is promised quiet at, as the engine stands at `now`: the next
    tick, and the last instant before the one it names."""
    due = engine.quiet_until(now)
    if due is None or now >= due:
        return []
    following = now + timedelta(seconds=0.5)
    return ([following] if following < due - MICRO else []) + [due - MICRO]


def _input_now(args: tuple[Any, ...], kwargs: dict[str, Any]) -> datetime | None:
    """The `now` every engine input is handed last."""
    now = kwargs.get("now", args[-1] if args else None)
    return now if isinstance(now, datetime) else None


# The engine classes whose probes a result's window bounded, and those a card table's
# idle spell or deck change did, as this run saw them.
WINDOWED: set[str] = set()
CARDS_BOUNDED: set[str] = set()


@pytest.fixture
def quiet_checked(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every engine input of every game followed, on copies of the engine, by ticks at
    the instants it promises quiet: each must decide nothing and change no field. Yields
    the engine classes probed, one for each probe."""
    probed: list[str] = []
    depth = [0]
    _import_every_engine()  # so each game's own inputs are wrapped, not only the base's

    def checked(method: Callable[..., Any]) -> Callable[..., Any]:
        def run(self: Any, *args: Any, **kwargs: Any) -> Any:
            depth[0] += 1
            try:
                out = method(self, *args, **kwargs)
            finally:
                depth[0] -= 1
            now = _input_now(args, kwargs)
            if depth[0] == 0 and now is not None:
                depth[0] += 1
                try:
                    _probe(self, now, probed)
                finally:
                    depth[0] -= 1
            return out

        return run

    wrap_engine_inputs(monkeypatch, checked)
    yield probed


def _probe(engine: Any, now: datetime, probed: list[str]) -> None:
    name = type(engine).__name__
    check = getattr(engine, "check", None)
    closes = check.window_closes() if check is not None else None
    due = engine.quiet_until(now)
    table_due = TableEngineBase.quiet_until(engine, now)
    if due is not None and table_due is not None and due < table_due and closes != due:
        CARDS_BOUNDED.add(name)
    probes = _probes(engine, now)
    if not probes:
        return
    copy = deep_copy(engine)
    for at in probes:  # in time order, on one copy: each quiet tick leaves it alike
        out = copy.tick(at)
        assert not out.events and not out.device_commands, f"{name}: a quiet tick at {at}"
        assert_alike(copy, engine, f"{name} ticked at {at}")
        probed.append(name)
        if closes is not None and due == closes:
            WINDOWED.add(name)


# The engine classes each module's tests showed the quiet check, as this run saw them.
QUIET: dict[str, frozenset[str]] = {}


@pytest.mark.parametrize("module_name", ENGINE_TESTS)
def test_each_games_ticks_before_its_named_instant_change_nothing(
    module_name: str, quiet_checked: list[str]
) -> None:
    run_engine_tests(module_name, quiet_checked, QUIET)


def test_every_quiet_game_was_probed_and_a_results_window_bounded_some(
    quiet_checked: list[str],
) -> None:
    assert set(QUIET_GAMES) <= engines_checked(quiet_checked, QUIET)
    # In each game with a second source, a result awaiting it named its window's end;
    # in each card game, an idle spell's end or a deck change's warning.
    assert {"RouletteEngine", "BigSixEngine", "CrapsEngine"} <= WINDOWED
    assert set(CARD_GAMES) <= CARDS_BOUNDED, set(CARD_GAMES) - CARDS_BOUNDED


def _import_every_engine() -> None:
    """Every game's engine module, imported: its class is then among the base's
    subclasses (a game's module is otherwise first imported by its tests)."""
    for found in pkgutil.iter_modules(floord.engine.__path__):
        if importlib.util.find_spec(f"floord.engine.{found.name}.engine") is not None:
            importlib.import_module(f"floord.engine.{found.name}.engine")


def _owner(cls: type, name: str) -> type:
    return next(c for c in cls.__mro__ if name in vars(c))


def test_a_class_that_overrides_tick_says_when_it_is_quiet() -> None:
    _import_every_engine()
    classes = engine_classes()
    assert {c.__name__ for c in classes} >= set(QUIET_GAMES)
    for cls in classes:
        tick, quiet = _owner(cls, "tick"), _owner(cls, "quiet_until")
        assert issubclass(quiet, tick), f"{cls.__name__}: tick in {tick}, quiet_until in {quiet}"
    assert _owner(_by_name(classes, "RouletteEngine"), "quiet_until") is CheckedResults


def _by_name(classes: set[type], name: str) -> type:
    return next(c for c in classes if c.__name__ == name)


# ----- the gaming day's next start --------------------------------------------------

ZONES = ("UTC", "America/New_York", "Europe/London", "Australia/Lord_Howe", "Asia/Kolkata")
STARTS = (time(0, 0), time(2, 30), time(6, 0), time(23, 59))


def _instants(zone: str) -> Iterator[datetime]:
    """2026 every 23 h 7 min, and every 37 min from two days before each of the zone's
    clock changes to a day after it."""
    year = datetime(2026, 1, 1, 0, 7, tzinfo=UTC)
    at = year
    while at.year == 2026:
        yield at
        at += timedelta(hours=23, minutes=7)
    info = ZoneInfo(zone)
    hours = [year + timedelta(hours=h) for h in range(365 * 24)]
    for before, after in itertools.pairwise(hours):
        if before.astimezone(info).utcoffset() != after.astimezone(info).utcoffset():
            at = before - timedelta(days=2)
            while at < after + timedelta(days=1):
                yield at
                at += timedelta(minutes=37)


def _day_of(day: GamingDay, at: datetime) -> str:
    """`at`'s gaming day from the zone's own arithmetic, with no memo."""
    return day.of(at).isoformat()


@pytest.mark.parametrize("zone", ZONES)
def test_the_next_gaming_day_start_is_never_late_and_exact_without_a_clock_change(
    zone: str,
) -> None:
    for starts in STARTS:
        day = GamingDay(starts, zone)
        unknown = 0
        for now in _instants(zone):
            span = day.span(now)
            if span is None:
                unknown += 1
                continue
            label, start = span
            assert label == _day_of(day, now)
            assert start > now
            assert _day_of(day, start - MICRO) == label != _day_of(day, start), (now, start)
            # `label` answers from the span just found inside it, and from the zone past it.
            assert day.label(start - MICRO) == label and day.label(start) == _day_of(day, start)
            at = now
            while at < start:  # no change of day hides between them
                assert day.label(at) == _day_of(day, at) == label, (zone, starts, now, at)
                at += timedelta(minutes=30)
        # Only the day before a clock change is left to every tick: about 39 probes of
        # 37 minutes a day, two changes a year.
        assert unknown <= (0 if zone in ("UTC", "Asia/Kolkata") else 2 * 45), (zone, starts)


def test_a_gaming_day_that_a_clock_change_cuts_short_is_left_to_every_tick() -> None:
    # 01:30 New York: on 1 November 2026 the clocks go back at 02:00, so the day that
    # began at 01:30 EDT is the previous one again at 01:00 EST, half an hour later.
    day = GamingDay(time(1, 30), "America/New_York")
    now = datetime(2026, 11, 1, 5, 45, tzinfo=UTC)  # 01:45 EDT
    assert day.label(now) == "2026-11-01"
    assert day.label(datetime(2026, 11, 1, 6, 0, tzinfo=UTC)) == "2026-10-31"
    assert day.span(now) is None
    # 02:30 on the day the clocks go forward does not exist: the day starts at 03:00.
    spring = GamingDay(time(2, 30), "America/New_York")
    assert spring.span(datetime(2026, 3, 7, 12, 0, tzinfo=UTC)) is None


# ----- a runner's ticks ------------------------------------------------------------


def test_an_idle_table_wants_no_tick_until_the_next_gaming_day(tmp_path: Path) -> None:
    runner, journal, clock, _ = make_runner(tmp_path / "journal.db")
    try:
        connect(runner, clock)
        now = clock.step()
        due = runner.engine.quiet_until(now)
        assert due is not None and due - now < timedelta(days=1)
        assert not runner.wants_tick(now)
        assert not runner.wants_tick(due - MICRO)
        assert runner.wants_tick(due)
        # A journal that refused a turn is tried again at every tick.
        runner.recorder.failure = "disk I/O error"
        assert runner.wants_tick(now)
        runner.recorder.failure = None
        # A window of unverified refusals under way: its end wants a tick.
        take(runner, CommandArrived(b"not json"))
        ends = runner.commands.refusal_window_ends()
        assert ends is not None and ends - now <= timedelta(seconds=WINDOW_S + 1)
        assert not runner.wants_tick(ends - MICRO)
        assert runner.wants_tick(ends)
        # A stop under way takes every tick.
        runner.stop.begin()
        assert runner.wants_tick(now)
    finally:
        journal.close()


def _table_rows(path: Path) -> list[tuple[str, str]]:
    db = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT stream, body FROM events ORDER BY stream, seq").fetchall()
    finally:
        db.close()
    return [(stream, json.dumps(json.loads(body), sort_keys=True)) for stream, body in rows]


def _half_an_hour(path: Path, *, only_wanted: bool) -> tuple[list[tuple[str, str]], int]:
    """A table through a gaming day's start: junk commands now and then, ticks every
    0.5 s (or only those the runner wants); its record, and the ticks it took."""
    runner, journal, clock, _ = make_runner(path)
    taken = 0
    try:
        connect(runner, clock)
        start = runner.engine.quiet_until(clock.now)
        assert start is not None
        clock.now = start - timedelta(minutes=15)
        for n in range(2 * 1800):
            if n % 900 == 7:
                take(runner, *[CommandArrived(b"junk") for _ in range(12)])
            now = clock.step(0.5)
            if not only_wanted or runner.wants_tick(now):
                take(runner, Tick(now))
                taken += 1
        return _table_rows(path), taken
    finally:
        journal.close()


def test_a_runner_spared_its_quiet_ticks_keeps_the_same_record(tmp_path: Path) -> None:
    every, all_ticks = _half_an_hour(tmp_path / "every.db", only_wanted=False)
    wanted, few_ticks = _half_an_hour(tmp_path / "wanted.db", only_wanted=True)
    assert wanted == every
    kinds = [json.loads(body)["type"] for _, body in every]
    assert "operator.commands_refused" in kinds  # a window's count, on a tick
    assert all_ticks == 3600 and few_ticks < 10
