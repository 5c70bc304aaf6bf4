"""A wheel table's live tests saved beside its record, and taken up at the next start
(`floord.table.watch_state`, `floord.journal.watch_states`).

What a start takes up must be what the tests were: a watcher that resumes a saved state
and then sees the same results raises the same alerts, with the same statistics, as one
that never stopped. A saved state the start cannot vouch for (edited, cut from the
chain, kept under other settings) is replayed from the record instead, with one line.
"""

from __future__ import annotations

import json
import random
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import structlog
from test_journal_integrity import TABLE, start
from test_start_refill_breaks import played

from floord.analytics.pace import PaceSettings
from floord.analytics.report import WheelResult, WheelSetup
from floord.analytics.spin_physics import SpinSettings
from floord.analytics.wheel_physics import spin_record
from floord.analytics.wheel_watch import roulette_order
from floord.contract import EventType, format_ts
from floord.engine.core.types import Decision
from floord.journal.readers import saved_watch
from floord.journal.store import Journal
from floord.journal.watch_states import SavedWatch
from floord.table import watch_state
from floord.table.surveillance import TableSurveillance

pytestmark = pytest.mark.unit

ORDER = tuple(roulette_order("single_zero"))
# Every test on, with windows small enough that a few hundred results raise alerts.
SETUP = WheelSetup(
    "single_zero",
    ORDER,
    185,
    0.01,
    4,
    dealer_window=100,
    dealer_bins=4,
    pace=PaceSettings(low=30.0, high=50.0, window=10, break_s=600.0),
    spin=SpinSettings(
        rotor_run=3, envelope_spins=30, envelope_k=3.0, drop_zone_window=100, drop_zone_bins=4
    ),
)


def _results(n: int, seed: int) -> list[dict[str, Any]]:
    """`roulette.result` bodies: a wheel that comes to favour one pocket and a dealer
    who comes to aim (from spin 650), dealers who change every 30 spins, paces that
    drift out of the band, and a rotor that forgets to change direction now and then."""
    rng = random.Random(seed)
    at = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)
    bodies = []
    direction = "cw"
    for spin in range(1, n + 1):
        dealer = f"DL-{spin // 30 % 3}"
        release = rng.randrange(37)
        biased = spin > 650
        aimed = biased and dealer == "DL-1" and rng.random() < 0.5
        distance = rng.randrange(5, 9) if aimed else rng.randrange(37)
        at += timedelta(seconds=rng.choice([60, 75, 90, 120, 45]) + (spin // 200) * 20)
        if rng.random() > 0.15:
            direction = "ccw" if direction == "cw" else "cw"
        bodies.append(
            {
                "number": ORDER[3]
                if biased and rng.random() < 0.15
                else ORDER[(release + distance) % 37],
                "dealer": dealer,
                "release_pocket": ORDER[release],
                "at": format_ts(at),
                "spin": spin % 999 + 1,
                "rotor_direction": direction,
                "rotor_rpm": round(rng.gauss(20, 1 if spin % 97 else 8), 2),
                "ball_revolutions": rng.randrange(9, 14),
                "ball_rps": round(rng.gauss(1.8, 0.05), 3),
            }
        )
    return bodies


def _decide(watcher: TableSurveillance, body: dict[str, Any]) -> list[dict[str, Any]]:
    raised = watcher.on_decisions([Decision(EventType.ROULETTE_RESULT, body, None, "R-1")])
    return [{k: v for k, v in d.data.items() if k != "id"} for d in raised]


@pytest.mark.parametrize("split", [600, 700, 780])
def test_a_resumed_watch_goes_on_exactly_as_one_that_never_stopped(split: int) -> None:
    """Stopped before the wheel and the dealer go wrong (600), in the middle of their
    excursions (700, 780: tests disarmed, waiting for their p-value to come back)."""
    bodies = _results(900, seed=3)
    live = TableSurveillance(SETUP)
    before = [a for body in bodies[:split] for a in _decide(live, body)]
    kept = json.loads(json.dumps(live.watch_state(), allow_nan=False))  # as stored
    resumed = TableSurveillance(SETUP)
    resumed.resume(kept)
    assert resumed.watch_state() == live.watch_state()
    from_live = [a for body in bodies[split:] for a in _decide(live, body)]
    from_resumed = [a for body in bodies[split:] for a in _decide(resumed, body)]
    assert from_resumed == from_live
    assert resumed.watch_state() == live.watch_state()
    assert resumed.watch.statistics() == live.watch.statistics()
    # What makes the comparison worth having: alerts of every kind after the split at
    # 600, and at 780 tests stopped while disarmed (they raised before it, not after).
    if split == 600:
        tests = {a["test"] for a in from_live}
        assert {"pocket", "dealer_signature", "pace", "rotor_direction", "drop_zone"} <= tests
    if split == 780:
        assert any(a["test"] == "pocket" for a in before)
        assert not kept["watch"]["pocket"]["armed"]
        assert not kept["dealers"]["dealers"]["DL-1"]["armed"]


def test_results_replayed_after_a_saved_state_reach_every_test() -> None:
    """At a start, the results after the saved state go through every test (`every`),
    not only the pocket tests' last window as a replay of the whole record does."""
    bodies = _results(500, seed=8)
    live = TableSurveillance(SETUP)
    for body in bodies[:300]:
        _decide(live, body)
    resumed = TableSurveillance(SETUP)
    resumed.resume(json.loads(json.dumps(live.watch_state())))
    for body in bodies[300:]:
        _decide(live, body)
    history = [_recorded(seq, body) for seq, body in enumerate(bodies[300:], start=301)]
    assert resumed.warm_up(history, every=True) == 200
    assert resumed.watch_state() == live.watch_state()


def _recorded(seq: int, body: dict[str, Any]) -> WheelResult:
    """A result as the journal's reader gives it back (`floord.analytics.report`)."""
    number, dealer, release = str(body["number"]), body["dealer"], body["release_pocket"]
    return WheelResult(seq, "t", number, None, dealer, release, spin_record(body, "t"))


def _unfit_pocket(state: dict[str, Any]) -> dict[str, Any]:
    return {**state, "watch": {**state["watch"], "pocket": {"recent": [99], "armed": True}}}


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda s: {**s, "v": 2}, "another version"),
        (lambda s: {**s, "setup": "0" * 32}, "other surveillance settings"),
        (lambda s: {**s, "watch": {**s["watch"], "spins": -1}}, "sector test or count"),
        (_unfit_pocket, "window does not fit"),
        (lambda s: {**s, "physics": {**s["physics"], "rotor": None}}, "does not fit its tests"),
    ],
)
def test_a_state_that_does_not_fit_is_refused(change: Any, words: str) -> None:
    live = TableSurveillance(SETUP)
    for body in _results(50, seed=1):
        _decide(live, body)
    with pytest.raises(ValueError, match=words):
        TableSurveillance(SETUP).resume(change(live.watch_state()))


def _watcher(path: Path, **keep: Any) -> TableSurveillance:
    watcher = TableSurveillance(SETUP)
    after, taken = watch_state.taken_up(watcher, path, TABLE)
    if not taken:
        watcher = TableSurveillance(SETUP)
    from floord.analytics.report import journal_results

    watcher.warm_up(journal_results(path, TABLE, None, after=after), every=taken)
    return watcher


def _numbers(n: int) -> list[str]:
    rng = random.Random(n)
    return [rng.choice(ORDER) for _ in range(n)]


def test_the_journal_keeps_it_at_the_head_and_a_start_takes_it(tmp_path: Path) -> None:
    path, _ = played(tmp_path, _numbers(400), after=0)
    first = _watcher(path)
    journal = Journal(path)
    try:
        head = journal.last_seq(TABLE)
        watch_state.save(journal, TABLE, first)
    finally:
        journal.close()
    kept = saved_watch(path, TABLE)
    assert isinstance(kept, SavedWatch) and kept.after_seq == head
    assert kept.state == json.loads(json.dumps(first.watch_state()))
    again = TableSurveillance(SETUP)
    assert watch_state.taken_up(again, path, TABLE) == (head, True)
    assert again.watch_state() == first.watch_state()


def _saved(tmp: Path) -> Path:
    path, _ = played(tmp, _numbers(300), after=0)
    journal = Journal(path)
    try:
        watch_state.save(journal, TABLE, _watcher(path))
    finally:
        journal.close()
    return path


def _edit(path: Path, sql: str, *args: Any) -> None:
    db = sqlite3.connect(path)
    db.execute(sql, args)
    db.commit()
    db.close()


AT_ITS_EVENT = "WHERE seq = (SELECT after_seq FROM watch_states)"
DAMAGES = [
    ("UPDATE watch_states SET state = replace(state, 'true', 'false')", "its hash does not"),
    ("UPDATE watch_states SET state = 'not json'", "its state is not JSON"),
    ("UPDATE watch_states SET after_seq = after_seq + 5", "its hash does not match it"),
    (
        f'UPDATE events SET body = replace(body, \'"hash":"\', \'"hash":"0\') {AT_ITS_EVENT}',
        "has another hash",
    ),
    (f"DELETE FROM events {AT_ITS_EVENT}", "not on the record (pruned)"),
    ("UPDATE streams SET last_seq = 3", "record ends before"),
]


@pytest.mark.parametrize(("damage", "reason"), DAMAGES)
def test_a_saved_state_the_chain_does_not_vouch_for_is_replayed_instead(
    tmp_path: Path, damage: str, reason: str
) -> None:
    path = _saved(tmp_path)
    whole = _watcher(path)  # taken up
    _edit(path, damage)
    found = saved_watch(path, TABLE)
    assert isinstance(found, str) and reason in found, found
    with structlog.testing.capture_logs() as logs:
        after, taken = watch_state.taken_up(TableSurveillance(SETUP), path, TABLE)
    assert (after, taken) == (0, False)
    [line] = [e for e in logs if e["event"] == "live tests refilled from the whole record"]
    assert reason in line["reason"] and line["table"] == TABLE
    assert whole.watch.pocket.counts  # the state it would have taken was a real one


def test_a_start_keeps_what_it_replayed_and_the_next_start_takes_it_up(tmp_path: Path) -> None:
    """The daemon's own start (`floord.processes.table_watchers`): the first replays the
    record and keeps the tests; the next takes them up and replays none, so keeps none."""
    path, _ = played(tmp_path, _numbers(300), after=0)
    with structlog.testing.capture_logs() as logs:
        daemon = start(tmp_path, 5)
    [line] = [e for e in logs if e["event"] == "live tests replayed"]
    assert line == {
        "event": "live tests replayed",
        "log_level": "info",
        "table": TABLE,
        "what": "results",
        "count": 300,
        "after_seq": None,
        "taken_up": False,
    }
    try:
        first = daemon.tables[TABLE].runner.surveillance
        assert isinstance(first, TableSurveillance)
        kept = saved_watch(path, TABLE)
        assert isinstance(kept, SavedWatch)
        assert kept.state == json.loads(json.dumps(first.watch_state()))
    finally:
        daemon.journal.close()
    with structlog.testing.capture_logs() as logs:
        daemon = start(tmp_path, 6)
    try:
        again = daemon.tables[TABLE].runner.surveillance
        assert isinstance(again, TableSurveillance)
        assert again.watch_state() == first.watch_state()
        assert saved_watch(path, TABLE) == kept  # nothing replayed: nothing kept again
    finally:
        daemon.journal.close()
    assert not [e for e in logs if e["event"].startswith("live tests")]  # none replayed


def test_retiring_a_table_drops_its_saved_tests(tmp_path: Path) -> None:
    path = _saved(tmp_path)
    journal = Journal(path)
    try:
        journal.append_many(TABLE, [], drop_snapshot=TABLE)
    finally:
        journal.close()
    assert saved_watch(path, TABLE) == "none saved"
