"""The Fire Bet at Craps (58 Pa. Code § 537.3(a)(40), § 537.4(c)(3), § 537.5(g), § 537.12)."""

from __future__ import annotations

import pytest
from craps_support import Table, first, types

from floord.contract import EventType, cite
from floord.engine.core.types import EngineOutput
from floord.engine.craps.fire import MINI_CRAPS_POLICY

pytestmark = pytest.mark.unit


def make_point(table: Table, d1: int, d2: int) -> EngineOutput:
    """Establish the point d1 + d2 and make it with the same faces."""
    table.throw(d1, d2)
    return table.throw(d1, d2)


@pytest.fixture
def table() -> Table:
    t = Table()
    t.open()
    return t


def test_fire_bet_only_before_the_new_shooters_come_out_537_12_a_1(table: Table) -> None:
    """§ 537.12(a)(1): "Each player shall, prior to a new shooter's initial come out roll,
    place his or her Fire Bet"; § 537.3(a)(40): "may only be made prior to the come out
    roll of a new shooter"."""
    early = table.cmd("fire_bet", "dealer", seat=1, amount=5)  # before the shooter accepts
    assert early.ok and first(early.output, EventType.CRAPS_FIRE_BET).data["shooter"] == 1
    table.new_shooter()
    assert table.cmd("fire_bet", "dealer", seat=2, amount=1).ok
    table.throw(1, 2)
    late = table.cmd("fire_bet", "dealer", seat=3, amount=1)
    assert not late.ok and late.rule == cite("537.12(a)(1)")


def test_fire_bet_limits_and_areas_537_12_b_1_and_537_4_c_3(table: Table) -> None:
    """§ 537.12(b)(1): "The minimum wager shall be $1 and the maximum wager shall be $5 and
    all wagers shall be made in increments of one dollar"; § 537.4(c)(3): "A Fire Bet may
    not be reduced or increased at any time"."""
    for amount in (0, 6, 2.5, True):
        refused = table.cmd("fire_bet", "dealer", seat=1, amount=amount)
        assert not refused.ok and refused.rule == cite("537.12(b)(1)"), amount
    assert not table.cmd("fire_bet", "dealer", seat=17, amount=1).ok  # § 537.2(f)(1)
    assert table.cmd("fire_bet", "dealer", seat=1, amount=3).ok
    again = table.cmd("fire_bet", "dealer", seat=1, amount=5)
    assert not again.ok and again.rule == cite("537.4(c)(3)")
    assert not table.cmd("fire_bet", "stickperson", seat=2, amount=1).ok  # the dealer's


def test_the_fire_bet_at_mini_craps_is_refused_under_floords_policy() -> None:
    """§ 537.3(a) permits the Fire Bet "in the games of Craps and Mini-Craps"; the seeds
    give its procedures (§ 537.12(a)) for Craps only: the refusal is floord's policy, with
    no paragraph as its reason."""
    t = Table(game="mini_craps", fire_bet=None)
    t.open()
    refused = t.cmd("fire_bet", "dealer", seat=1, amount=1)
    assert not refused.ok and refused.rule is None
    assert MINI_CRAPS_POLICY in (refused.error or "")


def test_four_unique_points_notify_surveillance_537_12_a_6(table: Table) -> None:
    """§ 537.12(a)(6): "Once four different unique points are made, the surveillance
    department shall be notified for the purpose of confirming all Fire Bets and payouts";
    (b)(2): the same point again "shall not increment"; (b)(3): in any order."""
    assert table.cmd("fire_bet", "dealer", seat=4, amount=5).ok
    table.new_shooter()
    seen: list[str] = []
    for d1, d2 in ((5, 5), (2, 2), (5, 5), (4, 5), (3, 3)):
        seen += types(make_point(table, d1, d2))
    assert seen.count(EventType.SURVEILLANCE_NOTICE) == 1
    assert table.engine.shooter["points"] == [10, 4, 9, 6]
    assert table.engine.fire.bets[0].points == [10, 4, 9, 6]


def test_the_notice_comes_with_the_fourth_point_and_once(table: Table) -> None:
    """§ 537.12(a)(6) and (a)(4): each point made gets a marker with the count."""
    assert table.cmd("fire_bet", "dealer", seat=4, amount=5).ok
    table.new_shooter()
    for d1, d2 in ((5, 5), (2, 2), (4, 5)):
        out = make_point(table, d1, d2)
        assert EventType.SURVEILLANCE_NOTICE not in types(out)
    out = make_point(table, 3, 3)
    notice = first(out, EventType.SURVEILLANCE_NOTICE)
    assert notice.rule == cite("537.12(a)(6)")
    assert notice.data["points"] == [10, 4, 9, 6]
    assert notice.data["fire_bets"] == [
        {"seat": 4, "amount": 5, "points": [10, 4, 9, 6], "made_by": [1, 1, 1, 1]}
    ]
    assert notice.data["reached"] == [4] and notice.data["shooter_n"] == 1
    marker = first(out, EventType.CRAPS_FIRE_BET)
    assert marker.rule == cite("537.12(a)(4)") and marker.data["unique_points"] == 4
    same = make_point(table, 3, 3)
    assert EventType.SURVEILLANCE_NOTICE not in types(same)
    assert first(same, EventType.CRAPS_FIRE_BET).rule == cite("537.12(b)(2)")


def test_fire_bets_settle_on_the_loser_7_at_table_a_537_12_a_5_and_537_5_g(table: Table) -> None:
    """§ 537.12(a)(5): "Fire Bets shall be collected or paid, as applicable, upon a shooter
    throwing a loser 7"; § 537.5(g) Table A: four points 24 to 1, five 249 to 1."""
    assert table.cmd("fire_bet", "dealer", seat=1, amount=5).ok
    table.new_shooter()
    for d1, d2 in ((5, 5), (2, 2), (4, 5), (3, 3), (4, 4)):
        make_point(table, d1, d2)
    table.throw(2, 3)
    out = table.throw(3, 4)
    won = first(out, EventType.CRAPS_FIRE_BET)
    assert won.rule == cite("537.3(a)(40)(i)") and won.data["action"] == "won"
    assert won.data["unique_points"] == 5 and won.data["odds"] == "249 to 1"
    assert won.data["settled_rule"] == cite("537.12(a)(5)")
    assert table.engine.fire.bets == []


def test_fewer_than_four_points_lose_537_3_a_40_ii() -> None:
    """§ 537.3(a)(40)(ii): "shall lose if less than four different unique point totals"."""
    t = Table(fire_bet="B", fire_bet_odds={4: 40})
    t.open()
    assert t.cmd("fire_bet", "dealer", seat=1, amount=1).ok
    t.new_shooter()
    make_point(t, 2, 2)
    t.throw(3, 3)
    lost = first(t.throw(3, 4), EventType.CRAPS_FIRE_BET)
    assert lost.rule == cite("537.3(a)(40)(ii)") and lost.data["action"] == "lost"
    assert t.engine.pays.fire(4) == "40 to 1" and t.engine.pays.fire(7) == "499 to 1"


def test_a_surrender_before_the_loser_7_leaves_the_bet_to_the_successor_537_12_a_2(
    table: Table,
) -> None:
    """§ 537.12(a)(2): "Whenever there is a voluntary or compulsory surrender of the dice by
    a shooter ... prior to the throwing of a loser 7, any pending Fire Bet shall be settled
    upon the successor shooter throwing a loser 7"."""
    assert table.cmd("fire_bet", "dealer", seat=1, amount=2).ok
    table.new_shooter(1)
    for d1, d2 in ((5, 5), (2, 2), (4, 5)):
        make_point(table, d1, d2)
    passed = table.cmd("pass_dice", "stickperson", reason="voluntary")
    shooter = first(passed.output, EventType.CRAPS_SHOOTER)
    assert shooter.data["fire_bets_pending"] == 1
    assert shooter.data["fire_bets_rule"] == cite("537.12(a)(2)")
    table.new_shooter(2)
    out = make_point(table, 4, 4)
    assert first(out, EventType.SURVEILLANCE_NOTICE).data["fire_bets"][0]["seat"] == 1
    table.throw(3, 3)
    settled = first(table.throw(3, 4), EventType.CRAPS_FIRE_BET)
    assert settled.data["action"] == "won" and settled.data["carried_from_shooter"] == 1
    assert settled.data["carried_rule"] == cite("537.12(a)(2)")


def test_a_successor_with_an_inherited_point_may_still_take_fire_bets_537_12_a_1(
    table: Table,
) -> None:
    """§ 537.12(a)(1): "Each player shall, prior to a new shooter's initial come out roll,
    place his or her Fire Bet"; § 537.1: the come out roll is "the first roll of the dice
    after a decision with respect to a Pass Bet and Don't Pass Bet has been effected". A
    successor who inherits a point throws point rolls first: none is his come out roll."""
    table.new_shooter(1)
    table.throw(3, 3)  # the point 6
    assert table.cmd("pass_dice", "stickperson", reason="voluntary").ok
    table.new_shooter(2)
    table.throw(3, 5)  # a point roll of the inherited 6, no decision
    accepted = table.cmd("fire_bet", "dealer", seat=2, amount=5)
    assert accepted.ok, accepted
    assert first(accepted.output, EventType.CRAPS_FIRE_BET).data["shooter"] == 2
    table.throw(2, 4)  # the inherited point made: still no come out roll of his
    assert table.cmd("fire_bet", "dealer", seat=3, amount=1).ok
    assert table.engine.fire.bets[0].points == [6]  # made while the bet was in action
    table.throw(2, 2)  # his initial come out roll: the point 4
    late = table.cmd("fire_bet", "dealer", seat=4, amount=1)
    assert not late.ok and late.rule == cite("537.12(a)(1)")


def test_a_carried_fire_bet_notifies_once_and_names_whose_points_537_12_a_6(
    table: Table,
) -> None:
    """§ 537.12(a)(6): "Once four different unique points are made, the surveillance
    department shall be notified for the purpose of confirming all Fire Bets and payouts".
    A bet carried from shooter 1 with three points reaches four on the successor's third
    point: one notice, naming who made each point; the successor's own fourth point sends
    none again (the same bets)."""
    assert table.cmd("fire_bet", "dealer", seat=1, amount=2).ok
    table.new_shooter(1)
    for d1, d2 in ((5, 5), (2, 2), (4, 5)):
        make_point(table, d1, d2)
    assert table.cmd("pass_dice", "stickperson", reason="voluntary").ok
    table.new_shooter(2)
    notices = []
    for d1, d2 in ((5, 5), (2, 2), (4, 4), (4, 5)):
        notices += [d for d in make_point(table, d1, d2).events
                    if d.type == EventType.SURVEILLANCE_NOTICE]  # fmt: skip
    assert len(notices) == 1
    notice = notices[0].data
    assert notice["shooter"] == 2 and notice["shooter_n"] == 2
    assert notice["points"] == [10, 4, 8] and notice["reached"] == [1]
    assert notice["fire_bets"] == [
        {"seat": 1, "amount": 2, "points": [10, 4, 9, 8], "made_by": [1, 1, 1, 2]}
    ]
    assert "3 different unique points" in notice["detail"]
