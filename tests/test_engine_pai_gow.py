"""The Pai Gow engine (58 Pa. Code ch. 535; only § 535.2 is in our seeds): each rule with
its citation, in virtual time. § 535.2(d): "Pai Gow shall be played with a Pai Gow
shaker ... used to shake three dice before each hand of Pai Gow is dealt to determine the
starting position for the dealing of the Pai Gow tiles."
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, time, timedelta
from typing import Any

import pytest

from floord.contract import EventType, cite
from floord.engine.core.snapshots import SnapshotError
from floord.engine.core.types import CommandOutcome, EngineOutput, VerifiedCommand
from floord.engine.pai_gow.engine import SHAKER_POLICY, PaiGowEngine
from floord.engine.pai_gow.rules import PaiGowRules, read_count_order

pytestmark = pytest.mark.unit

T0 = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
SHAKER = "shaker"
ORDER: list[int | str] = ["dealer", 1, 2, 3, 4, 5, 6]
INSPECTION = {
    "six_player_places_and_dealer": True,
    "layout_approved": True,
    "betting_areas_numbered_1_to_6": True,
    "dead_hand_area_left_of_dealer": True,
    "name_or_logo_on_layout": True,
    "drop_box_and_tip_box": True,
    "shaker_approved": True,
    "shaker_houses_three_dice_unseen": True,
    "shaker_name_or_logo": True,
}
D = cite("535.2(d)")


class Table:
    def __init__(self, order: list[Any] | None = None, snapshot: dict[str, Any] | None = None):
        self.now = T0
        self.n = 0
        self.throws = 0
        self.engine = PaiGowEngine(
            "PG-01",
            rules=PaiGowRules(count_order=tuple(order or ORDER)),
            shaker_device=SHAKER,
            required_devices=[SHAKER],
            gaming_day_starts=time(6),
            timezone="UTC",
            snapshot=snapshot,
        )

    def step(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now

    def dev(self, type: str, device: str = SHAKER, **data: Any) -> EngineOutput:
        return self.engine.on_device_event(device, type, data, self.step())

    def shake(self, *faces: int | None, device: str = SHAKER) -> EngineOutput:
        self.throws += 1
        dice = [{"id": None, "face": f, "rest": None, "lie": None, "far_end": None} for f in faces]
        return self.dev(
            EventType.DICE_THROW, device=device, throw=self.throws, together=None, dice=dice
        )

    def cmd(self, name: str, role: str = "dealer", **args: Any) -> CommandOutcome:
        self.n += 1
        command = VerifiedCommand(f"c{self.n}", name, "DL-1", role, args)
        return self.engine.on_command(command, self.step())

    def connect(self) -> None:
        self.dev(EventType.DEVICE_ONLINE, port="/dev/pts/1")
        self.dev(EventType.DEVICE_IDENTIFIED, maker="m", model="ref-paigow-shaker",
                 serial="PG-1", firmware="1", capabilities=[])  # fmt: skip

    def open(self) -> None:
        self.connect()
        assert self.cmd("inspect", "floorperson", checklist=INSPECTION).ok
        assert self.cmd("open", "floorperson").ok


def types(out: EngineOutput) -> list[str]:
    return [d.type for d in out.events]


@pytest.fixture
def table() -> Table:
    t = Table()
    t.open()
    return t


def test_a_shake_opens_the_hand_and_records_its_starting_position_535_2_d(table: Table) -> None:
    """'three dice before each hand ... to determine the starting position': the shake
    opens the round, and the position its total names is recorded with it."""
    out = table.shake(4, 2, 6)
    assert types(out) == [EventType.ROUND_STARTED, EventType.PAIGOW_DEAL_POSITION]
    started, position = out.events
    assert started.rule == D and started.data["opened_by"] == "shake"
    assert position.rule == D and position.round == started.round == table.engine.current_round
    # 12 counted around dealer, 1..6 from the dealer as 1: the dealer is 1 and 8, so 12 is 4.
    assert position.data["faces"] == [4, 2, 6] and position.data["total"] == 12
    assert position.data["position"] == 4 and position.data["count_order"] == ORDER
    assert "count_order" in position.data["detail"] and position.data["throw"] == 1
    assert table.engine.snapshot()["round"]["position"] == 4


def test_the_count_goes_round_the_order_and_may_count_the_dead_hand_535_2_b_2() -> None:
    """(b)(2): 'A separate area, located to the left of the dealer, for the placement of
    four tiles which shall be referred to as the Dead Hand': a count order may hold it."""
    t = Table(order=[1, 2, 3, 4, 5, 6, "dealer", "dead_hand"])
    t.open()
    named = []
    for faces in ((1, 1, 1), (2, 3, 3), (6, 6, 6)):
        out = t.shake(*faces)
        named.append(out.events[1].data["position"])
        assert t.cmd("deal", **{"from": named[-1]}).ok
        assert t.cmd("round_end").ok
    assert named == [3, "dead_hand", 2]


def test_a_deal_from_the_position_the_dice_named_is_recorded_535_2_d(table: Table) -> None:
    table.shake(1, 2, 3)  # 6: dealer 1, areas 1..5 are 2..6
    out = table.cmd("deal", **{"from": 5})
    assert out.ok and types(out.output) == [EventType.PAIGOW_DEALT]
    dealt = out.output.events[0]
    assert dealt.rule == D
    assert dealt.data == {"from": 5, "position": 5, "as_determined": True, "by": "DL-1",
                          "role": "dealer"}  # fmt: skip
    ended = table.cmd("round_end")
    assert ended.ok and types(ended.output) == [EventType.ROUND_ENDED]
    assert ended.output.events[0].data["policy"] and ended.output.events[0].rule is None
    assert table.engine.snapshot()["last_deal"]["dealt_from"] == 5


def test_a_hand_dealt_from_another_position_is_a_violation_535_2_d(table: Table) -> None:
    table.shake(6, 5, 4)  # 15: (15 - 1) % 7 = 0, the dealer
    out = table.cmd("deal", **{"from": 3})
    assert out.ok, "the dealer's word is recorded, never refused for what it says happened"
    dealt, wrong = out.output.events
    assert dealt.type == EventType.PAIGOW_DEALT and dealt.data["as_determined"] is False
    assert wrong.type == EventType.PROCEDURE_VIOLATION and wrong.rule == D
    assert wrong.data["what"] == "dealt_from_other_position"
    assert wrong.data["dealt_from"] == 3 and wrong.data["expected"] == "dealer"
    assert "6/5/4" in wrong.data["detail"] and wrong.round == dealt.round


def test_a_hand_dealt_with_no_shake_before_it_is_a_violation_535_2_d(table: Table) -> None:
    out = table.cmd("deal", **{"from": "dealer"})
    assert out.ok
    started, dealt, wrong = out.output.events
    assert started.type == EventType.ROUND_STARTED and started.rule is None
    assert started.data["opened_by"] == "deal" and started.data["policy"]
    assert dealt.data["position"] is None and dealt.data["as_determined"] is False
    assert wrong.rule == D and wrong.data["what"] == "dealt_without_shake"
    # A shake now comes after the deal: recorded, and it opens nothing.
    late = table.shake(3, 3, 3)
    assert types(late) == [EventType.PROCEDURE_VIOLATION]
    assert late.events[0].data["what"] == "shaken_during_hand"


def test_a_second_shake_before_the_deal_keeps_the_first_position(table: Table) -> None:
    first = table.shake(2, 2, 2).events[1]
    again = table.shake(6, 6, 5)
    assert types(again) == [EventType.PROCEDURE_VIOLATION]
    body = again.events[0].data
    assert body["what"] == "shaken_again" and body["policy"] and again.events[0].rule is None
    assert body["count"] == 2 and "keeps the position of its first shake" in body["detail"]
    out = table.cmd("deal", **{"from": first.data["position"]})
    assert types(out.output) == [EventType.PAIGOW_DEALT]


def test_a_shake_of_other_than_three_read_dice_determines_nothing_535_2_d(table: Table) -> None:
    """§ 535.2(d): 'shake three dice'; (d)(1): 'capable of housing three dice'."""
    two = table.shake(3, 4)
    assert types(two) == [EventType.PROCEDURE_VIOLATION] and two.events[0].rule == D
    assert two.events[0].data["what"] == "not_three_dice"
    assert two.events[0].data["expected"] == 3
    unread = table.shake(3, None, 4)
    assert unread.events[0].data["what"] == "faces_not_read"
    assert unread.events[0].rule is None and unread.events[0].data["policy"]
    assert table.engine.current_round is None


def test_the_deal_is_from_a_position_of_the_table_535_2_a_b_1(table: Table) -> None:
    """(a): 'places for six players and ... a place for the dealer'; (b)(1): 'betting
    areas ... numbered one through six'."""
    table.shake(1, 1, 2)
    for bad in (7, 0, "banker", True, None, "dead_hand"):
        refused = table.cmd("deal", **{"from": bad})
        assert not refused.ok and refused.rule == cite("535.2(a)"), bad
    assert not table.cmd("deal", **{"from": 1, "box": 2}).ok
    assert not table.cmd("round_end").ok, "the tiles were not dealt yet"
    assert table.cmd("deal", **{"from": 3}).ok
    again = table.cmd("deal", **{"from": 3})
    assert not again.ok and "dealt already" in str(again.error)
    assert table.cmd("round_end").ok
    assert not table.cmd("round_end").ok


def test_the_count_order_holds_each_place_of_535_2_a_once() -> None:
    assert read_count_order(["dealer", 1, 2, 3, 4, 5, 6]) == ("dealer", 1, 2, 3, 4, 5, 6)
    for bad, said in (
        (None, "Rules Submission"),
        ([], "Rules Submission"),
        ([1, 2, 3, 4, 5, 6], "535.2(a)"),
        (["dealer", 1, 2, 3, 4, 5, 6, 7], "535.2(b)(1)"),
        (["dealer", 1, 1, 2, 3, 4, 5, 6], "twice"),
        (["dealer", True, 2, 3, 4, 5, 6], "535.2(b)(1)"),
    ):
        with pytest.raises(ValueError, match=said.replace("(", r"\(").replace(")", r"\)")):
            read_count_order(bad)
        if isinstance(bad, list):
            with pytest.raises(ValueError, match=said.replace("(", r"\(").replace(")", r"\)")):
                PaiGowRules(count_order=tuple(bad))


def test_open_needs_the_535_2_inspection() -> None:
    t = Table()
    t.connect()
    refused = t.cmd("open", "floorperson")
    assert not refused.ok and refused.rule == cite("535.2")
    out = t.cmd("inspect", "floorperson", checklist=INSPECTION)
    logged = out.output.events[0]
    assert logged.type == EventType.OPERATOR_INSPECTION and logged.rule == cite("535.2")
    cited = set(logged.data["items"].values())
    paragraphs = ("a", "b", "b)(1", "b)(2", "b)(3", "c", "d", "d)(1", "d)(2")
    assert cited == {cite(f"535.2({p})") for p in paragraphs}
    assert t.cmd("open", "floorperson").ok


def test_a_shaker_fault_halts_the_table_and_voids_the_hand_until_resumed(table: Table) -> None:
    started = table.shake(5, 5, 5).events[0]
    out = table.dev(
        EventType.DEVICE_FAULT, code=72, text="shaker mechanism jammed", origin="device"
    )
    assert types(out) == [EventType.TABLE_HALTED, EventType.ROUND_VOIDED]
    assert out.events[1].round == started.round and out.events[1].data["policy"]
    assert not table.cmd("deal", **{"from": 1}).ok
    while_halted = table.shake(1, 2, 3)
    assert while_halted.events[0].data["what"] == "shake_while_not_open"
    assert while_halted.events[0].data["state"] == "halted"
    refused = table.cmd("resume", "floorperson", reason="shaker checked")
    assert not refused.ok and "active fault" in str(refused.error)
    table.dev(EventType.DEVICE_OFFLINE, port="/dev/pts/1", reason="replaced")
    table.connect()
    assert table.cmd("resume", "floorperson", reason="shaker replaced").ok
    assert types(table.shake(1, 2, 3))[0] == EventType.ROUND_STARTED


def test_silence_tamper_and_lost_heartbeats_of_the_shaker_halt_the_table(table: Table) -> None:
    halts = [
        table.dev(EventType.DEVICE_TAMPER, code=1, text="case opened"),
        table.dev(EventType.DEVICE_HEARTBEAT_LOST, missed=3),
        table.dev(EventType.DEVICE_OFFLINE, port="/dev/pts/1", reason="silent for 3 s"),
    ]
    codes = [o.events[0].data["code"] for o in halts]
    assert codes == ["device_tamper", "device_heartbeat_lost", "device_offline"]


def test_a_shaker_that_reports_no_capabilities_halts_under_floords_policy() -> None:
    """§ 535.2(d) requires the shaker, not a device that reports: the halt of a shaker
    floord cannot read is floord's policy (rule null), not the paragraph's."""
    t = Table()
    t.dev(EventType.DEVICE_ONLINE, port="/dev/pts/1")
    out = t.dev(EventType.DEVICE_IDENTIFIED, maker="m", model="x", serial=None, firmware="1")
    halted = out.events[0]
    assert halted.type == EventType.TABLE_HALTED and halted.rule is None
    assert halted.data["code"] == "shaker_mismatch" and halted.data["policy"] == SHAKER_POLICY


def test_shakes_on_a_closed_table_and_other_events_are_recorded() -> None:
    t = Table()
    t.connect()
    closed = t.shake(1, 2, 3)
    assert closed.events[0].data["what"] == "shake_while_not_open"
    assert closed.events[0].data["state"] == "closed" and closed.events[0].data["policy"]
    t.open()
    stray = t.dev(EventType.DICE_SET, dice=["D1"])
    assert stray.events[0].data["what"] == "unknown_device_event"
    other = t.shake(1, 2, 3, device="tracker")
    assert other.events[0].data["what"] == "event_from_other_device"
    assert t.engine.current_round is None


def test_snapshot_round_trip_and_restart_voids_the_round(table: Table) -> None:
    table.shake(2, 4, 6)
    snap = json.loads(json.dumps(table.engine.snapshot()))
    again = Table(snapshot=snap)
    assert again.engine.snapshot() == snap == again.engine.public_state()
    assert again.engine.snapshot()["round"]["faces"] == [2, 4, 6]
    [voided] = again.engine.after_restart(again.step()).events
    assert voided.type == EventType.ROUND_VOIDED and voided.data["reason"] == "daemon_restart"
    assert voided.rule is None and voided.data["policy"]
    with pytest.raises(SnapshotError):
        Table(snapshot=dict(snap, game="big_six"))
    with pytest.raises(SnapshotError):
        Table(order=[1, 2, 3, 4, 5, 6, "dealer"], snapshot=snap)


def test_every_decision_carries_a_citation_or_a_policy() -> None:
    t = Table()
    t.connect()
    outs = [t.shake(1, 1, 1), t.cmd("open", "floorperson").output]
    outs.append(t.cmd("inspect", "floorperson", checklist=INSPECTION).output)
    outs.append(t.cmd("open", "floorperson").output)
    outs += [t.shake(1, 2, 3), t.shake(4, 4, 4), t.cmd("deal", **{"from": 2}).output]
    outs += [t.shake(6, 6, 6), t.cmd("round_end").output, t.shake(5, 6)]
    outs += [t.shake(5, None, 6), t.cmd("deal", **{"from": 6}).output]
    outs += [t.cmd("round_end").output, t.shake(3, 2, 1)]
    outs.append(t.dev(EventType.DEVICE_FAULT, code=10, text="hardware fault", origin="device"))
    seen = [d for out in outs for d in out.events]
    kinds = {d.type for d in seen}
    assert kinds >= {EventType.PAIGOW_DEAL_POSITION, EventType.PAIGOW_DEALT,
                     EventType.PROCEDURE_VIOLATION, EventType.ROUND_ENDED,
                     EventType.ROUND_VOIDED, EventType.TABLE_HALTED}  # fmt: skip
    for d in seen:
        assert d.rule or d.data.get("policy"), d
