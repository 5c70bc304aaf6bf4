"""The runner's copies (`floord.table.engine_state`: the watcher as last committed, the
state put back while the daemon stops) are made by `floord.engine.core.copies.deep_copy`,
not `copy.deepcopy`: a copy must be what `copy.deepcopy` gives for every game. The
engine itself is put back by restoring the committed snapshot
(tests/test_restored_engines.py), which must give what a copy would have kept.

Three checks: every game's own engine tests, run again with each engine input followed
by both copies compared (the same types, values and sharing); a refused commit on a
running roulette table (with its live surveillance), a Baccarat and a Craps table, whose
put-back state must be the one `copy.deepcopy` would have kept of the committed state;
and, after every commit of a wheel and a dice table at play, the committed snapshot the
live one's, the engine restored from it alike the live one, and the watcher's copy kept
again only while the watcher does not change (its `changes` count).
"""

from __future__ import annotations

import asyncio
import copy
import importlib
import inspect
import random
import tempfile
from collections import deque
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml
from craps_support import Table as CrapsTable
from e2e_support import write_config
from live_wheel_support import ROTOR, LiveWheel
from table_turns import take
from test_engine_baccarat_support import make_table as make_baccarat
from test_journal_disk_full import KEYS, FakeLink
from test_surveillance_dice_live import SEC, LiveCraps
from test_surveillance_dice_live import _play as play_dice
from test_surveillance_dice_live import write_config as write_dice_config

from floord.contract import EventType, format_ts
from floord.engine.core.base import TableEngineBase
from floord.engine.core.copies import deep_copy
from floord.engine.core.types import CommandOutcome, EngineOutput
from floord.engine.roulette.layout import SINGLE_ZERO_ORDER
from floord.journal.store import FAILURE, Journal, JournalError
from floord.table.bus import TableBus, Tick
from floord.table.recorder import Recorder
from floord.table.runner import TableRunner
from floord.table.turn import Step, Turn

pytestmark = pytest.mark.unit

INPUTS = ("on_device_event", "on_command", "tick", "halt", "after_restart")
ENGINE_TESTS = sorted(
    p.stem
    for p in Path(__file__).parent.glob("test_engine_*.py")
    if not p.stem.endswith("_support")
)


_UNKNOWN = object()


def assert_same_copy(fast: Any, slow: Any, original: Any = _UNKNOWN) -> None:
    """`fast` and `slow`, two deep copies of `original`, are alike: the same types and
    values, the same objects of `original` shared, and shared among themselves alike (an
    object reached twice in one is one object reached twice in the other). Without
    `original`, two states alike, what they share aside."""
    pairs: dict[int, int] = {}
    back: dict[int, int] = {}
    keep: list[Any] = []
    todo: list[tuple[Any, Any, Any, str]] = [(fast, slow, original, "state")]
    while todo:
        f, s, o, path = todo.pop()
        assert type(f) is type(s), path
        if o is _UNKNOWN:
            if f is s:
                continue  # both the very same object (a Fixed value, say)
            o = f
        else:
            assert (f is o) == (s is o), f"{path}: shared by one copy only"
            if f is o:
                continue
        if id(f) in pairs or id(s) in back:
            assert pairs.get(id(f)) == id(s) and back.get(id(s)) == id(f), f"{path}: sharing"
            continue
        pairs[id(f)], back[id(s)] = id(s), id(f)
        keep.append((f, s))
        if isinstance(f, dict):
            assert list(f) == list(s) == list(o), path
            todo.extend((f[k], s[k], _of(o, k, f), f"{path}[{k!r}]") for k in f)
        elif isinstance(f, list | tuple | deque):
            assert len(f) == len(s) == len(o), path
            pairs_of = enumerate(zip(f, s, strict=True))
            todo.extend((a, b, _of(o, i, f), f"{path}[{i}]") for i, (a, b) in pairs_of)
        elif hasattr(f, "__dict__"):
            assert list(vars(f)) == list(vars(s)) == list(vars(o)), path
            todo.extend(
                (vars(f)[k], vars(s)[k], _of(vars(o), k, vars(f)), f"{path}.{k}") for k in vars(f)
            )
        else:
            assert f == s == o, path


def _of(original: Any, key: Any, copied: Any) -> Any:
    """What `key` holds in `original`; `_UNKNOWN` when the copies are compared alone."""
    return _UNKNOWN if original is copied else original[key]


def _zero_argument_tests(module: ModuleType) -> list[Callable[[], None]]:
    return [
        fn
        for name, fn in vars(module).items()
        if name.startswith("test_")
        and inspect.isfunction(fn)
        and not inspect.signature(fn).parameters
        and not hasattr(fn, "pytestmark")
    ]


def engine_classes() -> set[type]:
    """`TableEngineBase` and every class built on it that is imported so far."""
    classes: set[type] = set()
    todo: list[type] = [TableEngineBase]
    while todo:
        cls = todo.pop()
        classes.add(cls)
        todo.extend(cls.__subclasses__())
    return classes


def wrap_engine_inputs(
    monkeypatch: pytest.MonkeyPatch,
    checked: Callable[[Callable[..., Any]], Callable[..., Any]],
) -> None:
    """Every engine input (`INPUTS`) of every game's engine class, and of the classes
    it is built of, wrapped by `checked`, for the test's length."""
    for cls in engine_classes():
        for name in INPUTS:
            if name in vars(cls):
                monkeypatch.setattr(cls, name, checked(vars(cls)[name]))


@pytest.fixture
def compared(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every engine input of every game followed by `assert_same_copy` of the engine."""
    seen: list[str] = []
    depth = [0]

    def checked(method: Callable[..., Any]) -> Callable[..., Any]:
        def run(self: Any, *args: Any, **kwargs: Any) -> Any:
            depth[0] += 1
            try:
                out = method(self, *args, **kwargs)
            finally:
                depth[0] -= 1
            if depth[0] == 0:
                assert_same_copy(deep_copy(self), copy.deepcopy(self), self)
                seen.append(type(self).__name__)
            return out

        return run

    wrap_engine_inputs(monkeypatch, checked)
    yield seen


GAMES = (
    "Roulette",
    "BigSix",
    "Blackjack",
    "Baccarat",
    "Stud",
    "Carnival",
    "Poker",
    "War",
    "PaiGow",
    "Craps",
)


def run_engine_tests(module_name: str, seen: list[str], ran: dict[str, frozenset[str]]) -> None:
    """One game's engine tests, run again under a check that appends to `seen`; `ran`
    keeps, for the module, the engine classes the check saw."""
    tests = _zero_argument_tests(importlib.import_module(module_name))
    assert tests, f"{module_name} has no test this can run again"
    start = len(seen)
    for test in tests:
        test()
    ran[module_name] = frozenset(seen[start:])


def engines_checked(seen: list[str], ran: dict[str, frozenset[str]]) -> set[str]:
    """The engine classes the check saw over every game's engine tests: those this run
    already ran under the check (`ran`), the rest run now. Run alone, it runs them all."""
    for module_name in ENGINE_TESTS:
        if module_name not in ran:
            run_engine_tests(module_name, seen, ran)
    return set().union(*ran.values())


# The engine classes each module's tests showed the copy check, as this run saw them.
COMPARED: dict[str, frozenset[str]] = {}


@pytest.mark.parametrize("module_name", ENGINE_TESTS)
def test_each_games_engine_tests_copy_alike_after_every_input(
    module_name: str, compared: list[str]
) -> None:
    run_engine_tests(module_name, compared, COMPARED)


def test_every_game_is_among_the_engines_compared(compared: list[str]) -> None:
    assert {f"{g}Engine" for g in GAMES} <= engines_checked(compared, COMPARED)


# ----- a refused commit on a running table ---------------------------------------------


def _refuse_commits(journal: Journal, monkeypatch: pytest.MonkeyPatch) -> None:
    async def refused(*args: Any, **kwargs: Any) -> Any:
        raise JournalError("disk I/O error (simulated)", FAILURE)

    monkeypatch.setattr(journal, "append_many_async", refused)
    monkeypatch.setattr(journal, "append_group_async", refused)


def _expected_after_refusal(
    committed: tuple[Any, Any], at: datetime
) -> tuple[dict[str, Any], dict[str, Any], Any]:
    """What the runner shows after a refused commit had it kept `committed` with
    `copy.deepcopy`: that state, halted at `at` for the journal's failure."""
    engine, surveillance = copy.deepcopy(committed)
    engine.halt(FAILURE, "disk I/O error (simulated)", at)
    return engine.snapshot(), engine.public_state(), surveillance


def _check_put_back(runner: TableRunner, expected: tuple[Any, Any, Any]) -> None:
    snapshot, public, surveillance = expected
    assert runner.record_failure_code == FAILURE
    assert runner.engine.snapshot() == snapshot
    assert runner.engine.public_state() == public
    if surveillance is not None:
        assert runner.surveillance is not None
        assert runner.surveillance.snapshot() == surveillance.snapshot()
        assert_same_copy(runner.surveillance, surveillance)


def test_a_refused_commit_puts_back_a_roulette_tables_committed_state_and_its_watch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        wheel = LiveWheel(write_config(Path(tmp), "mqtt://127.0.0.1:1", "/dev/null"))
        try:
            wheel.open()
            wheel.dealer_in()
            rng = random.Random(15)
            for _ in range(60):
                wheel.spin(rng.choice(SINGLE_ZERO_ORDER), release=rng.choice(SINGLE_ZERO_ORDER))
            spin = wheel.spins + 1
            wheel.device(EventType.WHEEL_BALL_LAUNCHED, {"spin": spin, **ROTOR})
            wheel.device(EventType.WHEEL_NO_MORE_BETS, {"spin": spin})
            runner = wheel.runner
            at = runner._clock()
            monkeypatch.setattr(runner, "_clock", lambda: at)
            monkeypatch.setattr(runner.recorder, "_clock", lambda: at)
            expected = _expected_after_refusal((runner.engine, runner.surveillance), at)
            _refuse_commits(runner.recorder.journal, monkeypatch)
            # The number: the engine's result and the watch's counts, refused and put back.
            number = {"spin": spin, "number": "17", "origin": "line"}
            wheel.device(EventType.WHEEL_NUMBER, number)
            _check_put_back(runner, expected)
        finally:
            monkeypatch.undo()
            wheel.stop()


def _runner(engine: Any, journal: Journal, clock: Callable[[], datetime]) -> TableRunner:
    return TableRunner(
        site="s1",
        table=engine.table_id,
        engine=engine,
        journal=journal,
        bus=TableBus(),
        adapters={},
        operators=KEYS,
        clock=clock,
        committed=FakeLink(),
    )


def _record(runner: TableRunner, done: EngineOutput | CommandOutcome, at: datetime) -> None:
    """An input's decisions committed by the runner as one turn, as a device event's are."""
    output = done.output if isinstance(done, CommandOutcome) else done
    named = {"source": "test", "type": "test.input", "ts": "", "device_seq": 0}
    step = Step(tuple(output.events), format_ts(at), named)
    turn = Turn((), (step,), runner.live.snapshot())
    asyncio.run(runner.recorder.commit(turn))


def test_a_refused_commit_puts_back_a_baccarat_and_a_craps_tables_committed_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    baccarat = make_baccarat()
    craps = CrapsTable()
    tables: list[tuple[str, Any, Callable[[], datetime], Any, Callable[[], Any]]] = [
        ("baccarat", baccarat, lambda: baccarat.clock.now, _baccarat_coups, baccarat.start),
        ("craps", craps, lambda: craps.now, _craps_rolls, lambda: craps.throw(6, 6)),
    ]
    for name, table, now, play, last in tables:
        journal = Journal(tmp_path / f"{name}.db")
        try:
            runner = _runner(table.engine, journal, now)
            for done in play(table):
                _record(runner, done, now())
            assert runner.record_failure is None, name
            at = now()
            expected = _expected_after_refusal((runner.engine, None), at)
            with monkeypatch.context() as refusing:
                _refuse_commits(journal, refusing)
                refusing.setattr(runner.recorder, "_clock", lambda at=at: at)
                _record(runner, last(), at)
            _check_put_back(runner, expected)
        finally:
            journal.close()


def _baccarat_coups(t: Any) -> Iterator[EngineOutput | CommandOutcome]:
    t.ready()
    for cards in (("4S", "2H", "5D", "3C"), ("KS", "QH", "2D", "3C", "4H", "5S")):
        yield t.start()
        yield t.draws(*cards)
        yield t.end()


def _craps_rolls(t: CrapsTable) -> Iterator[EngineOutput | CommandOutcome]:
    t.open()
    t.new_shooter()
    for d1, d2 in ((2, 4), (2, 3), (5, 1), (4, 4), (3, 4)):
        yield t.throw(d1, d2)


# ----- the watcher's copy, kept again while it does not change --------------------------


@pytest.fixture
def kept_alike(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bool]]:
    """After every commit (and every failure's halt), the committed state the runner
    keeps is alike the live one: its snapshot the live one's, the engine restored from
    it alike the live engine, and a watcher copy kept again as good as a new one.
    Yields, for each commit, whether the watcher's copy was kept again."""
    again: list[bool] = []

    def checked(method: Callable[..., Any]) -> Callable[..., Any]:
        def run(self: Recorder, *args: Any, **kwargs: Any) -> Any:
            live = self.live
            before = live.committed_watcher
            out = method(self, *args, **kwargs)
            assert live.committed == live.snapshot()
            assert_same_copy(live.restored(), live.engine)
            assert_same_copy(live.committed_watcher, live.surveillance)
            assert live.committed_watcher is not live.surveillance
            again.append(before is live.committed_watcher)
            return out

        return run

    for name in ("_recorded", "fail_closed"):
        monkeypatch.setattr(Recorder, name, checked(getattr(Recorder, name)))
    yield again


def test_a_roulette_watchers_copy_is_kept_again_only_while_it_does_not_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kept_alike: list[bool]
) -> None:
    config = write_config(tmp_path, "mqtt://127.0.0.1:1", "/dev/null")
    settings = {"window": 185, "level": 0.001, "dealer_window": 80, "dealer_bins": 8}
    config.write_text(
        yaml.safe_dump({**yaml.safe_load(config.read_text()), "surveillance": settings})
    )
    wheel = LiveWheel(config)
    try:
        wheel.open()
        wheel.dealer_in()
        rng = random.Random(17)
        for n in range(260):
            number = "17" if rng.random() < 0.2 else rng.choice(SINGLE_ZERO_ORDER)
            wheel.spin(number, release=rng.choice(SINGLE_ZERO_ORDER))
            if n == 200:
                with monkeypatch.context() as refusing:
                    _refuse_commits(wheel.runner.recorder.journal, refusing)
                    wheel.spin("5", release="0")
                take(wheel.runner, Tick(wheel.runner._clock()))  # the halt on the record
                wheel.command("resume", {"reason": "disk replaced"})
        assert wheel.runner.state()["alerts"], "the hot 17 raised alerts"
        watcher = wheel.runner.surveillance
        assert_same_copy(deep_copy(watcher), copy.deepcopy(watcher), watcher)
    finally:
        wheel.stop()
    assert any(kept_alike) and not all(kept_alike)


def test_a_dice_watchers_copy_is_kept_again_only_while_it_does_not_change(
    tmp_path: Path, kept_alike: list[bool]
) -> None:
    table = LiveCraps(write_dice_config(tmp_path))
    try:
        table.open()
        play_dice(table, random.Random(18), 300, loaded=True)
        alerts = table.runner.state()["alerts"]
        assert alerts, "the loaded die raised alerts"
        table.command(SEC, "ack_alert", alert=alerts[0]["id"], note="dice taken")
        assert all(a["id"] != alerts[0]["id"] for a in table.runner.state()["alerts"])
        play_dice(table, random.Random(19), 20, loaded=False)
        watcher = table.runner.surveillance
        assert_same_copy(deep_copy(watcher), copy.deepcopy(watcher), watcher)
    finally:
        table.stop()
    assert any(kept_alike) and not all(kept_alike)
