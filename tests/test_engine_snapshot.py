"""Snapshots and restarts, the citation discipline, and the engine's purity."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from test_engine_support import TABLE, WHEEL, make_table, types

from floord.contract import EventType
from floord.engine import SnapshotError
from floord.engine.core.types import Decision

pytestmark = pytest.mark.unit

ENGINE_DIR = Path(__file__).resolve().parent.parent / "floord" / "engine"


def _restarted(t, wheel: str = "single_zero"):
    snap = json.loads(json.dumps(t.engine.snapshot()))  # as stored: JSON
    return make_table(wheel, snapshot=snap, clock=t.clock)


def _untimed(data: dict) -> dict:
    return {k: v for k, v in data.items() if k != "at"}


def test_snapshot_has_the_state_topic_fields_and_is_json() -> None:
    t = make_table()
    t.open()
    t.spin("32")
    snap = json.loads(json.dumps(t.engine.snapshot()))
    for key in ("table", "state", "halt_reasons", "devices", "gaming_day", "inspection", "round"):
        assert key in snap
    assert snap["table"] == TABLE and snap["state"] == "open" and snap["wheel"] == "single_zero"
    assert snap["gaming_day"] == "2024-03-05" and snap["round"] is None
    assert snap["last_result"]["number"] == "32" and snap["last_result"]["colour"] == "red"
    assert snap["devices"][WHEEL]["online"] is True


def test_snapshot_round_trip_behaves_the_same() -> None:
    a = make_table()
    a.open()
    a.spin("1", 1)
    a.device(EventType.WHEEL_GAME_STARTED, {"spin": 2, "state": 2})
    a.launch(2)
    b = _restarted(a)
    assert b.engine.snapshot() == a.engine.snapshot()
    assert b.engine.current_round == a.engine.current_round == f"{TABLE}-2024-03-05-0002"
    # Without a restart in between (no after_restart), the round goes on to its result.
    for table in (a, b):
        table.device(EventType.WHEEL_NO_MORE_BETS, {"spin": 2})
    out_a, out_b = a.number("9", 2), b.number("9", 2)
    # The same decisions; the result's `at` is each table's own moment (the shared test
    # clock steps between the two numbers).
    assert [(d.type, _untimed(d.data), d.rule, d.round) for d in out_a.events] == [
        (d.type, _untimed(d.data), d.rule, d.round) for d in out_b.events
    ]
    assert types(out_b) == ["roulette.result", "round.ended"]
    assert b.spin("4", 3).events[0].round == f"{TABLE}-2024-03-05-0003"


def test_after_restart_voids_the_open_round_and_forgets_connections() -> None:
    a = make_table()
    a.open()
    round_id = a.launch(5).events[0].round
    b = _restarted(a)
    out = b.engine.after_restart(b.clock.step())
    assert types(out) == ["round.voided"]
    voided = out.events[0]
    assert voided.round == round_id and voided.rule is None
    assert voided.data["reason"] == "daemon_restart"
    assert voided.data["detail"] == "the result was not observed by floord"
    assert "restart rule" in voided.data["policy"]
    snap = b.engine.snapshot()
    assert snap["devices"][WHEEL]["online"] is False and snap["state"] == "open"
    assert b.engine.current_round is None
    # The number of the voided spin is no result; the next game is a new round.
    b.connect()
    b.device(EventType.WHEEL_NO_MORE_BETS, {"spin": 5})
    assert b.number("7", 5).events[0].data["what"] == "number_after_void"
    assert b.spin("8", 6).events[0].round == f"{TABLE}-2024-03-05-0002"


def test_a_halt_stays_latched_across_a_restart() -> None:
    a = make_table()
    a.open()
    a.device(EventType.DEVICE_FAULT, {"code": 5, "text": "motor"})
    b = _restarted(a)
    assert types(b.engine.after_restart(b.clock.step())) == []
    assert b.engine.snapshot()["state"] == "halted"
    b.connect()  # the daemon's restart is not the wheel reconnecting: the fault stands
    assert b.engine.snapshot()["devices"][WHEEL]["fault"]["code"] == 5
    assert "active fault (motor)" in b.command("resume", {"reason": "try"}).error
    b.device(EventType.DEVICE_OFFLINE, {})  # the wheel itself goes away and comes back
    b.connect()
    assert b.engine.snapshot()["devices"][WHEEL]["fault"] is None
    assert b.engine.snapshot()["state"] == "halted"  # only resume lifts the halt
    assert types(b.launch(9)) == ["procedure.violation"]
    assert b.command("resume", {"reason": "motor replaced"}).ok
    assert types(b.spin("3", 10))[-1] == "round.ended"


def test_a_snapshot_of_another_table_or_wheel_is_refused() -> None:
    snap = make_table().engine.snapshot()
    with pytest.raises(SnapshotError, match="wheel 'single_zero'"):
        make_table("double_zero", snapshot=snap)
    with pytest.raises(SnapshotError, match="version"):
        make_table(snapshot={**snap, "version": 99})
    with pytest.raises(SnapshotError, match="underlying"):
        make_table(snapshot={**snap, "underlying": "ajar"})


def _scenario() -> list[Decision]:
    """Every kind of decision the engine makes, on every wheel kind."""
    decisions: list[Decision] = []
    for wheel in ("single_zero", "double_zero", "double_zero_as_single"):
        t = make_table(wheel)
        steps = [t.launch(1)]
        t.connect()
        steps.append(t.inspect(parts_secure=False).output)
        steps.append(t.inspect().output)
        steps.append(t.command("open").output)
        steps += [t.spin("0", 2), t.spin("00", 3), t.spin("17", 4), t.number("5", 5)]
        for flags in (["same_direction"], ["failed_launch"], ["ball_not_detected"]):
            t.launch(6)
            steps.append(t.warning(flags, 6))
        t.launch(7)
        steps.append(t.device(EventType.WHEEL_GAME_STARTED, {"spin": 8, "state": 2}))
        steps.append(t.device(EventType.WHEEL_IDLE, {"spin": 8}))
        t.launch(9)
        steps.append(t.device(EventType.DEVICE_FAULT, {"code": 5, "text": "motor"}))
        steps.append(t.launch(10))
        steps.append(t.connect(pockets=36))
        steps.append(t.command("close").output)
        steps.append(t.engine.after_restart(t.clock.step()))
        decisions += [d for out in steps for d in out.events]
    return decisions


def test_every_decision_under_a_regulation_carries_its_citation() -> None:
    decisions = _scenario()
    seen = {str(d.type) for d in decisions}
    assert {"roulette.result", "roulette.no_spin", "round.voided", "table.halted"} <= seen
    assert {"procedure.violation", "operator.inspection", "table.opened"} <= seen
    for d in decisions:
        if "58 Pa. Code" in json.dumps(d.data, ensure_ascii=False):
            assert d.rule is not None, d
        if d.rule is not None:
            assert d.rule.startswith("58 Pa. Code § 5"), d
        if d.type in (EventType.ROULETTE_NO_SPIN, EventType.ROULETTE_RESULT):
            assert d.rule is not None, d
        if d.rule is None and d.type in (
            EventType.TABLE_HALTED,
            EventType.ROUND_VOIDED,
            EventType.PROCEDURE_VIOLATION,
        ):
            assert "policy" in d.data and "not a regulation" in d.data["policy"], d


def test_the_engine_reads_no_clock_and_does_no_io() -> None:
    banned_modules = {"time", "asyncio", "socket", "sqlite3", "serial", "aiomqtt", "os", "io"}
    banned_calls = {"now", "utcnow", "today", "open", "monotonic"}
    for path in ENGINE_DIR.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                assert not {a.name.split(".")[0] for a in node.names} & banned_modules, path
            if isinstance(node, ast.ImportFrom) and node.module:
                assert node.module.split(".")[0] not in banned_modules, path
            if isinstance(node, ast.Call):
                func = node.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                assert name not in banned_calls, f"{path}: {name}()"
