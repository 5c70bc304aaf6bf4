"""Rounds and results: round ids, `roulette.result` with every winning wager (§ 531.5)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from test_engine_support import TABLE, WHEEL, Clock, make_table, only, types

from floord.contract import EventType
from floord.engine.roulette.layout import offered_wagers, winning_wagers

pytestmark = pytest.mark.unit


def test_a_round_opens_on_game_started_and_ends_on_the_number() -> None:
    t = make_table()
    t.open()
    out = t.spin("17", spin=11)
    assert types(out) == ["round.started", "roulette.result", "round.ended"]
    started, result, ended = out.events
    round_id = f"{TABLE}-2024-03-05-0001"
    assert {started.round, result.round, ended.round} == {round_id}
    assert started.data["opened_by"] == "wheel.game_started" and started.data["spin"] == 11
    assert result.rule == "58 Pa. Code § 531.5(a)"
    assert result.data["number"] == "17" and result.data["colour"] == "black"
    assert result.data["pocket_index"] == 8
    assert result.data["losing_even_money"] is False and result.data["even_money_rule"] is None
    assert result.data["winning_wagers"] == [
        w.to_dict() for w in winning_wagers("single_zero", "17")
    ]
    straight = result.data["winning_wagers"][0]
    assert straight == {
        "wager": "straight",
        "numbers": ["17"],
        "odds": "35 to 1",
        "rule": "58 Pa. Code § 531.4(e)(1)",
    }
    assert ended.data == {"number": "17", "outcome": "result", "spin": 11}
    assert t.engine.current_round is None
    assert t.engine.snapshot()["last_result"]["number"] == "17"


def test_round_numbers_count_per_gaming_day() -> None:
    t = make_table(clock=Clock(datetime(2024, 3, 6, 10, 0, tzinfo=UTC)))  # 05:00 EST, day 5 Mar
    t.open()
    assert t.spin("1", 1).events[0].round == f"{TABLE}-2024-03-05-0001"
    assert t.spin("2", 2).events[0].round == f"{TABLE}-2024-03-05-0002"
    t.clock.now = datetime(2024, 3, 6, 11, 0, tzinfo=UTC)  # 06:00 EST: gaming day 6 March
    t.engine.tick(t.clock.now)
    assert t.engine.snapshot()["gaming_day"] == "2024-03-06"
    assert t.spin("3", 3).events[0].round == f"{TABLE}-2024-03-06-0001"


def test_a_round_opens_on_ball_launched_when_none_is_open() -> None:
    t = make_table()
    t.open()
    out = t.launch(spin=4)
    assert types(out) == ["round.started"]
    assert out.events[0].data["opened_by"] == "wheel.ball_launched"
    assert t.engine.current_round == out.events[0].round
    assert types(t.device(EventType.WHEEL_NO_MORE_BETS, {"spin": 4})) == []
    assert types(t.number("5", spin=4)) == ["roulette.result", "round.ended"]


def test_a_repeated_game_started_for_the_same_spin_is_one_round() -> None:
    t = make_table()
    t.open()
    first = t.device(EventType.WHEEL_GAME_STARTED, {"spin": 7, "state": 1})
    again = t.device(EventType.WHEEL_GAME_STARTED, {"spin": 7, "state": 2})
    assert types(first) == ["round.started"] and types(again) == []


def test_a_new_game_without_a_number_voids_the_old_round() -> None:
    t = make_table()
    t.open()
    old = t.device(EventType.WHEEL_GAME_STARTED, {"spin": 7, "state": 2}).events[0].round
    out = t.device(EventType.WHEEL_GAME_STARTED, {"spin": 8, "state": 2})
    assert types(out) == ["round.voided", "round.started"]
    assert out.events[0].round == old and out.events[0].data["reason"] == "superseded"
    assert out.events[0].rule is None and out.events[0].data["policy"]


def test_zero_loses_the_even_money_wagers_531_5_b() -> None:
    for wheel, number in (("single_zero", "0"), ("double_zero", "0"), ("double_zero", "00")):
        t = make_table(wheel)
        t.open()
        result = only(t.spin(number), EventType.ROULETTE_RESULT)
        assert result.data["losing_even_money"] is True
        assert result.data["even_money_rule"] == "58 Pa. Code § 531.5(b)"
        assert result.data["even_money_wagers_lost"] == [
            "red",
            "black",
            "odd",
            "even",
            "1-18",
            "19-36",
        ]
        assert result.data["colour"] == "green"


def test_zero_on_a_double_zero_wheel_used_as_single_cites_531_5_c_3() -> None:
    t = make_table("double_zero_as_single")
    t.open()
    result = only(t.spin("0"), EventType.ROULETTE_RESULT)
    assert result.data["even_money_rule"] == "58 Pa. Code § 531.5(c)(3)"
    assert not any("00" in w["numbers"] for w in result.data["winning_wagers"])
    assert result.data["pocket_index"] == 0


def test_double_zero_on_a_wheel_used_as_single_is_no_spin_531_5_c_2() -> None:
    t = make_table("double_zero_as_single")
    t.open()
    out = t.spin("00", spin=3)
    assert types(out) == ["round.started", "roulette.no_spin", "round.voided"]
    no_spin, voided = out.events[1:]
    rule = "58 Pa. Code § 531.5(c)(2)"
    assert no_spin.rule == rule and voided.rule == rule
    assert no_spin.data["reason"] == "double_zero_on_single_zero"
    assert no_spin.data["respin"] is True and no_spin.data["inspect_ball"] is False
    assert no_spin.data["number"] == "00" and no_spin.data["announce"] == "no spin"
    assert voided.round == no_spin.round == out.events[0].round
    assert [(c.device, c.name) for c in out.device_commands] == [(WHEEL, "respin")]
    # The re-spin is a new round with its own result.
    again = t.spin("5", spin=4)
    assert types(again) == ["round.started", "roulette.result", "round.ended"]
    assert again.events[0].round.endswith("-0002")


def test_spins_while_closed_produce_one_violation_per_spin_531_3_f() -> None:
    t = make_table()
    t.connect()
    out = t.spin("17", spin=5)
    assert types(out) == ["procedure.violation"]
    violation = out.events[0]
    assert violation.data["what"] == "spin_while_not_open" and violation.data["state"] == "closed"
    assert violation.rule == "58 Pa. Code § 531.3(f)" and violation.round is None
    assert types(t.launch(spin=5)) == []  # a relaunch of the same spin
    assert types(t.launch(spin=6)) == ["procedure.violation"]
    assert t.engine.snapshot()["last_result"] is None


def test_spins_while_halted_produce_no_round_and_no_result() -> None:
    t = make_table()
    t.open()
    t.device(EventType.DEVICE_FAULT, {"code": 5, "text": "motor", "origin": "fault_line"})
    out = t.spin("17", spin=9)
    assert types(out) == ["procedure.violation"]
    assert out.events[0].data["state"] == "halted" and out.events[0].rule is None
    assert out.events[0].data["policy"]
    assert t.engine.current_round is None


def test_losing_wagers_are_collected_before_winners_are_paid_531_6_d() -> None:
    """58 Pa. Code § 531.6(d): "After placing the point marker on the layout, the dealer
    shall first collect all losing wagers and then pay off all winning wagers."

    The result carries that order: step 1 collects every losing wager position of the
    layout, step 2 pays the winners the result lists.
    """
    for wheel, number in (("single_zero", "17"), ("double_zero", "00"), ("single_zero", "0")):
        t = make_table(wheel)
        t.open()
        result = only(t.spin(number), EventType.ROULETTE_RESULT)
        collect, pay = result.data["settlement"]
        assert [(s["step"], s["action"], s["of"]) for s in (collect, pay)] == [
            (1, "collect", "losing_wagers"),
            (2, "pay", "winning_wagers"),
        ]
        winners = len(result.data["winning_wagers"])
        assert pay["count"] == winners > 0
        assert collect["count"] == len(offered_wagers(wheel)) - winners > 0
        assert result.data["settlement_rule"] == "58 Pa. Code § 531.6(d)"
