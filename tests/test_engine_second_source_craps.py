"""A Craps table with a second source for the sum of the dice (§ 537.10, floord policy).

The stickperson's call (§ 537.10(a)) or a second tracker's throw is compared with the
tracker's total; a dispute holds the roll until the boxperson (Craps) or the floorperson
(Mini-Craps) rules the faces, as § 537.10(c) has a disputed face decided.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from craps_support import Table, die, types

from floord.contract import EventType
from floord.engine.core.second_source import SecondSource

pytestmark = pytest.mark.unit

CAMERA = "camera"


def table(game: str = "craps", on_silence: str = "hold", device: str | None = None) -> Table:
    t = Table(game=game, fire_bet=None, second_source=SecondSource(device, 5.0, on_silence))
    t.ready()
    return t


def test_the_stickpersons_call_of_the_sum_confirms_the_roll() -> None:
    t = table()
    assert types(t.throw(3, 4)) == [EventType.ROUND_STARTED], "held for the call"
    assert not t.cmd("call_result", "dealer", value=7).ok, "at Craps the stickperson calls"
    called = t.cmd("call_result", "stickperson", value=7)
    assert called.ok, called.error
    assert types(called.output)[:2] == [EventType.RESULT_CONFIRMED, EventType.CRAPS_ROLL]
    roll = called.output.events[1]
    assert roll.data["total"] == 7 and roll.data["decision"] == "natural"


def test_a_dispute_is_ruled_by_the_boxperson_with_the_faces() -> None:
    t = table()
    t.throw(3, 4)
    round_id = t.engine.current_round
    assert types(t.cmd("call_result", value=8).output) == [EventType.RESULT_DISPUTED]
    again = t.throw(2, 2)
    assert again.events[0].data["what"] == "result_held"
    assert t.engine.current_round == round_id
    refused = t.cmd("rule_result", "floorperson", round=round_id, faces=[4, 4], note="v")
    assert not refused.ok and refused.rule == "58 Pa. Code § 537.10(c)(1)"
    assert not t.cmd("rule_result", "boxperson", round=round_id, faces=[7, 1], note="v").ok
    ruled = t.cmd("rule_result", "boxperson", round=round_id, faces=[4, 4], note="video")
    assert ruled.ok, ruled.error
    assert types(ruled.output)[:2] == [EventType.RESULT_RULED, EventType.CRAPS_ROLL]
    roll = ruled.output.events[1].data
    assert roll["faces"] == [4, 4] and roll["total"] == 8 and roll["called_by"] == "alice"
    assert roll["decision"] == "point_established" and t.engine.point == 8


def test_at_mini_craps_the_floorperson_rules() -> None:
    t = table("mini_craps")
    t.throw(3, 4)
    t.cmd("call_result", "dealer", value=6)
    round_id = t.engine.current_round
    assert not t.cmd("rule_result", "boxperson", round=round_id, faces=[3, 4], note="v").ok
    assert t.cmd("rule_result", "floorperson", round=round_id, void=True, note="v").ok
    assert t.engine.current_round is None


def test_silence_that_warns_calls_the_roll() -> None:
    t = table(on_silence="warn")
    t.throw(6, 5)
    t.now += timedelta(seconds=6)
    out = t.engine.tick(t.now)
    assert types(out)[:2] == [EventType.RESULT_SILENT, EventType.CRAPS_ROLL]


def test_a_second_tracker_as_the_second_source() -> None:
    t = table(device=CAMERA)
    t.throw(1, 1)
    seen = t.engine.on_device_event(
        CAMERA,
        EventType.DICE_THROW,
        {"throw": 1, "together": True, "dice": [die(1, "D2"), die(1, "D4")]},
        t.step(),
    )
    assert types(seen)[:2] == [EventType.RESULT_CONFIRMED, EventType.CRAPS_ROLL]
    assert not t.cmd("call_result", value=2).ok, "the second source is the camera"


def test_a_held_throw_is_called_as_before() -> None:
    t = table()
    held = t.throw(3, 4, together=False)
    assert EventType.CRAPS_THROW_HELD in types(held)
    assert EventType.CRAPS_ROLL in types(t.cmd("call_roll").output)
