"""The Big Six engine (58 Pa. Code ch. 533): each rule with its citation, in virtual time."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from typing import Any

import pytest

from floord.contract import EventType, cite
from floord.engine.big_six.engine import BigSixEngine
from floord.engine.core.snapshots import SnapshotError
from floord.engine.core.types import EngineOutput, VerifiedCommand

pytestmark = pytest.mark.unit

T0 = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
WHEEL = "wheel"
INSPECTION = {"sections_glass_covered": True, "payout_odds_displayed": True,
              "clapper_working": True, "layout_approved": True}  # fmt: skip


class Table:
    def __init__(self, **kwargs: Any) -> None:
        self.now = T0
        self.n = 0
        self.engine = BigSixEngine(
            "B6-01", wheel_device=WHEEL, required_devices=[WHEEL],
            gaming_day_starts=time(6), timezone="UTC", **kwargs,
        )  # fmt: skip

    def step(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now

    def dev(self, type: str, **data: Any) -> EngineOutput:
        return self.engine.on_device_event(WHEEL, type, data, self.step())

    def cmd(self, name: str, role: str = "dealer", **args: Any):
        self.n += 1
        command = VerifiedCommand(f"c{self.n}", name, "alice", role, args)
        return self.engine.on_command(command, self.step())

    def open(self) -> None:
        self.dev(EventType.DEVICE_ONLINE)
        caps = ["clapper", "sections"]
        self.dev(EventType.DEVICE_IDENTIFIED, maker="m", model="x", capabilities=caps)
        assert self.cmd("inspect", "floorperson", checklist=INSPECTION).ok
        assert self.cmd("open", "floorperson").ok

    def spin(self, revolutions: int = 4, direction: str = "cw") -> list[EngineOutput]:
        outs = [self.dev(EventType.BIGSIX_SPIN_STARTED, direction=direction)]
        outs += [self.dev(EventType.BIGSIX_REVOLUTION, count=n + 1) for n in range(revolutions)]
        return outs


def types(out: EngineOutput) -> list[str]:
    return [d.type for d in out.events]


@pytest.fixture
def table() -> Table:
    t = Table()
    t.open()
    return t


def test_a_valid_spin_names_section_symbol_and_odds_533_3_a(table: Table) -> None:
    started = table.cmd("spin")
    assert started.ok and types(started.output) == [EventType.ROUND_STARTED]
    assert started.output.events[0].rule == cite("533.2(a)")
    assert started.output.events[0].data["no_more_bets"] is True
    table.spin(4)
    out = table.dev(EventType.BIGSIX_AT_REST, section=13)
    assert types(out) == [EventType.BIGSIX_RESULT, EventType.ROUND_ENDED]
    result = out.events[0]
    assert result.rule == cite("533.3(a)")
    assert result.data["symbol"] == "$20" and result.data["odds"] == "20 to 1"
    assert result.data["revolutions"] == 4 and result.data["direction"] == "cw"
    assert table.engine.current_round is None


@pytest.mark.parametrize(
    ("section", "symbol", "odds"),
    [(0, "joker", 45), (27, "flag", 45), (1, "$1", 1), (2, "$2", 2), (4, "$5", 5),
     (7, "$10", 10), (40, "$20", 20)],
)  # fmt: skip
def test_every_pay_class_pays_its_minimum_odds_533_3_a(
    table: Table, section: int, symbol: str, odds: int
) -> None:
    table.cmd("spin")
    table.spin(3)
    result = table.dev(EventType.BIGSIX_AT_REST, section=section).events[0]
    assert (result.data["symbol"], result.data["odds_to_one"]) == (symbol, odds)
    assert result.data["odds"] == f"{odds} to 1"


def test_losing_wagers_are_collected_before_winners_are_paid_533_2_d(table: Table) -> None:
    table.cmd("spin")
    table.spin(3)
    data = table.dev(EventType.BIGSIX_AT_REST, section=0).events[0].data
    collect, pay = data["settlement"]
    assert (collect["step"], collect["action"], pay["step"], pay["action"]) == (
        1, "collect", 2, "pay")  # fmt: skip
    assert {w["symbol"] for w in collect["wagers"]} == {"$1", "$2", "$5", "$10", "$20", "flag"}
    assert pay["wagers"] == [{"symbol": "joker", "pay_class": "joker", "odds": "45 to 1"}]
    assert data["settlement_rule"] == cite("533.2(d)")


def test_a_spin_before_no_more_bets_is_a_violation_and_no_result_533_2_a(table: Table) -> None:
    out = table.dev(EventType.BIGSIX_SPIN_STARTED, direction="ccw")
    assert types(out) == [EventType.PROCEDURE_VIOLATION]
    assert out.events[0].data["what"] == "spin_without_no_more_bets"
    assert out.events[0].rule == cite("533.2(a)")
    refused = table.cmd("spin")
    assert not refused.ok and "turning" in (refused.error or "")
    for n in range(4):
        assert table.dev(EventType.BIGSIX_REVOLUTION, count=n + 1).events == []
    rest = table.dev(EventType.BIGSIX_AT_REST, section=0)
    assert types(rest) == [EventType.BIGSIX_NO_SPIN]
    assert rest.events[0].rule == cite("533.2(a)")
    assert rest.events[0].data["reason"] == "no_more_bets_not_called"
    assert table.cmd("spin").ok  # the dealer calls it now and spins again


def test_fewer_than_three_revolutions_is_void_and_respun_533_2_b(table: Table) -> None:
    table.cmd("spin")
    table.spin(2)
    out = table.dev(EventType.BIGSIX_AT_REST, section=0)
    assert types(out) == [EventType.BIGSIX_NO_SPIN, EventType.ROUND_VOIDED]
    assert all(d.rule == cite("533.2(b)") for d in out.events)
    assert out.events[0].data["respin"] is True and out.events[0].data["revolutions"] == 2
    assert table.cmd("spin").ok and table.engine.current_round is not None


def test_the_clapper_between_two_sections_voids_the_spin_533_2_c(table: Table) -> None:
    table.cmd("spin")
    table.spin(5)
    out = table.dev(EventType.BIGSIX_BETWEEN_SECTIONS, left=13, right=14)
    assert types(out) == [EventType.BIGSIX_NO_SPIN, EventType.ROUND_VOIDED]
    assert all(d.rule == cite("533.2(c)") for d in out.events)
    assert out.events[0].data["reason"] == "between_sections"
    assert "second paragraph (c)" in out.events[0].data["paragraph"]
    assert out.events[0].data["respin"] is True


def test_a_sensor_fault_halts_the_table_and_voids_the_round(table: Table) -> None:
    table.cmd("spin")
    table.spin(1)
    out = table.dev(EventType.DEVICE_FAULT, code=50, text="clapper sensor failed", origin="device")
    assert types(out) == [EventType.TABLE_HALTED, EventType.ROUND_VOIDED]
    assert table.engine.snapshot()["state"] == "halted"
    assert table.dev(EventType.BIGSIX_AT_REST, section=3).events == []
    assert not table.cmd("spin").ok


@pytest.mark.parametrize(
    ("type", "data", "code"),
    [(EventType.DEVICE_OFFLINE, {"reason": "silent"}, "device_offline"),
     (EventType.DEVICE_TAMPER, {"code": 3, "text": "magnet"}, "device_tamper"),
     (EventType.DEVICE_HEARTBEAT_LOST, {"missed": 2}, "device_heartbeat_lost")],
)  # fmt: skip
def test_silence_tamper_and_lost_heartbeats_halt_the_table(
    table: Table, type: str, data: dict, code: str
) -> None:
    table.cmd("spin")
    out = table.engine.on_device_event(WHEEL, type, data, table.step())
    assert types(out) == [EventType.TABLE_HALTED, EventType.ROUND_VOIDED]
    assert out.events[0].data["code"] == code


def test_spin_needs_an_open_table_and_no_round_in_play() -> None:
    t = Table()
    refused = t.cmd("spin")
    assert not refused.ok and "not open" in (refused.error or "")
    t.open()
    assert t.cmd("spin").ok
    assert not t.cmd("spin").ok
    assert not t.cmd("spin", force=True).ok


def test_a_spin_on_a_closed_table_is_recorded() -> None:
    t = Table()
    out = t.dev(EventType.BIGSIX_SPIN_STARTED, direction="cw")
    assert out.events[0].data["what"] == "spin_while_not_open"


def test_a_wheel_without_the_clapper_capability_halts_533_1_e() -> None:
    t = Table()
    t.dev(EventType.DEVICE_ONLINE)
    out = t.dev(EventType.DEVICE_IDENTIFIED, maker="m", model="x", capabilities=["sections"])
    assert types(out) == [EventType.TABLE_HALTED] and out.events[0].rule == cite("533.1(e)")


def test_open_needs_the_533_1_inspection() -> None:
    t = Table()
    t.dev(EventType.DEVICE_ONLINE)
    t.dev(EventType.DEVICE_IDENTIFIED, maker="m", model="x", capabilities=["clapper"])
    refused = t.cmd("open", "floorperson")
    assert not refused.ok and refused.rule == cite("533.1")


def test_odd_events_are_recorded_not_trusted(table: Table) -> None:
    table.cmd("spin")
    table.dev(EventType.BIGSIX_SPIN_STARTED, direction="cw")
    table.dev(EventType.BIGSIX_REVOLUTION, count=2)
    back = table.dev(EventType.BIGSIX_REVOLUTION, count=1)
    assert back.events[0].data["what"] == "revolution_count_out_of_order"
    again = table.dev(EventType.BIGSIX_SPIN_STARTED, direction="ccw")
    assert types(again) == [EventType.PROCEDURE_VIOLATION, EventType.ROUND_VOIDED]
    table.cmd("spin")  # refused: the second spin is still turning
    assert table.engine.current_round is None
    table.dev(EventType.BIGSIX_AT_REST, section=3)
    assert table.cmd("spin").ok
    table.spin(3)
    bad = table.dev(EventType.BIGSIX_AT_REST, section=54)
    assert types(bad) == [EventType.PROCEDURE_VIOLATION, EventType.ROUND_VOIDED]
    assert bad.events[0].data["what"] == "impossible_section"
    other = table.engine.on_device_event("x", EventType.SHOE_EMPTY, {}, table.step())
    assert other.events[0].data["what"] == "unknown_device_event"


def test_a_rest_without_a_spin_is_no_result(table: Table) -> None:
    table.cmd("spin")
    out = table.dev(EventType.BIGSIX_AT_REST, section=3)
    assert types(out) == [EventType.BIGSIX_NO_SPIN, EventType.ROUND_VOIDED]
    assert out.events[0].data["reason"] == "spin_not_seen"


def test_themed_symbols_are_named_in_the_result_533_1_c() -> None:
    themes = {"cherry": "$1", "lemon": "$2", "plum": "$5", "bell": "$10", "seven": "$20",
              "star": "flag", "clown": "joker"}  # fmt: skip
    from floord.engine.big_six.layout import ORDER_533_1_B

    by_class = {c: s for s, c in themes.items()}
    t = Table(layout=[by_class[c] for c in ORDER_533_1_B], symbols=themes)
    t.open()
    t.cmd("spin")
    t.spin(3)
    data = t.dev(EventType.BIGSIX_AT_REST, section=13).events[0].data
    assert (data["symbol"], data["pay_class"], data["odds"]) == ("seven", "$20", "20 to 1")


def test_snapshot_round_trip_and_restart_voids_the_round(table: Table) -> None:
    table.cmd("spin")
    snap = table.engine.snapshot()
    again = BigSixEngine("B6-01", wheel_device=WHEEL, required_devices=[WHEEL],
                         gaming_day_starts=time(6), timezone="UTC", snapshot=snap)  # fmt: skip
    assert again.snapshot() == snap
    out = again.after_restart(table.step())
    assert types(out) == [EventType.ROUND_VOIDED]
    assert out.events[0].data["reason"] == "daemon_restart"
    with pytest.raises(SnapshotError):
        BigSixEngine("B6-02", wheel_device=WHEEL, required_devices=[WHEEL],
                     gaming_day_starts=time(6), timezone="UTC", snapshot=snap)  # fmt: skip
