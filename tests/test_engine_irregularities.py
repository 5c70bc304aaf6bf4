"""No spin: the irregularities of § 531.7, each from the wheel signal that shows it."""

from __future__ import annotations

import pytest
from test_engine_support import WHEEL, make_table, types

from floord.contract import EventType

pytestmark = pytest.mark.unit


def _open_round(wheel: str = "single_zero"):
    t = make_table(wheel)
    t.open()
    t.device(EventType.WHEEL_GAME_STARTED, {"spin": 1, "state": 2})
    t.launch()
    return t


def test_ball_spun_with_the_wheel_is_no_spin_531_7_a_with_a_respin() -> None:
    t = _open_round()
    assert types(t.warning(["same_direction"], persistent=False)) == []
    out = t.warning(["same_direction"])
    assert types(out) == ["roulette.no_spin", "round.voided"]
    no_spin, voided = out.events
    assert no_spin.rule == voided.rule == "58 Pa. Code § 531.7(a)"
    assert no_spin.data["reason"] == "same_direction"
    assert no_spin.data["respin"] is True and no_spin.data["inspect_ball"] is False
    assert no_spin.data["flags"] == ["same_direction"] and no_spin.data["code"] == 2
    assert voided.data["reason"] == "same_direction"
    assert [(c.device, c.name) for c in out.device_commands] == [(WHEEL, "respin")]
    # The wheel re-spins the same game from state 2: a new round on the launch.
    assert types(t.launch()) == ["round.started"]


def test_failed_launch_is_no_spin_531_7_b_and_the_ball_is_inspected() -> None:
    t = _open_round()
    out = t.warning(["failed_launch"])
    assert types(out) == ["roulette.no_spin", "round.voided"]
    assert out.events[0].rule == out.events[1].rule == "58 Pa. Code § 531.7(b)"
    assert out.events[0].data["respin"] is False and out.events[0].data["inspect_ball"] is True
    assert "four revolutions" in out.events[0].data["detail"]
    assert out.device_commands == []


def test_ball_not_detected_is_no_spin_531_7_c_and_says_531_7_d_is_possible() -> None:
    t = _open_round()
    t.device(EventType.WHEEL_NO_MORE_BETS, {"spin": 1})
    out = t.warning(["ball_not_detected"], state=4)
    assert types(out) == ["roulette.no_spin", "round.voided"]
    no_spin = out.events[0]
    assert no_spin.rule == "58 Pa. Code § 531.7(c)" and no_spin.data["reason"] == "ball_left_wheel"
    assert no_spin.data["inspect_ball"] is True and no_spin.data["respin"] is False
    assert no_spin.data["also_possible"]["rule"] == "58 Pa. Code § 531.7(d)"
    # The same warning again, and the ball's late number, publish nothing as a result.
    assert types(t.warning(["ball_not_detected"], state=4)) == []
    late = t.number("12")
    assert types(late) == ["procedure.violation"]
    assert late.events[0].data["what"] == "number_after_void"
    assert late.events[0].rule == "58 Pa. Code § 531.7(c)"


def test_a_number_without_launch_and_no_more_bets_stands_and_the_gap_is_policy_531_7_b() -> None:
    """§ 531.7(b): "If the Roulette ball does not complete four revolutions around the
    track of the wheel, the dealer shall announce 'no spin.'" Only that voids. A launch
    and "no more bets" floord did not see are its own observation: recorded as policy,
    uncited, and the number stands (this test once asserted a § 531.7(b) void)."""
    t = make_table()
    t.open()
    t.device(EventType.WHEEL_GAME_STARTED, {"spin": 2, "state": 2})
    out = t.number("17", spin=2)
    assert types(out) == ["table.warning", "roulette.result", "round.ended"]
    warning = out.events[0]
    assert warning.rule is None and "not a regulation" in warning.data["policy"]
    assert warning.data["what"] == "signals_not_seen"
    assert warning.data["missing"] == ["wheel.ball_launched", "wheel.no_more_bets"]
    assert warning.data["number"] == "17" and warning.round == out.events[1].round
    assert t.engine.snapshot()["last_result"]["number"] == "17"


def test_a_number_without_no_more_bets_stands_531_7_b() -> None:
    """§ 531.7(b) voids a ball that did "not complete four revolutions"; a "no more bets"
    floord missed is not that (this test once asserted a void)."""
    t = _open_round()
    out = t.number("17")
    assert types(out) == ["table.warning", "roulette.result", "round.ended"]
    assert out.events[0].data["missing"] == ["wheel.no_more_bets"]
    assert all(e.type != "roulette.no_spin" for e in out.events)


def test_a_number_with_no_round_at_all_is_no_result_under_policy() -> None:
    """No round was in play (floord saw no game start and no launch): nothing to settle.
    That is floord's policy, not § 531.7(b), which speaks of revolutions only."""
    t = make_table()
    t.open()
    out = t.number("17", spin=3)
    assert types(out) == ["procedure.violation"]
    event = out.events[0]
    assert event.round is None and event.rule is None
    assert event.data["what"] == "number_without_round" and "policy" in event.data
    assert t.engine.snapshot()["last_result"] is None


def test_a_number_of_another_spin_voids_the_round_under_policy() -> None:
    """A number for another spin than the round's is no result; floord's policy voids
    the round without a citation (no paragraph of § 531.7 speaks of it)."""
    t = _open_round()
    t.device(EventType.WHEEL_NO_MORE_BETS, {"spin": 1})
    out = t.number("17", spin=9)
    assert types(out) == ["round.voided"]
    assert out.events[0].rule is None and out.events[0].data["reason"] == "other_spin"


def test_an_impossible_number_is_a_violation_and_voids_the_round() -> None:
    t = _open_round()
    t.device(EventType.WHEEL_NO_MORE_BETS, {"spin": 1})
    out = t.number("00")
    assert types(out) == ["procedure.violation", "round.voided"]
    assert out.events[0].data["what"] == "impossible_number"
    assert out.events[0].rule == out.events[1].rule == "58 Pa. Code § 531.1(b)"
    assert types(t.device(EventType.WHEEL_NUMBER, {"spin": 1, "number": 17})) == [
        "procedure.violation"
    ]


def test_warnings_while_the_table_is_not_open_do_nothing() -> None:
    t = make_table()
    t.connect()
    assert types(t.warning(["same_direction"])) == []


def test_a_wheel_going_idle_mid_round_voids_it() -> None:
    t = _open_round()
    out = t.device(EventType.WHEEL_IDLE, {"spin": 1})
    assert types(out) == ["round.voided"]
    assert out.events[0].data["reason"] == "wheel_idle" and out.events[0].data["policy"]


def test_unknown_and_misrouted_device_events_are_recorded_as_violations() -> None:
    t = make_table()
    t.open()
    out = t.device("wheel.teleported", {})
    assert types(out) == ["procedure.violation"]
    assert out.events[0].data["what"] == "unknown_device_event"
    out = t.device(EventType.WHEEL_NUMBER, {"spin": 1, "number": "3"}, device="shoe-1")
    assert out.events[0].data["what"] == "wheel_event_from_other_device"
