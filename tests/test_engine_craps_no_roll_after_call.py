"""A "no roll" after floord called the throw (58 Pa. Code § 537.9(b), (d)): the roll is
reversed, everything it decided undone, on the record."""

from __future__ import annotations

import pytest
from craps_support import Table, first, types

from floord.contract import EventType, cite
from floord.engine.craps.engine import CrapsEngine

pytestmark = pytest.mark.unit


@pytest.fixture
def table() -> Table:
    t = Table()
    t.ready()
    return t


def make_point(table: Table, d1: int, d2: int) -> None:
    table.throw(d1, d2)
    table.throw(d1, d2)


@pytest.mark.parametrize("role", ["boxperson", "stickperson"])
def test_a_no_roll_voids_the_roll_floord_called_537_9_b_6_and_d_1(table: Table, role: str) -> None:
    """§ 537.9(b): the persons of (d) "shall have the authority to invalidate a roll of the
    dice by calling 'no roll'" for "(6) The Craps boxperson or stickperson ... considers the
    throw to be improper"; (d)(1): "In Craps, by a boxperson or stickperson". No camera
    judges (b)(6): the throw was called at once, and the call voids it."""
    called = table.throw(2, 2)
    roll = first(called, EventType.CRAPS_ROLL)
    assert roll.data["decision"] == "point_established" and table.engine.point == 4
    assert not table.cmd("no_roll", "dealer", reason="improper").ok  # § 537.9(d)(1)
    out = table.cmd("no_roll", role, reason="improper", detail="the dice were slid")
    assert out.ok, out
    no_roll = first(out.output, EventType.CRAPS_NO_ROLL)
    assert no_roll.rule == cite("537.9(b)(6)") and no_roll.round == roll.round
    assert no_roll.data["callers_rule"] == cite("537.9(d)") and no_roll.data["role"] == role
    undone = no_roll.data["reverses"]
    assert undone["decision"] == "point_established" and undone["come_out"] is True
    assert undone["wagers"] == roll.data["outcomes"] and undone["round"] == roll.round
    assert "floord policy" in undone["policy"]
    voided = first(out.output, EventType.ROUND_VOIDED)
    assert voided.round == roll.round and voided.rule == cite("537.9(b)(6)")
    engine = table.engine
    assert engine.point is None and engine.marker == "off" and no_roll.data["point"] is None
    assert engine.shooter["rolls"] == 0 and engine.shooter["invalid_rolls"] == 1
    # The come out roll never happened: a Fire Bet is still before it (§ 537.12(a)(1)).
    assert table.cmd("fire_bet", "dealer", seat=3, amount=1).ok
    # Thrown again: 7 on the come out, a natural.
    again = first(table.throw(3, 4), EventType.CRAPS_ROLL)
    assert again.data["decision"] == "natural" and again.data["come_out"] is True


def test_a_loser_7_voided_gives_back_the_dice_the_point_and_the_fire_bets_537_9_b_5() -> None:
    """§ 537.9(b)(5): "The use of a cheating, crooked or fixed device or technique in the
    roll of the dice". A loser 7 that passed the dice (§ 537.11(a)(1)) and settled the Fire
    Bets (§ 537.12(a)(5)) is voided: the shooter keeps the dice, the point stands, the Fire
    Bets are pending again with their points."""
    table = Table()
    table.open()
    assert table.cmd("fire_bet", "dealer", seat=2, amount=5).ok
    table.new_shooter(1)
    for d1, d2 in ((5, 5), (2, 2), (4, 5)):
        make_point(table, d1, d2)
    table.throw(3, 3)  # the point 6
    seven = table.throw(3, 4)
    assert first(seven, EventType.CRAPS_FIRE_BET).data["action"] == "lost"
    assert table.engine.shooter is None and table.engine.fire.bets == []
    out = table.cmd("no_roll", "stickperson", reason="cheating")
    assert out.ok, out
    assert first(out.output, EventType.CRAPS_NO_ROLL).rule == cite("537.9(b)(5)")
    undone = first(out.output, EventType.CRAPS_NO_ROLL).data["reverses"]
    assert undone["decision"] == "loser_7" and undone["shooter_restored"] is True
    assert undone["fire_settlement_undone"] is True
    assert undone["fire_bets"][0]["points"] == [10, 4, 9]
    back = first(out.output, EventType.CRAPS_SHOOTER)
    assert back.data["action"] == "restored" and back.data["seat"] == 1
    engine = table.engine
    assert engine.shooter["seat"] == 1 and engine.point == 6 and engine.selected == ["D2", "D4"]
    assert [(b.seat, b.points) for b in engine.fire.bets] == [(2, [10, 4, 9])]
    made = table.throw(2, 4)  # the point 6 made: the fourth unique point
    assert first(made, EventType.CRAPS_ROLL).data["decision"] == "point_made"
    assert first(made, EventType.SURVEILLANCE_NOTICE).data["points"] == [10, 4, 9, 6]


def test_a_point_made_voided_takes_back_its_fire_marker_and_notice() -> None:
    """§ 537.12(a)(4), (a)(6) undone with the roll: the fourth unique point voided by a
    "no roll" (§ 537.9(b)(6)) removes the bet's point and withdraws the notice."""
    table = Table()
    table.open()
    assert table.cmd("fire_bet", "dealer", seat=1, amount=1).ok
    table.new_shooter(1)
    for d1, d2 in ((5, 5), (2, 2), (4, 5)):
        make_point(table, d1, d2)
    table.throw(3, 3)
    made = table.throw(3, 3)
    assert EventType.SURVEILLANCE_NOTICE in types(made)
    out = table.cmd("no_roll", "boxperson", reason="improper")
    undone = first(out.output, EventType.CRAPS_NO_ROLL).data["reverses"]
    assert undone["fire_points_undone"] is True and undone["notice_withdrawn"] is True
    engine = table.engine
    assert engine.point == 6 and engine.shooter["points"] == [10, 4, 9]
    assert engine.fire.bets[0].points == [10, 4, 9]
    again = table.throw(4, 2)  # made again: the notice comes again
    assert EventType.SURVEILLANCE_NOTICE in types(again)


def test_the_window_closes_at_the_next_throw_or_call(table: Table) -> None:
    """floord policy: only the last roll floord called, until the next throw or the next
    call at the table; a roll a person called is that person's call."""
    table.throw(3, 3)
    table.throw(3, 4)  # loser 7: the dice passed
    assert table.cmd("shooter", seat=2).ok
    refused = table.cmd("no_roll", "boxperson", reason="improper")
    assert not refused.ok and refused.rule is None and "policy" in (refused.error or "")
    table.throw(2, 2)
    table.throw(5, 5)  # the next throw: only this roll may be voided
    assert table.cmd("no_roll", "boxperson", reason="improper").ok
    assert table.engine.point == 4
    assert not table.cmd("no_roll", "boxperson", reason="improper").ok  # once
    table.throw(3, 3, together=False)  # held: the stickperson calls it
    assert table.cmd("call_roll", "stickperson").ok
    assert not table.cmd("no_roll", "boxperson", reason="improper").ok
    table.throw(1, 2)
    assert table.cmd("pass_dice", "stickperson", reason="voluntary").ok
    assert not table.cmd("no_roll", "stickperson", reason="improper").ok


@pytest.mark.parametrize("role", ["dealer", "stickperson", "floorperson"])
def test_mini_craps_no_roll_after_the_call_537_9_d_2(role: str) -> None:
    """§ 537.9(d)(2): "In Mini-Craps, by the dealer, stickperson or floorperson"."""
    t = Table(game="mini_craps", fire_bet=None)
    t.open()
    assert t.cmd("shooter", "dealer", seat=1).ok
    t.throw(4, 5)
    t.throw(3, 4)  # loser 7
    assert t.engine.shooter is None
    assert not t.cmd("no_roll", "boxperson", reason="improper").ok
    out = t.cmd("no_roll", role, reason="improper")
    assert out.ok, out
    assert first(out.output, EventType.CRAPS_SHOOTER).data["action"] == "restored"
    assert t.engine.point == 9 and t.engine.shooter["seat"] == 1


def test_the_window_survives_a_snapshot_and_closes_on_a_restart(table: Table) -> None:
    table.throw(4, 4)
    snap = table.engine.snapshot()
    assert snap["reversible"]["total"] == 8
    again = CrapsEngine("CR-01", dice_device="dice", required_devices=["dice"],
                        gaming_day_starts=table.engine.day.starts, timezone="UTC",
                        fire_bet="A", snapshot=snap)  # fmt: skip
    assert again.snapshot() == snap
    again.after_restart(table.step())
    assert again.reversible is None


def test_a_table_whose_stickperson_calls_every_throw_holds_it_for_the_call_537_10_a() -> None:
    """§ 537.10(a): "the Craps stickperson ... shall at once call out the sum"; the table's
    rules may have floord wait for that call (`stickperson_calls`). Every throw is held;
    a "no roll" comes before the call, and after the stickperson's own call the roll is
    his and is not reopened."""
    t = Table(stickperson_calls=True)
    t.ready()
    held = first(t.throw(3, 4), EventType.CRAPS_THROW_HELD)
    assert held.rule == cite("537.10(a)") and held.data["reasons"][0]["reason"] == "awaiting_call"
    assert t.cmd("no_roll", "boxperson", reason="improper").ok
    t.throw(2, 2)
    called = t.cmd("call_roll", "stickperson")
    roll = first(called.output, EventType.CRAPS_ROLL)
    assert roll.data["called_by"] == "alice" and t.engine.point == 4
    refused = t.cmd("no_roll", "boxperson", reason="improper")
    assert not refused.ok and t.engine.point == 4
