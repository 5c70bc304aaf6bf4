"""The Roulette ball of 58 Pa. Code § 531.2: asked at the inspection, and a ball put into
play later certified on the record."""

from __future__ import annotations

from typing import Any

import pytest
from test_engine_support import make_table, only, types

from floord.contract import EventType, cite

pytestmark = pytest.mark.unit

BALL = {"nonmetallic": True, "diameter_sixteenths": 13, "nonmagnetic": True, "licence": "PGCB-9"}


def test_the_inspection_asks_for_the_ball_of_531_2() -> None:
    """§ 531.2: "Balls used in Roulette must be made completely of a nonmetallic substance
    and not be less than 12/16 of an inch nor more than 14/16 of an inch in diameter." """
    t = make_table()
    t.connect()
    failed = only(t.inspect(ball_nonmetallic_and_size=False).output, EventType.OPERATOR_INSPECTION)
    assert not failed.data["passed"]
    assert failed.data["failed_items"] == ["ball_nonmetallic_and_size"]
    assert not t.command("open").ok
    checklist = {
        "no_magnet_or_contrivance": True,
        "wheel_level_and_free": True,
        "parts_secure": True,
        "ball_nonmagnetic": True,
    }
    missing = t.command("inspect", {"checklist": checklist})
    assert not missing.ok and "ball_nonmetallic_and_size" in (missing.error or "")
    passed = only(t.inspect().output, EventType.OPERATOR_INSPECTION)
    assert passed.data["passed"]
    assert t.command("open").ok


def test_a_ball_put_into_play_is_certified_on_the_record_531_2() -> None:
    """§ 531.2 for the new ball, and § 531.3(a)(4): "Inspect the Roulette ball by passing it
    over a magnet or compass to assure its nonmagnetic quality." The ball is not a movable
    part of the wheel (§ 531.3(d)): an open table plays on (floord's policy)."""
    t = make_table()
    t.open()
    done = t.command("ball_replaced", {**BALL, "note": "ball left the wheel"}, role="maintenance")
    assert done.ok, done.error
    log = only(done.output, EventType.ROULETTE_BALL_REPLACED)
    assert log.rule == cite("531.2")
    assert log.data["rules"] == [cite("531.2"), cite("531.3(a)(4)")]
    assert log.data["diameter_sixteenths"] == 13 and log.data["licence"] == "PGCB-9"
    assert log.data["by"] == "fp1" and log.data["role"] == "maintenance"
    assert log.data["table_was"] == "open" and log.data["note"] == "ball left the wheel"
    assert log.data["policy"].startswith("floord policy")
    assert types(done.output) == [EventType.ROULETTE_BALL_REPLACED]
    assert t.engine.table.state == "open" and t.command("close").ok


@pytest.mark.parametrize(
    ("args", "error", "rule"),
    [
        ({"nonmetallic": False}, "completely of a nonmetallic substance", cite("531.2")),
        ({"diameter_sixteenths": 11}, "found 11/16", cite("531.2")),
        ({"diameter_sixteenths": 15}, "found 15/16", cite("531.2")),
        ({"nonmagnetic": False}, "magnet or compass", cite("531.3(a)(4)")),
        ({"diameter_sixteenths": "13"}, "diameter_sixteenths=N", None),
        ({"diameter_sixteenths": True}, "diameter_sixteenths=N", None),
        ({"nonmetallic": "yes"}, "nonmetallic=true|false", None),
        ({"licence": " "}, "needs licence", None),
        ({"colour": "white"}, "colour", None),
    ],
)
def test_a_ball_that_fails_531_2_or_the_magnet_is_refused(
    args: dict[str, Any], error: str, rule: str | None
) -> None:
    t = make_table()
    t.open()
    refused = t.command("ball_replaced", {**BALL, **args})
    assert not refused.ok and error in (refused.error or ""), refused.error
    assert refused.rule == rule and not refused.output.events


def test_a_dealer_does_not_put_a_ball_into_play() -> None:
    t = make_table()
    t.open()
    refused = t.command("ball_replaced", BALL, by="dl1", role="dealer")
    assert not refused.ok and "floorperson or table game maintenance" in (refused.error or "")
