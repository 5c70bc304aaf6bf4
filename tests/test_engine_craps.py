"""The Craps engine (58 Pa. Code ch. 537): the throw, the point, the shooter, in virtual time."""

from __future__ import annotations

from typing import Any

import pytest
from craps_support import SET, Table, die, first, types

from floord.contract import EventType, cite
from floord.engine.core.snapshots import SnapshotError
from floord.engine.craps.dice import TRACKER_POLICY
from floord.engine.craps.engine import CrapsEngine

pytestmark = pytest.mark.unit


@pytest.fixture
def table() -> Table:
    t = Table()
    t.ready()
    return t


def test_the_sum_of_the_skyward_faces_is_called_537_10_a(table: Table) -> None:
    """§ 537.10(a): "call out the sum of the numbers on the uppermost or skyward sides of
    the two dice"."""
    out = table.throw(3, 4)
    roll = first(out, EventType.CRAPS_ROLL)
    assert roll.rule == cite("537.10(a)")
    assert roll.data["faces"] == [3, 4] and roll.data["total"] == 7
    assert types(out) == [EventType.ROUND_STARTED, EventType.CRAPS_ROLL, EventType.ROUND_ENDED]


def test_come_out_point_and_the_on_off_marker_537_1_and_537_3_a_1(table: Table) -> None:
    """§ 537.1: "Come out point—A total of 4, 5, 6, 8, 9 or 10 thrown by the shooter on the
    come out roll"; § 537.3(a)(1)(i)(B): the total "thrown again before a 7" wins."""
    roll = first(table.throw(2, 4), EventType.CRAPS_ROLL).data
    assert roll["come_out"] is True and roll["decision"] == "point_established"
    assert roll["point"] == 6 and roll["marker"] == "on"
    assert first(table.throw(2, 3), EventType.CRAPS_ROLL).data["decision"] == "no_decision"
    made = first(table.throw(5, 1), EventType.CRAPS_ROLL).data
    assert made["decision"] == "point_made" and made["point"] is None
    assert made["marker"] == "off" and table.engine.shooter["points"] == [6]
    again = first(table.throw(6, 6), EventType.CRAPS_ROLL).data
    assert again["come_out"] is True and again["decision"] == "craps"


def test_the_shooter_passes_the_dice_on_a_loser_7_537_11_a_1(table: Table) -> None:
    """§ 537.11(a)(1): "The shooter shall pass the dice upon throwing a loser 7"."""
    table.throw(4, 4)
    out = table.throw(3, 4)
    assert first(out, EventType.CRAPS_ROLL).data["decision"] == "loser_7"
    passed = first(out, EventType.CRAPS_SHOOTER)
    assert passed.rule == cite("537.11(a)(1)")
    assert passed.data["action"] == "passed" and passed.data["reason"] == "loser_7"
    assert table.engine.shooter is None
    no_shooter = table.throw(1, 2)
    assert first(no_shooter, EventType.PROCEDURE_VIOLATION).rule == cite("537.7(c)")
    assert EventType.ROUND_VOIDED in types(no_shooter)


def test_the_shooter_may_pass_or_be_ordered_to_537_11_a_and_a_2(table: Table) -> None:
    """§ 537.11(a): "the option of the shooter, after any roll, either to pass the dice or
    remain the shooter"; (a)(2): "The Craps boxperson ... may order the shooter to pass"."""
    refused = table.cmd("pass_dice", "stickperson", reason="ordered")
    assert not refused.ok and refused.rule == cite("537.11(a)(2)")
    ordered = table.cmd("pass_dice", "boxperson", reason="ordered", detail="delays")
    assert ordered.ok
    assert first(ordered.output, EventType.CRAPS_SHOOTER).rule == cite("537.11(a)(2)")
    assert table.cmd("shooter", seat=2).ok
    voluntary = table.cmd("pass_dice", "stickperson", reason="voluntary")
    assert first(voluntary.output, EventType.CRAPS_SHOOTER).rule == cite("537.11(a)")


def test_a_new_shooter_only_once_the_dice_are_passed_537_11_c_d(table: Table) -> None:
    """§ 537.11(d): "The first player to accept the dice when offered shall become the new
    shooter"; the dice are offered on a relinquishment (§ 537.11(c))."""
    refused = table.cmd("shooter", seat=3)
    assert not refused.ok and refused.rule == cite("537.11(c)")
    table.throw(4, 4)
    table.throw(4, 3)
    new = table.cmd("shooter", seat=3)
    assert new.ok and first(new.output, EventType.CRAPS_SHOOTER).rule == cite("537.11(d)")
    assert not table.cmd("shooter", "dealer", seat=4).ok  # a Craps stickperson's call


def test_off_the_table_or_die_on_die_is_an_invalid_roll_537_9_a(table: Table) -> None:
    """§ 537.9(a): "invalid whenever either or both of the dice go off the table or
    whenever one die comes to rest on top of the other"."""
    for rest, reason in (("off", "off_the_table"), ("die", "die_on_die")):
        out = table.throw(None, None, dice=[die(5, "D2"), die(None if rest == "off" else 2,
                                                            "D4", rest=rest)])  # fmt: skip
        no_roll = first(out, EventType.CRAPS_NO_ROLL)
        assert no_roll.rule == cite("537.9(a)") and no_roll.data["reason"] == reason
        assert no_roll.data["invalid"] and no_roll.data["rethrow"]
        assert first(out, EventType.ROUND_VOIDED).rule == cite("537.9(a)")
    assert table.engine.point is None and table.engine.shooter["rolls"] == 0


def test_resting_on_more_than_one_side_is_void_537_10_b(table: Table) -> None:
    """§ 537.10(b): "If more than one side of a die is resting on a stack of chips or other
    object, the roll shall be void and the dice shall be re-thrown"."""
    out = table.throw(None, None, dice=[die(3, "D2"), die(None, "D4", lie="cocked_multi")])
    assert first(out, EventType.CRAPS_NO_ROLL).rule == cite("537.10(b)")


def test_device_flags_hold_the_throw_for_a_no_roll_537_9_b_2_3_4(table: Table) -> None:
    """§ 537.9(b): the persons of (d) "shall have the authority to invalidate a roll ... by
    calling 'no roll'" for (2) dice short of the far end, (3) on the bank, (4) in the dice
    cup or on a rail: a permission, so the throw waits for their call."""
    cases = [
        ([die(2, "D2", far_end=False), die(2, "D4")], "far_end", "537.9(b)(2)"),
        ([die(2, "D2", rest="bank"), die(2, "D4")], "bank", "537.9(b)(3)"),
        ([die(2, "D2", rest="rail"), die(2, "D4")], "cup_or_rail", "537.9(b)(4)"),
    ]
    for dice, reason, paragraph in cases:
        out = table.throw(None, None, dice=dice)
        held = first(out, EventType.CRAPS_THROW_HELD)
        assert held.rule == cite(paragraph) and held.data["reasons"][0]["reason"] == reason
        assert table.cmd("no_roll", "stickperson", reason=reason).ok
    out = table.throw(None, None, dice=[die(2, "D2", far_end=False), die(2, "D4")])
    called = table.cmd("call_roll", "stickperson")
    assert called.ok and first(called.output, EventType.CRAPS_ROLL).data["total"] == 4


def test_no_roll_is_called_by_the_boxperson_or_stickperson_537_9_b_1_and_d_1(
    table: Table,
) -> None:
    """§ 537.9(b)(1): "The dice do not leave the shooter's hand simultaneously"; (d)(1):
    "In Craps, by a boxperson or stickperson"."""
    table.throw(3, 3, together=False)
    refused = table.cmd("no_roll", "dealer", reason="not_together")
    assert not refused.ok and refused.rule == cite("537.9(d)(1)")
    called = table.cmd("no_roll", "boxperson", reason="not_together")
    no_roll = first(called.output, EventType.CRAPS_NO_ROLL)
    assert no_roll.rule == cite("537.9(b)(1)") and no_roll.data["invalid"] is False
    assert no_roll.data["role"] == "boxperson"
    assert not table.cmd("no_roll", "boxperson", reason="improper").ok  # nothing held


def test_mini_craps_no_roll_by_dealer_stickperson_or_floorperson_537_9_d_2() -> None:
    """§ 537.9(d)(2): "In Mini-Craps, by the dealer, stickperson or floorperson"."""
    t = Table(game="mini_craps", fire_bet=None)
    t.open()
    assert t.cmd("shooter", "dealer", seat=1).ok
    t.throw(2, 2, together=False)
    assert not t.cmd("no_roll", "boxperson", reason="improper").ok
    assert t.cmd("no_roll", "floorperson", reason="improper").ok
    t.throw(2, 2, together=False)
    assert t.cmd("no_roll", "dealer", reason="cheating").ok


def test_a_disputed_face_is_decided_by_the_boxperson_537_10_c_1(table: Table) -> None:
    """§ 537.10(c)(1): "In Craps, the boxperson shall have discretion to determine which
    face is uppermost or to order the throw be void"."""
    table.throw(None, None, dice=[die(1, "D2", lie="cocked"), die(4, "D4")])
    assert not table.cmd("face_ruling", "stickperson", faces=[6, 4]).ok
    ruled = table.cmd("face_ruling", "boxperson", faces=[6, 4])
    roll = first(ruled.output, EventType.CRAPS_ROLL)
    assert roll.data["total"] == 10 and roll.data["face_ruling"]["read"] == [1, 4]
    assert roll.data["face_ruling"]["rule"] == cite("537.10(c)(1)")
    table.throw(None, None, dice=[die(1, "D2", lie="cocked"), die(4, "D4")])
    void = table.cmd("face_ruling", "boxperson", void=True)
    assert first(void.output, EventType.CRAPS_NO_ROLL).rule == cite("537.10(c)(1)")


def test_mini_craps_face_dispute_is_the_floorpersons_537_10_c_2() -> None:
    """§ 537.10(c)(2): "In Mini-Craps, the floorperson shall have discretion"."""
    t = Table(game="mini_craps", fire_bet=None)
    t.open()
    assert t.cmd("shooter", "dealer", seat=1).ok
    t.throw(None, None, dice=[die(1, "D2", lie="cocked"), die(4, "D4")])
    refused = t.cmd("face_ruling", "boxperson", faces=[1, 4])
    assert not refused.ok and refused.rule == cite("537.10(c)(2)")
    assert t.cmd("face_ruling", "floorperson", faces=[1, 4]).ok


def test_the_dice_set_and_replacements_are_recorded_537_7_a(table: Table) -> None:
    """§ 537.7(a): "A set of at least five dice shall be present at the Craps or Mini-Craps
    table during gaming"."""
    out = table.dev(EventType.DICE_SET, dice=["D1", "D2", "D6", "D4", "D5"])
    rec = first(out, EventType.CRAPS_DICE)
    assert rec.rule == cite("537.7(a)") and rec.data["replaced"] is True
    assert rec.data["added"] == ["D6"] and rec.data["removed"] == ["D3"]
    short = table.dev(EventType.DICE_SET, dice=["D1", "D2", "D4", "D5"])
    assert first(short, EventType.PROCEDURE_VIOLATION).data["what"] == "fewer_than_five_dice"


def test_dice_not_in_the_set_thrown_is_a_violation_and_held_537_7_a(table: Table) -> None:
    """§ 537.7(a): the dice of play are of the set at the table; a die from outside it is a
    violation, and the throw waits for the persons' call (a fixed device, § 537.9(b)(5))."""
    out = table.throw(None, None, dice=[die(3, "D2"), die(4, "X9")])
    assert first(out, EventType.PROCEDURE_VIOLATION).rule == cite("537.7(a)")
    assert first(out, EventType.CRAPS_THROW_HELD).data["reasons"][-1]["reason"] == "dice_not_in_set"
    assert table.cmd("no_roll", "boxperson", reason="cheating").ok


def test_a_throw_of_other_dice_than_the_shooters_is_a_violation_537_7_c(table: Table) -> None:
    """§ 537.7(c): the shooter "shall select and retain two of the dice offered"."""
    out = table.throw(None, None, dice=[die(3, "D2"), die(4, "D5")])
    wrong = first(out, EventType.PROCEDURE_VIOLATION)
    assert wrong.rule == cite("537.7(c)") and wrong.data["selected"] == ["D2", "D4"]
    assert first(out, EventType.CRAPS_ROLL).data["total"] == 7


def test_a_throw_on_a_closed_table_is_recorded_not_called() -> None:
    t = Table()
    out = t.throw(3, 4)
    assert first(out, EventType.PROCEDURE_VIOLATION).data["what"] == "throw_while_not_open"
    assert EventType.CRAPS_ROLL not in types(out)


def test_the_table_opens_only_with_five_dice_537_7_a() -> None:
    """§ 537.7(a): at least five dice at the table during gaming: no opening without them."""
    t = Table()
    t.dev(EventType.DEVICE_ONLINE)
    t.dev(EventType.DEVICE_IDENTIFIED, maker="m", model="x", capabilities=["die_ids", "rest"])
    t.dev(EventType.DICE_SET, dice=SET[:3])
    assert t.cmd("inspect", "floorperson", checklist={"layout_approved": True,
                 "no_call_bets_shown": True, "drop_box_and_tip_box": True}).ok  # fmt: skip
    refused = t.cmd("open", "floorperson")
    assert not refused.ok and "537.7(a)" in (refused.error or "")


def test_a_tracker_that_cannot_see_the_rest_halts_under_floords_policy() -> None:
    """Ch. 537 speaks of no device: a tracker without die ids or rests halts the table under
    floord's policy (rule null), not § 537.9(a)."""
    t = Table()
    t.dev(EventType.DEVICE_ONLINE)
    out = t.dev(EventType.DEVICE_IDENTIFIED, maker="m", model="shaker", capabilities=[])
    halted = first(out, EventType.TABLE_HALTED)
    assert halted.rule is None and halted.data["policy"] == TRACKER_POLICY
    assert halted.data["code"] == "dice_tracker_mismatch"
    assert halted.data["reasons"][0]["rule"] is None


def test_snapshot_round_trip_and_restart_voids_a_held_throw(table: Table) -> None:
    table.throw(4, 5)
    assert table.cmd("fire_bet", "dealer", seat=2, amount=5).ok is False  # after come out
    table.throw(3, 3, together=False)
    snap = table.engine.snapshot()
    again = CrapsEngine("CR-01", dice_device="dice", required_devices=["dice"],
                        gaming_day_starts=table.engine.day.starts, timezone="UTC",
                        fire_bet="A", snapshot=snap)  # fmt: skip
    assert again.snapshot() == snap
    assert again.point == 9 and again.shooter == table.engine.shooter
    out = again.after_restart(table.step())
    assert EventType.ROUND_VOIDED in types(out)
    with pytest.raises(SnapshotError):
        CrapsEngine(
            "CR-01", game="mini_craps", dice_device="dice", required_devices=["dice"],
            gaming_day_starts=table.engine.day.starts, timezone="UTC", snapshot=snap,
        )  # fmt: skip


def test_malformed_calls_are_refused_never_a_crash(table: Table) -> None:
    """A signed command with arguments of any shape gets a refusal, not an exception."""
    table.throw(3, 3, together=False)
    odd: list[Any] = [None, "x", [1], {"a": 1}, 2.5, True, -1]
    for value in odd:
        for name, key in (("shooter", "seat"), ("no_roll", "reason"), ("face_ruling", "faces"),
                          ("pass_dice", "reason")):  # fmt: skip
            role = "boxperson" if name in ("no_roll", "face_ruling") else "stickperson"
            assert not table.cmd(name, role, **{key: value}).ok, (name, value)
        assert not table.cmd("fire_bet", "dealer", seat=value, amount=value).ok
    assert not table.cmd("dance", "stickperson").ok


def test_a_snapshot_of_another_shape_is_refused(table: Table) -> None:
    snap = table.engine.snapshot()
    bad_undo = {"round": "r", "throw": 1, "faces": [1, 2], "dice": [], "total": 3,
                "decision": "craps", "point_before": None, "undo": {"shooter": None}}  # fmt: skip
    for key, bad in (("point", 7), ("shooters", "two"), ("shooter", [1]), ("reversible", [1]),
                     ("reversible", {"round": "r"}), ("reversible", bad_undo)):  # fmt: skip
        with pytest.raises(SnapshotError):
            CrapsEngine(
                "CR-01", dice_device="dice", required_devices=["dice"], fire_bet="A",
                gaming_day_starts=table.engine.day.starts, timezone="UTC",
                snapshot={**snap, key: bad},
            )  # fmt: skip


def test_a_throw_before_the_held_one_was_called_voids_the_held_one(table: Table) -> None:
    """floord policy: a held throw nobody called is void once the dice are thrown again."""
    held = table.throw(3, 3, together=False)
    held_round = first(held, EventType.CRAPS_THROW_HELD).round
    out = table.throw(2, 2)
    voided = first(out, EventType.ROUND_VOIDED)
    assert voided.round == held_round and voided.data["reason"] == "thrown_again"
    assert voided.rule is None and "policy" in voided.data
    assert first(out, EventType.CRAPS_ROLL).data["total"] == 4


def test_open_needs_the_537_2_inspection() -> None:
    """floord policy cited to § 537.2: the layout (§ 537.2(d)), "no call bets" ((d)(3)) and
    the drop and tip boxes ((e)) checked before the table opens."""
    t = Table()
    t.dev(EventType.DEVICE_ONLINE)
    t.dev(EventType.DEVICE_IDENTIFIED, maker="m", model="x", capabilities=["die_ids", "rest"])
    t.dev(EventType.DICE_SET, dice=SET)
    assert not t.cmd("open", "floorperson").ok
    failed = t.cmd("inspect", "floorperson", checklist={"layout_approved": True,
                   "no_call_bets_shown": False, "drop_box_and_tip_box": True})  # fmt: skip
    assert failed.ok and not t.cmd("open", "floorperson").ok
    items = first(failed.output, EventType.OPERATOR_INSPECTION).data["items"]
    assert cite("537.2(d)(3)") in str(items)


def test_a_die_whose_id_was_not_read_is_held_for_a_persons_call(table: Table) -> None:
    """floord policy: the tracker could not read a die's id (docs/protocols/dice-tracker.md:
    `-`), so whether the die is of the set (§ 537.7(a)) or the shooter's (§ 537.7(c)) is a
    person's call; the table is not halted."""
    out = table.throw(None, None, dice=[die(3, "D2"), {**die(4, "D4"), "id": None}])
    held = first(out, EventType.CRAPS_THROW_HELD)
    assert held.data["reasons"] == [{"reason": "die_not_identified", "policy": held.data["policy"]}]
    assert held.rule is None and "not a regulation" in held.data["policy"]
    assert EventType.PROCEDURE_VIOLATION not in types(out)  # not "not the shooter's dice"
    called = table.cmd("call_roll", "stickperson")
    assert first(called.output, EventType.CRAPS_ROLL).data["total"] == 7
    gone = table.throw(None, None, dice=[die(3, "D2"), {**die(None, "D4", rest="off"), "id": None}])
    assert first(gone, EventType.CRAPS_NO_ROLL).rule == cite("537.9(a)")  # void: no hold
