"""What a `roulette.result` carries of the spin for the pace and spin physics tests: the
time it was decided, the rotor's direction and speed as the game began, and from a
sensor kit the ball's revolutions and its speed from the times of its laps (a relaunch
times its laps again). An SS2 counts no laps: those are null."""

from __future__ import annotations

from datetime import timedelta

import pytest
from test_engine_support import make_table, only

from floord.contract import EventType, format_ts

pytestmark = pytest.mark.unit

W = EventType


def test_a_kit_spin_carries_its_rotor_laps_and_ball_speed() -> None:
    t = make_table("single_zero")
    t.open()
    t.device(
        W.WHEEL_GAME_STARTED, {"spin": 1, "state": 1, "rotor_direction": "ccw", "rotor_rpm": 18.4}
    )
    launch = {"spin": 1, "rotor_direction": "ccw", "rotor_rpm": 18.4, "ball_direction": "cw"}
    t.device(W.WHEEL_BALL_LAUNCHED, launch)
    t.device(W.WHEEL_BALL_REVOLUTIONS, {"spin": 1, "count": 1})  # a launch the dealer
    t.device(W.WHEEL_BALL_LAUNCHED, launch)  # catches and spins again: timed again
    for n in range(1, 9):
        t.clock.now += timedelta(seconds=0.3)  # 0.8 s a lap, with the 0.5 s of each step
        t.device(W.WHEEL_BALL_REVOLUTIONS, {"spin": 1, "count": n})
    out = t.device(W.WHEEL_NUMBER, {"spin": 1, "number": "17", "origin": "sensor"})
    data = only(out, W.ROULETTE_RESULT).data
    assert data["at"] == format_ts(t.clock.now)
    assert (data["rotor_direction"], data["rotor_rpm"]) == ("ccw", 18.4)
    assert data["ball_revolutions"] == 8 and data["ball_rps"] == 1.25  # 7 laps in 5.6 s


def test_an_ss2_spin_has_no_laps_and_one_lap_gives_no_speed() -> None:
    t = make_table("single_zero")
    t.open()
    data = only(t.spin("5", spin=1), W.ROULETTE_RESULT).data
    assert data["ball_revolutions"] is None and data["ball_rps"] is None
    assert data["rotor_direction"] in ("cw", "ccw")
    t.device(
        W.WHEEL_GAME_STARTED, {"spin": 2, "state": 1, "rotor_direction": "cw", "rotor_rpm": 17.0}
    )
    t.device(
        W.WHEEL_BALL_LAUNCHED,
        {"spin": 2, "rotor_direction": "cw", "rotor_rpm": 17.0, "ball_direction": "ccw"},
    )
    for n in (1, 4, 5, 6):  # a count may skip: a lost frame
        t.device(W.WHEEL_BALL_REVOLUTIONS, {"spin": 2, "count": n})
    out = t.device(W.WHEEL_NUMBER, {"spin": 2, "number": "0", "origin": "sensor"})
    assert only(out, W.ROULETTE_RESULT).data["ball_rps"] == round(5 / 1.5, 4)
