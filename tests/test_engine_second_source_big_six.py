"""A Big Six table with a second source for the clapper's rest (floord policy).

The symbol the section shows is compared: the dealer's call names it, a second Big Six
wheel device reports its own rest; a dispute holds the spin until a floorperson rules the
section. Virtual time: the window closes on the engine's ticks.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from test_engine_big_six import WHEEL, Table, types

from floord.contract import EventType
from floord.engine.core.second_source import SecondSource

pytestmark = pytest.mark.unit

CAMERA = "camera"


def table(on_silence: str = "hold", device: str | None = None) -> Table:
    t = Table(second_source=SecondSource(device, 5.0, on_silence))
    t.open()
    return t


def rest(t: Table, section: int) -> list[str]:
    assert t.cmd("spin").ok
    t.spin(4)
    return [str(x) for x in types(t.dev(EventType.BIGSIX_AT_REST, section=section))]


def call(t: Table, value: Any):
    return t.cmd("call_result", "dealer", value=value)


def test_the_dealers_call_of_the_symbol_confirms() -> None:
    t = table()
    assert rest(t, 13) == [], "section 13 is $20: held until the call"
    called = call(t, "$20")
    assert called.ok, called.error
    assert types(called.output) == [
        EventType.RESULT_CONFIRMED,
        EventType.BIGSIX_RESULT,
        EventType.ROUND_ENDED,
    ]
    assert called.output.events[1].data["section"] == 13
    assert not call(t, "$3").ok, "no such symbol"


def test_a_dispute_holds_the_spin_until_the_section_is_ruled() -> None:
    t = table()
    rest(t, 13)
    round_id = t.engine.current_round
    assert types(call(t, "$1").output) == [EventType.RESULT_DISPUTED]
    spun = t.cmd("spin")
    assert not spun.ok and "not settled" in (spun.error or "")
    held = t.dev(EventType.BIGSIX_SPIN_STARTED, direction="cw")
    assert held.events[0].data["what"] == "result_held"
    assert t.engine.current_round == round_id
    for args in ({"value": "$1"}, {"section": 54}, {}):
        refused = t.cmd("rule_result", "floorperson", round=round_id, note="video", **args)
        assert not refused.ok, args
    ruled = t.cmd("rule_result", "floorperson", round=round_id, section=0, note="video")
    assert ruled.ok, ruled.error
    assert types(ruled.output) == [
        EventType.RESULT_RULED,
        EventType.BIGSIX_RESULT,
        EventType.ROUND_ENDED,
    ]
    assert ruled.output.events[0].data["value"] == "joker"
    assert ruled.output.events[1].data["section"] == 0
    assert t.cmd("spin").ok


def test_silence_that_warns_lets_the_rest_stand() -> None:
    t = table("warn")
    rest(t, 13)
    t.now += timedelta(seconds=6)
    out = t.engine.tick(t.now)
    assert types(out) == [EventType.RESULT_SILENT, EventType.BIGSIX_RESULT, EventType.ROUND_ENDED]


def test_a_second_wheel_device_between_sections_disputes() -> None:
    t = table(device=CAMERA)
    rest(t, 13)
    agreed = t.engine.on_device_event(CAMERA, EventType.BIGSIX_AT_REST, {"section": 13}, t.step())
    assert types(agreed)[0] == EventType.RESULT_CONFIRMED
    rest(t, 13)
    between = t.engine.on_device_event(
        CAMERA, EventType.BIGSIX_BETWEEN_SECTIONS, {"left": 13, "right": 14}, t.step()
    )
    assert types(between) == [EventType.RESULT_DISPUTED]
    assert between.events[0].data["second"]["value"] == "between_sections"
    ruled = t.cmd("rule_result", "floorperson", round=t.engine.current_round, void=True, note="v")
    assert types(ruled.output) == [EventType.RESULT_RULED, EventType.ROUND_VOIDED]
    snapshot = t.engine.snapshot()
    assert snapshot["result_check"]["pending"] is None
    assert snapshot["wheel_device"] == WHEEL
