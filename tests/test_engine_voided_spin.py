"""A voided spin never gets a result, whatever the order of reconnect, launch and resume.

The case: the daemon restarted while a spin was in its betting phase, voided
its round (`daemon_restart`), the wheel reconnected and launched the ball, and the
launch opened a new round for the same spin that went on to a result. A spin declared
void stays void unless its void called for that spin to be spun again: a ball spun
with the rotor (§ 531.7(a)) or a 00 on a double-zero wheel used as single zero
(§ 531.5(c)(2)). That is floord's policy (`docs/rules.md`, "A voided spin stays void").
"""

from __future__ import annotations

import json

import pytest
from test_engine_support import Table, make_table, types

from floord.contract import EventType
from floord.engine.roulette.voids import VOIDED_SPIN_POLICY

pytestmark = pytest.mark.unit

W = EventType


def _restarted(t: Table) -> Table:
    snap = json.loads(json.dumps(t.engine.snapshot()))  # as stored: JSON
    new = make_table(t.wheel, snapshot=snap, clock=t.clock)
    new.engine.after_restart(new.clock.step())
    return new


def _betting(t: Table, spin: int) -> str:
    out = t.device(W.WHEEL_GAME_STARTED, {"spin": spin, "state": 2, "rotor_direction": "cw"})
    assert types(out) == ["round.started"]
    return out.events[0].round


def _refused_launch(t: Table, spin: int, voided_round: str, reason: str) -> None:
    out = t.launch(spin)
    assert types(out) == ["procedure.violation"]
    refusal = out.events[0]
    assert refusal.data["what"] == "launch_after_void" and refusal.rule is None
    assert refusal.data["policy"] == VOIDED_SPIN_POLICY
    assert refusal.data["voided_round"] == voided_round
    assert refusal.data["voided_reason"] == reason
    assert t.engine.current_round is None


def _no_result_then_next_spin_plays(t: Table, spin: int) -> None:
    assert types(t.device(W.WHEEL_NO_MORE_BETS, {"spin": spin})) == []
    late = t.number("19", spin)
    assert types(late) == ["procedure.violation"]
    assert late.events[0].data["what"] == "number_after_void"
    assert types(t.spin("7", spin + 1)) == [
        "round.started",
        "roulette.result",
        "round.ended",
    ]


def test_a_restart_in_the_betting_phase_then_reconnect_then_launch_gives_no_result() -> None:
    t = make_table()
    t.open()
    t.spin("4", 19)
    round_id = _betting(t, 20)
    after = _restarted(t)
    assert after.engine.snapshot()["voided"]["round"] == round_id
    after.connect()  # the wheel reconnects before the ball is launched
    _refused_launch(after, 20, round_id, "daemon_restart")
    _no_result_then_next_spin_plays(after, 20)


def test_the_launch_before_the_reconnect_is_refused_too() -> None:
    t = make_table()
    t.open()
    round_id = _betting(t, 20)
    after = _restarted(t)
    _refused_launch(after, 20, round_id, "daemon_restart")
    after.connect()
    _no_result_then_next_spin_plays(after, 20)


def test_a_halt_resumed_before_the_launch_gives_no_result() -> None:
    t = make_table()
    t.open()
    round_id = _betting(t, 20)
    halted = t.device(W.DEVICE_OFFLINE, {"reason": "eof"})
    assert "round.voided" in types(halted)
    t.connect()
    resumed = t.command("resume", {"reason": "wheel cable reseated"})
    assert resumed.ok, resumed.error
    _refused_launch(t, 20, round_id, "table_halted")
    _no_result_then_next_spin_plays(t, 20)


def test_a_spin_voided_by_a_close_stays_void_after_reopening() -> None:
    t = make_table()
    t.open()
    round_id = _betting(t, 20)
    assert t.command("close").ok
    assert t.inspect().ok  # every opening is preceded by an inspection (§ 531.3(a), (f))
    assert t.command("open").ok
    _refused_launch(t, 20, round_id, "table_closed")
    _no_result_then_next_spin_plays(t, 20)


def test_a_restart_during_a_same_direction_respin_voids_the_respin_too() -> None:
    t = make_table()
    t.open()
    _betting(t, 3)
    t.launch(3)
    assert "round.voided" in types(t.warning(["same_direction"], 3))
    # The re-spin is the same spin: its launch opens a round that counts ...
    respun = t.launch(3)
    assert types(respun) == ["round.started"]
    # ... unless the daemon restarts before its result: then the re-spin is void too.
    after = _restarted(after_launch := t)
    assert after_launch.engine.current_round == respun.events[0].round
    after.connect()
    _refused_launch(after, 3, respun.events[0].round, "daemon_restart")
    _no_result_then_next_spin_plays(after, 3)


def test_a_re_spin_is_one_launch_and_counts_once() -> None:
    t = make_table("double_zero_as_single")
    t.open()
    _betting(t, 8)
    t.launch(8)
    t.device(W.WHEEL_NO_MORE_BETS, {"spin": 8})
    no_spin = t.number("00", 8)
    assert types(no_spin) == ["roulette.no_spin", "round.voided"]
    assert [c.name for c in no_spin.device_commands] == ["respin"]
    assert types(t.launch(8)) == ["round.started"]
    t.device(W.WHEEL_NO_MORE_BETS, {"spin": 8})
    assert types(t.number("12", 8)) == ["roulette.result", "round.ended"]
    # Another launch of spin 8 is no second re-spin: the spin has had its result.
    assert t.launch(8).events[0].data["what"] == "launch_after_void"


def test_a_re_spin_survives_a_restart_between_the_void_and_the_launch() -> None:
    t = make_table("double_zero_as_single")
    t.open()
    _betting(t, 8)
    t.launch(8)
    t.device(W.WHEEL_NO_MORE_BETS, {"spin": 8})
    assert types(t.number("00", 8)) == ["roulette.no_spin", "round.voided"]
    after = _restarted(t)  # no round in play: nothing more is voided
    after.connect()
    assert types(after.launch(8)) == ["round.started"]
    after.device(W.WHEEL_NO_MORE_BETS, {"spin": 8})
    assert types(after.number("12", 8)) == ["roulette.result", "round.ended"]


def test_a_new_game_reusing_a_voided_number_is_a_new_round() -> None:
    # Spin numbers are the wheel's: an SS2 counts games modulo 256 and a sensor kit's
    # driver counts again from 1 after a restart. A new game is `wheel.game_started`.
    t = make_table()
    t.open()
    _betting(t, 20)
    after = _restarted(t)
    after.connect()
    assert types(after.spin("11", 20)) == ["round.started", "roulette.result", "round.ended"]
