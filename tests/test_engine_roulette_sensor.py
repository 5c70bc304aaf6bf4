"""No spin from a wheel sensor kit on a manual wheel: every case of 58 Pa. Code § 531.7,
on single-zero, double-zero and double-zero-used-as-single-zero wheels.

The events are those `drivers/flf1/wheel_sensor.py` makes (`docs/protocols/wheel-sensor.md`):
the rotor (`wheel.game_started`), the launch with the ball's direction, the ball's
revolutions, "no more bets", the pocket, the ball off the wheel, an object in it.
"""

from __future__ import annotations

import pytest
from test_engine_support import Table, make_table, only, types

from floord.contract import EventType

pytestmark = pytest.mark.unit

W = EventType
WHEELS = ["single_zero", "double_zero", "double_zero_as_single"]
NO_SPIN = ["roulette.no_spin", "round.voided"]


def _table(wheel: str) -> Table:
    t = make_table(wheel)
    t.open()
    return t


def rotor(t: Table, spin: int, direction: str = "cw") -> list[str]:
    data = {"spin": spin, "state": 1, "rotor_direction": direction, "rotor_rpm": 17.2}
    return types(t.device(W.WHEEL_GAME_STARTED, data))


def launch(t: Table, spin: int, ball: str = "ccw", rotor_direction: str = "cw"):
    data = {"spin": spin, "rotor_direction": rotor_direction, "rotor_rpm": 17.2,
            "ball_direction": ball}  # fmt: skip
    return t.device(W.WHEEL_BALL_LAUNCHED, data)


def laps(t: Table, spin: int, count: int) -> None:
    for n in range(1, count + 1):
        assert types(t.device(W.WHEEL_BALL_REVOLUTIONS, {"spin": spin, "count": n})) == []


def pocket(t: Table, spin: int, number: str):
    return t.device(W.WHEEL_NUMBER, {"spin": spin, "number": number, "origin": "sensor"})


def until_rest(t: Table, spin: int, revolutions: int) -> None:
    assert rotor(t, spin) == ["round.started"]
    assert types(launch(t, spin)) == []
    laps(t, spin, revolutions)
    assert types(t.device(W.WHEEL_NO_MORE_BETS, {"spin": spin})) == []


def _assert_no_spin(out, reason: str, paragraph: str, *, inspect_ball: bool):
    assert types(out) == NO_SPIN
    no_spin, voided = out.events
    assert no_spin.rule == voided.rule == f"58 Pa. Code § 531.7({paragraph})"
    assert no_spin.data["reason"] == voided.data["reason"] == reason
    assert no_spin.data["announce"] == "no spin"
    # A manual wheel is re-spun by the dealer: no device command.
    assert no_spin.data["respin"] is False and out.device_commands == []
    assert no_spin.data["inspect_ball"] is inspect_ball
    return no_spin


@pytest.mark.parametrize("wheel", WHEELS)
def test_a_clean_sensor_spin_is_a_result_and_four_revolutions_are_enough(wheel: str) -> None:
    t = _table(wheel)
    until_rest(t, 1, 8)
    out = pocket(t, 1, "17")
    assert types(out) == ["roulette.result", "round.ended"]
    result = only(out, W.ROULETTE_RESULT)
    assert result.data["origin"] == "sensor" and result.data["number"] == "17"
    until_rest(t, 2, 4)  # exactly four revolutions: a valid spin (§ 531.7(b))
    assert types(pocket(t, 2, "0")) == ["roulette.result", "round.ended"]
    # After the rest, the dealer lifting the ball out (OFF) or marking the number (an
    # object) is not a no-spin: § 531.7(c) is "during the spin", (d) "prior to ... rest".
    assert types(t.device(W.WHEEL_BALL_OFF, {"spin": 2})) == []
    assert types(t.device(W.WHEEL_FOREIGN_OBJECT, {"spin": 2})) == []
    assert t.engine.snapshot()["last_result"]["number"] == "0"


@pytest.mark.parametrize("wheel", WHEELS)
def test_ball_spun_with_the_rotor_is_no_spin_531_7_a_and_the_dealer_respins(wheel: str) -> None:
    t = _table(wheel)
    assert rotor(t, 1, "ccw") == ["round.started"]
    no_spin = _assert_no_spin(
        launch(t, 1, ball="ccw", rotor_direction="ccw"), "same_direction", "a",
        inspect_ball=False,
    )  # fmt: skip
    assert no_spin.data["ball_direction"] == no_spin.data["rotor_direction"] == "ccw"
    # The dealer re-spins the ball the other way: a new round, and its result counts.
    relaunch = launch(t, 1, ball="cw", rotor_direction="ccw")
    assert types(relaunch) == ["round.started"]
    laps(t, 1, 6)
    t.device(W.WHEEL_NO_MORE_BETS, {"spin": 1})
    assert types(pocket(t, 1, "5")) == ["roulette.result", "round.ended"]


@pytest.mark.parametrize("wheel", WHEELS)
def test_a_launch_with_the_rotor_and_no_round_yet_is_also_531_7_a(wheel: str) -> None:
    t = _table(wheel)
    out = launch(t, 3, ball="cw", rotor_direction="cw")
    assert types(out) == ["round.started", *NO_SPIN]
    assert out.events[1].rule == "58 Pa. Code § 531.7(a)"
    late = pocket(t, 3, "9")
    assert types(late) == ["procedure.violation"] and late.events[0].data["what"] == (
        "number_after_void")  # fmt: skip


@pytest.mark.parametrize("wheel", WHEELS)
def test_under_four_revolutions_is_no_spin_531_7_b_and_no_result(wheel: str) -> None:
    t = _table(wheel)
    until_rest(t, 1, 3)
    no_spin = _assert_no_spin(pocket(t, 1, "0"), "too_few_revolutions", "b", inspect_ball=True)
    assert no_spin.data["revolutions"] == 3 and no_spin.data["number"] == "0"
    assert "four revolutions" in no_spin.data["detail"]
    assert t.engine.snapshot()["last_result"] is None and t.engine.current_round is None


@pytest.mark.parametrize("wheel", WHEELS)
def test_a_relaunch_in_the_round_counts_its_own_revolutions(wheel: str) -> None:
    t = _table(wheel)
    until_rest(t, 1, 9)
    assert types(launch(t, 1)) == []  # launched again in the same round
    laps(t, 1, 2)
    _assert_no_spin(pocket(t, 1, "2"), "too_few_revolutions", "b", inspect_ball=True)


@pytest.mark.parametrize("wheel", WHEELS)
def test_a_count_survives_a_snapshot(wheel: str) -> None:
    t = _table(wheel)
    until_rest(t, 1, 2)
    restored = make_table(wheel, snapshot=t.engine.snapshot(), clock=t.clock)
    assert restored.engine.snapshot()["round"]["ball_revolutions"] == 2
    _assert_no_spin(pocket(restored, 1, "1"), "too_few_revolutions", "b", inspect_ball=True)


@pytest.mark.parametrize("wheel", WHEELS)
def test_ball_off_the_wheel_is_no_spin_531_7_c_and_its_late_number_is_no_result(
    wheel: str,
) -> None:
    t = _table(wheel)
    until_rest(t, 1, 7)
    _assert_no_spin(t.device(W.WHEEL_BALL_OFF, {"spin": 1}), "ball_off_wheel", "c",
                    inspect_ball=True)  # fmt: skip
    assert types(t.device(W.WHEEL_BALL_OFF, {"spin": 1})) == []  # already void
    late = pocket(t, 1, "12")
    assert types(late) == ["procedure.violation"]
    assert late.events[0].data["what"] == "number_after_void"
    assert late.events[0].rule == "58 Pa. Code § 531.7(c)"


@pytest.mark.parametrize("wheel", WHEELS)
def test_a_foreign_object_is_no_spin_531_7_d_and_its_late_number_is_no_result(
    wheel: str,
) -> None:
    t = _table(wheel)
    assert rotor(t, 1) == ["round.started"]
    launch(t, 1)
    laps(t, 1, 2)
    _assert_no_spin(t.device(W.WHEEL_FOREIGN_OBJECT, {"spin": 1}), "foreign_object", "d",
                    inspect_ball=False)  # fmt: skip
    late = pocket(t, 1, "30")
    assert late.events[0].data["what"] == "number_after_void"
    assert late.events[0].rule == "58 Pa. Code § 531.7(d)"
    assert t.engine.snapshot()["last_result"] is None


def test_double_zero_rules_still_apply_to_a_sensor_spin() -> None:
    as_single = _table("double_zero_as_single")
    until_rest(as_single, 1, 8)
    out = pocket(as_single, 1, "00")
    assert types(out) == NO_SPIN and out.events[0].rule == "58 Pa. Code § 531.5(c)(2)"
    double = _table("double_zero")
    until_rest(double, 1, 8)
    assert only(pocket(double, 1, "00"), W.ROULETTE_RESULT).data["number"] == "00"
    single = _table("single_zero")
    until_rest(single, 1, 8)
    assert types(pocket(single, 1, "00")) == ["procedure.violation", "round.voided"]


def test_sensor_events_on_a_closed_table_decide_nothing() -> None:
    t = make_table()
    t.connect()
    for kind, data in (
        (W.WHEEL_BALL_REVOLUTIONS, {"spin": 1, "count": 1}),
        (W.WHEEL_BALL_OFF, {"spin": 1}),
        (W.WHEEL_FOREIGN_OBJECT, {"spin": 1}),
    ):
        assert types(t.device(kind, data)) == []  # fmt: skip
    out = launch(t, 1, ball="cw", rotor_direction="cw")
    assert types(out) == ["procedure.violation"]  # § 531.3(f), not a no-spin
    assert out.events[0].rule == "58 Pa. Code § 531.3(f)"


def test_the_signed_in_dealer_and_the_release_pocket_go_on_the_result() -> None:
    t = _table("double_zero")
    # Spins before any sign-in have no dealer; the kit without an encoder no release.
    until_rest(t, 1, 6)
    first = only(pocket(t, 1, "5"), W.ROULETTE_RESULT)
    assert first.data["dealer"] is None and first.data["release_pocket"] is None

    signed = t.command("dealer_in", by="DL-7", role="dealer")
    assert signed.ok and signed.output.events == []
    assert rotor(t, 2) == ["round.started"]
    # A sign-in mid-round is refused: the spin in play belongs to the dealer who spun it.
    refused = t.command("dealer_in", by="DL-8", role="dealer")
    assert not refused.ok and "between spins" in refused.error
    launched = {"spin": 2, "rotor_direction": "cw", "rotor_rpm": 17.2,
                "ball_direction": "ccw", "release_pocket": "00"}  # fmt: skip
    assert types(t.device(W.WHEEL_BALL_LAUNCHED, launched)) == []
    # A relaunch replaces the release: the launch that counts is the last.
    assert types(t.device(W.WHEEL_BALL_LAUNCHED, {**launched, "release_pocket": "27"})) == []
    laps(t, 2, 5)
    t.device(W.WHEEL_NO_MORE_BETS, {"spin": 2})
    restored = make_table("double_zero", snapshot=t.engine.snapshot(), clock=t.clock)
    result = only(pocket(restored, 2, "1"), W.ROULETTE_RESULT)
    assert result.data["dealer"] == "DL-7" and result.data["release_pocket"] == "27"
    assert restored.engine.snapshot()["dealer"] == "DL-7"
    assert not t.command("dealer_in", {"table": "x"}, by="DL-7", role="dealer").ok


@pytest.mark.parametrize("wheel", WHEELS)
def test_ten_laps_and_a_lost_no_more_bets_is_a_result_531_7_b(wheel: str) -> None:
    """§ 531.7(b): "If the Roulette ball does not complete four revolutions around the
    track of the wheel, the dealer shall announce 'no spin.'" Ten counted laps are a
    valid spin: a "no more bets" frame floord lost is recorded as its own observation
    (policy, no citation), and the number is the result."""
    t = _table(wheel)
    assert rotor(t, 1) == ["round.started"]
    assert types(launch(t, 1)) == []
    laps(t, 1, 10)
    out = pocket(t, 1, "17")
    assert types(out) == ["table.warning", "roulette.result", "round.ended"]
    warning = out.events[0]
    assert warning.rule is None and warning.data["missing"] == ["wheel.no_more_bets"]
    assert only(out, W.ROULETTE_RESULT).data["number"] == "17"


@pytest.mark.parametrize("wheel", WHEELS)
def test_three_laps_without_a_launch_seen_is_no_spin_531_7_b(wheel: str) -> None:
    """§ 531.7(b): "If the Roulette ball does not complete four revolutions around the
    track of the wheel, the dealer shall announce 'no spin.'" Three counted laps void
    the spin under (b) whatever else floord missed."""
    t = _table(wheel)
    assert rotor(t, 1) == ["round.started"]
    laps(t, 1, 3)
    no_spin = _assert_no_spin(pocket(t, 1, "17"), "too_few_revolutions", "b", inspect_ball=True)
    assert no_spin.data["revolutions"] == 3
    assert no_spin.data["missing"] == ["wheel.ball_launched", "wheel.no_more_bets"]
