"""A roulette table with a second source for its numbers (floord policy, docs/rules.md).

The wheel's number settles a round only when the second source (the dealer's signed
`call_result`, or another device's `wheel.number`) agrees within the window; a
disagreement holds the round (`result.disputed`) until a floorperson's `rule_result`;
silence past the window warns or holds as the table says. Virtual time throughout: the
window closes on the engine's ticks.
"""

from __future__ import annotations

from datetime import time
from typing import Any

import pytest
from test_engine_support import TABLE, WHEEL, Clock, Table, only, types

from floord.contract import EventType
from floord.engine import RouletteEngine
from floord.engine.core.second_source import SecondSource
from floord.engine.core.snapshots import SnapshotError
from floord.engine.core.types import Decision
from floord.table.result_alerts import held_results
from floord.table.surveillance import ResultAlerts

pytestmark = pytest.mark.unit

CAMERA = "camera-1"


def make(
    on_silence: str = "hold",
    *,
    device: str | None = None,
    window: float = 5.0,
    snapshot: dict[str, Any] | None = None,
    clock: Clock | None = None,
) -> Table:
    engine = RouletteEngine(
        TABLE,
        wheel="single_zero",
        wheel_device=WHEEL,
        required_devices=[WHEEL],
        gaming_day_starts=time(6, 0),
        timezone="America/New_York",
        snapshot=snapshot,
        second_source=SecondSource(device, window, on_silence),
    )
    return Table(engine, clock or Clock())


def call(t: Table, value: Any, by: str = "DL-1"):
    return t.command("call_result", {"value": value}, by=by, role="dealer")


def rule(t: Table, **args: Any):
    return t.command("rule_result", {"note": "video reviewed", **args})


def ticks(t: Table, seconds: float) -> list[str]:
    said: list[str] = []
    for _ in range(int(seconds / 0.5)):
        said += types(t.engine.tick(t.clock.step()))
    return said


def test_the_dealers_call_that_agrees_confirms_and_settles() -> None:
    t = make()
    t.open()
    spun = t.spin("17", spin=3)
    assert types(spun) == ["round.started"], "the number alone settles nothing"
    round_id = spun.events[0].round
    assert t.engine.current_round == round_id
    called = call(t, "17")
    assert called.ok, called.error
    assert types(called.output) == ["result.confirmed", "roulette.result", "round.ended"]
    confirmed = called.output.events[0]
    assert confirmed.rule is None and "policy" in confirmed.data
    assert confirmed.data["primary"]["source"] == WHEEL
    assert confirmed.data["second"] == {
        "source": "dealer_call",
        "value": "17",
        "at": confirmed.data["second"]["at"],
        "by": "DL-1",
    }
    assert only(called.output, EventType.ROULETTE_RESULT).data["number"] == "17"
    assert t.engine.current_round is None
    assert t.engine.snapshot()["result_check"]["pending"] is None


def test_a_call_before_the_number_is_matched_when_the_number_comes() -> None:
    t = make()
    t.open()
    t.device(EventType.WHEEL_GAME_STARTED, {"spin": 1, "state": 2})
    t.launch(1)
    t.device(EventType.WHEEL_NO_MORE_BETS, {"spin": 1})
    assert call(t, 8).ok, "floord cmd sends value=8 as a JSON number"
    out = t.number("8", 1)
    assert types(out) == ["result.confirmed", "roulette.result", "round.ended"]
    assert not call(t, "8").ok, "no round in play: nothing to call"


def test_a_call_long_before_the_number_does_not_count() -> None:
    t = make(window=2.0)
    t.open()
    t.device(EventType.WHEEL_GAME_STARTED, {"spin": 1, "state": 2})
    t.launch(1)
    t.device(EventType.WHEEL_NO_MORE_BETS, {"spin": 1})
    assert call(t, "8").ok
    t.clock.step(10)
    assert types(t.number("8", 1)) == [], "awaiting a call within the window"


def test_a_disagreement_holds_the_round_until_a_floorperson_rules() -> None:
    t = make()
    t.open()
    round_id = t.spin("17", spin=1).events[0].round
    called = call(t, "7")
    assert called.ok
    [disputed] = called.output.events
    assert disputed.type == EventType.RESULT_DISPUTED and disputed.round == round_id
    assert disputed.data["primary"]["value"] == "17"
    assert disputed.data["second"]["value"] == "7" and disputed.data["held"] is True
    assert t.engine.current_round == round_id
    assert t.engine.snapshot()["result_check"]["public"]["state"] == "disputed"
    assert ticks(t, 20) == [], "a held result waits, whatever the clock"
    assert not call(t, "17").ok, "the dealer cannot settle a dispute"
    # The wheel's next spin opens no round while the result is held.
    held = t.spin("4", spin=2)
    assert types(held) == ["procedure.violation"] * 3
    assert {d.data["what"] for d in held.events} == {"result_held"}
    assert t.engine.current_round == round_id
    other = make()
    other.open()
    assert not rule(other, round=round_id, value="7").ok, "nothing is held at that table"


def test_the_ruling_names_the_value_and_settles() -> None:
    t = make()
    t.open()
    round_id = t.spin("17", spin=1).events[0].round
    call(t, "7")
    for args, why in (
        ({"round": "R01-other", "value": "7"}, "round"),
        ({"round": round_id, "value": "37"}, "value"),
        ({"round": round_id, "value": "7", "note": ""}, "note"),
        ({"round": round_id, "value": "7", "void": True}, "both"),
    ):
        outcome = t.command("rule_result", {"note": "video", **args})
        assert not outcome.ok, why
        assert t.engine.current_round == round_id
    ruled = rule(t, round=round_id, value=7)
    assert ruled.ok, ruled.error
    assert types(ruled.output) == ["result.ruled", "roulette.result", "round.ended"]
    body = ruled.output.events[0].data
    assert body["value"] == "7" and body["by"] == "fp1" and body["role"] == "floorperson"
    assert body["agrees_with"] == ["second"] and body["held"] == "disputed"
    assert body["note"] == "video reviewed" and ruled.output.events[0].rule is None
    assert only(ruled.output, EventType.ROULETTE_RESULT).data["number"] == "7"
    assert types(t.spin("4", spin=2)) == ["round.started"], "play goes on"


def test_a_ruling_may_void_the_spin() -> None:
    t = make()
    t.open()
    round_id = t.spin("17", spin=1).events[0].round
    call(t, "7")
    ruled = rule(t, round=round_id, void=True)
    assert types(ruled.output) == ["result.ruled", "round.voided"]
    assert ruled.output.events[1].data["reason"] == "ruled_void"
    assert t.engine.current_round is None


def test_silence_with_warn_lets_the_number_stand() -> None:
    t = make("warn", window=3.0)
    t.open()
    t.spin("17", spin=1)
    assert ticks(t, 2.5) == []
    said = ticks(t, 1.0)
    assert said == ["result.silent", "roulette.result", "round.ended"]
    assert t.engine.current_round is None


def test_silence_with_hold_waits_for_a_ruling() -> None:
    t = make("hold", window=3.0)
    t.open()
    round_id = t.spin("17", spin=1).events[0].round
    t.clock.step(4)
    late = call(t, "17")
    assert not late.ok and "too late" in (late.error or "")
    out = t.engine.tick(t.clock.step())
    [silent] = out.events
    assert silent.type == EventType.RESULT_SILENT and silent.data["held"] is True
    assert silent.data["second_source"] == "dealer_call" and silent.data["on_silence"] == "hold"
    assert not call(t, "17").ok, "held: only a ruling settles it"
    ruled = rule(t, round=round_id, value="17")
    assert types(ruled.output) == ["result.ruled", "roulette.result", "round.ended"]
    assert ruled.output.events[0].data["agrees_with"] == ["primary"]
    assert ruled.output.events[0].data["held"] == "silent"


def test_a_device_as_second_source() -> None:
    t = make(device=CAMERA)
    t.open()
    round_id = t.spin("17", spin=1).events[0].round
    seen = t.device(EventType.WHEEL_GAME_STARTED, {"spin": 99}, device=CAMERA)
    assert types(seen) == [], "the camera's other events decide nothing"
    agreed = t.device(EventType.WHEEL_NUMBER, {"spin": 99, "number": "17"}, device=CAMERA)
    assert types(agreed) == ["result.confirmed", "roulette.result", "round.ended"]
    assert agreed.events[0].data["second"]["source"] == CAMERA
    assert not call(t, "17").ok, "the dealer's call is not this table's second source"
    t.spin("5", spin=2)
    disputed = t.device(EventType.WHEEL_NUMBER, {"number": "6"}, device=CAMERA)
    assert types(disputed) == ["result.disputed"]
    assert types(t.device(EventType.WHEEL_NUMBER, {"number": "5"}, device=CAMERA)) == []
    bad = t.device(EventType.WHEEL_NUMBER, {"number": "99"}, device=CAMERA)
    assert only(bad, EventType.PROCEDURE_VIOLATION).data["what"] == "impossible_result"
    assert t.engine.current_round != round_id


def test_a_held_result_survives_a_restart_and_a_halt_voids_it() -> None:
    t = make()
    t.open()
    round_id = t.spin("17", spin=1).events[0].round
    call(t, "7")
    again = make(snapshot=t.engine.snapshot(), clock=t.clock)
    assert types(again.engine.after_restart(t.clock.step())) == []
    assert again.engine.current_round == round_id
    assert again.engine.snapshot()["result_check"]["pending"]["state"] == "disputed"
    halted = again.device(EventType.DEVICE_OFFLINE, {"reason": "unplugged"})
    assert "round.voided" in types(halted)
    assert again.engine.snapshot()["result_check"]["pending"] is None


def test_a_table_without_a_second_source_refuses_the_commands() -> None:
    from test_engine_support import make_table

    t = make_table()
    t.open()
    assert not t.command("call_result", {"value": "1"}, role="dealer").ok
    assert not t.command("rule_result", {"round": "x", "value": "1", "note": "n"}).ok
    assert types(t.spin("1")) == ["round.started", "roulette.result", "round.ended"]
    assert t.engine.snapshot()["result_check"] is None


def test_a_held_result_raises_an_alert_kept_until_acknowledged() -> None:
    disputed = Decision(
        EventType.RESULT_DISPUTED,
        {"primary": {"value": "1"}, "second": {"value": "2"}, "detail": "d"},
        None,
        "R01-1",
    )
    warned = Decision(EventType.RESULT_SILENT, {"held": False}, None, "R01-2")
    held = Decision(EventType.RESULT_SILENT, {"held": True, "primary": {}}, None, "R01-3")
    assert [a["test"] for _, a in held_results([disputed, warned, held])] == [
        "result_disputed",
        "result_silent",
    ]
    keeper = ResultAlerts()
    [alert] = keeper.alerts_on([disputed])
    assert alert.type == EventType.SURVEILLANCE_ALERT and alert.round == "R01-1"
    assert alert.data["id"] == "A00001" and alert.data["p_value"] is None
    assert alert.data["second"] == {"value": "2"}
    assert keeper.acknowledge("A00001", "SEC-1", "seen") is not None
    assert keeper.alerts == []


def test_the_setting_is_checked_as_it_is_made() -> None:
    with pytest.raises(ValueError, match="window_s"):
        SecondSource(None, 0, "warn")
    with pytest.raises(ValueError, match="on_silence"):
        SecondSource(None, 5, "ignore")


def test_only_the_dealer_calls_and_a_floorperson_rules_at_roulette() -> None:
    t = make()
    t.open()
    round_id = t.spin("17", spin=1).events[0].round
    assert not t.command("call_result", {"value": "17"}, role="stickperson").ok
    call(t, "7")
    boxperson = t.command(
        "rule_result", {"round": round_id, "value": "7", "note": "n"}, role="boxperson"
    )
    assert not boxperson.ok and "floorperson or supervisor" in (boxperson.error or "")


def test_a_malformed_held_result_in_a_snapshot_is_refused() -> None:
    t = make()
    t.open()
    t.spin("17", spin=1)
    call(t, "7")
    snapshot = t.engine.snapshot()
    snapshot["result_check"]["pending"]["primary"]["at"] = "yesterday"
    with pytest.raises(SnapshotError, match=r"result_check\.pending"):
        make(snapshot=snapshot)
    snapshot["result_check"]["pending"] = None
    snapshot["result_check"]["early"] = {"round": "x", "value": "7"}
    with pytest.raises(SnapshotError, match=r"result_check\.early"):
        make(snapshot=snapshot)
