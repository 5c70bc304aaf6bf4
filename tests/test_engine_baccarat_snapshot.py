"""Snapshots and restarts of a Baccarat table, the table commands, and the citation discipline."""

from __future__ import annotations

import json

import pytest
from test_engine_baccarat_support import make_table, of_type, result, types

from floord.contract import EventType
from floord.engine import SnapshotError

pytestmark = pytest.mark.unit


def test_snapshot_round_trip_mid_coup_behaves_the_same() -> None:
    t = make_table("midibaccarat")
    t.ready()
    t.device(EventType.SHOE_CUTTING_CARD, {"count": 30, "side": None})
    t.start()
    t.draws("3S", "2H", "KD")
    snap = t.engine.snapshot()
    assert json.loads(json.dumps(snap)) == snap
    assert snap["rules"]["vigorish_percent"] == 5 and snap["round"]["cover_card"] is True
    twin = make_table("midibaccarat", snapshot=snap, clock=t.clock)
    assert twin.engine.snapshot() == snap
    assert twin.engine.public_state() == snap
    for table in (t, twin):
        out = table.draws("KC", "2D", "3H")  # P 3 draws 2: 5; B 2 draws: 5
        assert [h.data["next"] for h in of_type(out, EventType.BACCARAT_HAND)] == [
            "player_third",
            "banker_third",
            "none",
        ]
        end = table.end().output
        assert result(end)["winner"] == "tie" and types(end)[-1] == "cards.last_hand"
    assert twin.engine.snapshot()["shoe"] == t.engine.snapshot()["shoe"]


def test_after_restart_voids_the_coup_and_a_halt_stays_latched() -> None:
    t = make_table()
    t.ready()
    t.start()
    t.draws("3S")
    t.device(EventType.DEVICE_FAULT, {"code": 7, "text": "jam", "origin": "status_flag"})
    t2 = make_table()
    t2.ready()
    t2.start()
    snap = t2.engine.snapshot()
    again = make_table(snapshot=snap, clock=t2.clock)
    out = again.engine.after_restart(again.clock.step())
    [void] = out.events
    assert void.type == EventType.ROUND_VOIDED and void.data["reason"] == "daemon_restart"
    assert again.engine.current_round is None
    halted = make_table(snapshot=t.engine.snapshot(), clock=t.clock)
    assert halted.engine.snapshot()["state"] == "halted"
    assert halted.engine.snapshot()["round"] is None  # the fault voided it


def test_a_snapshot_of_another_table_or_game_is_refused() -> None:
    snap = make_table().engine.snapshot()
    with pytest.raises(SnapshotError, match="game"):
        make_table("minibaccarat", snapshot=snap)
    with pytest.raises(SnapshotError, match="table"):
        make_table(snapshot={**snap, "table": "OTHER"})
    with pytest.raises(SnapshotError, match="version"):
        make_table(snapshot={**snap, "version": 99})
    with pytest.raises(SnapshotError, match="cover"):
        make_table(snapshot={**snap, "shoe": {**snap["shoe"], "cover": "maybe"}})


def test_table_commands_and_roles() -> None:
    t = make_table()
    refused = t.command("inspect", {"checklist": {"cards_inspected": True}}, role="security")
    assert not refused.ok and "545.4(a)" in (refused.rule or "")
    t.ready()
    assert not t.dealer("round_start", {"boxes": [1]}).ok
    assert not t.dealer("shuffle_up").ok
    assert not t.dealer("round_end").ok  # no round in play
    assert t.dealer("dealer_in").ok
    t.start()
    assert not t.dealer("dealer_in").ok
    assert not t.command("change_decks").ok


def test_a_shoe_that_does_not_match_the_configuration_halts() -> None:
    t = make_table(recognition=False)
    t.device(EventType.DEVICE_ONLINE)
    out = t.device(EventType.DEVICE_IDENTIFIED, {"capabilities": ["recognition"]})
    [halt] = out.events
    assert halt.type == EventType.TABLE_HALTED and halt.data["code"] == "shoe_mismatch"


def _scenario() -> list:
    decisions = []
    for game, over in (
        ("minibaccarat", {"dragon_bonus_table": "C"}),
        ("midibaccarat", {}),
        ("baccarat", {"ez_baccarat": True}),
    ):
        t = make_table(game, **over)
        t.ready(load=False)
        steps = [t.load()]
        steps.append(t.coup("3S", "2H", "KD", "2C", "2D", "3H", "9S"))
        steps.append(t.draw("4S"))
        t.device(EventType.SHOE_CUTTING_CARD, {"count": 0, "side": None})
        steps.append(t.coup("7S", "2H", "KD", "4C"))
        steps.append(t.coup("9S", "9H", "KD", "KC"))
        steps.append(t.command("change_decks").output)
        steps.append(t.load())  # not yet inspected: a violation, the load does not count
        steps += [step.output for step in t.inspect_decks(8)]
        steps.append(t.load())
        t.start()
        steps.append(t.draws("2S", "3H", "KD", "KC"))
        steps.append(t.end().output)
        steps.append(t.command("reshuffle", {"reason": "shoe check"}).output)
        t.load()
        t.start()
        steps.append(t.device(EventType.SHOE_CARD_FACE_UP, {"card": "5S", "side": None}))
        steps.append(t.device(EventType.DEVICE_PROTOCOL_ERROR, {"reason": "crc", "raw": "x"}))
        steps.append(t.device("shoe.teleported", {}))
        steps.append(t.device(EventType.SHOE_EMPTY, {"side": None}))
        steps.append(t.engine.on_device_event("reader-9", EventType.SHOE_EMPTY, {}, t.clock.step()))
        steps.append(t.device(EventType.DEVICE_FAULT, {"code": 1, "text": "jam"}))
        decisions += [d for out in steps for d in out.events]
    return decisions


def test_every_decision_under_a_regulation_carries_its_citation() -> None:
    decisions = _scenario()
    seen = {str(d.type) for d in decisions}
    assert {"baccarat.result", "baccarat.hand", "cards.burn", "cards.last_hand"} <= seen
    assert {"procedure.violation", "cards.shuffle_required", "cards.decks_changed"} <= seen
    assert {"table.halted", "round.voided", "table.warning"} <= seen
    for d in decisions:
        own = {k: v for k, v in d.data.items() if k != "reasons"}
        if "58 Pa. Code" in json.dumps(own, ensure_ascii=False):
            assert d.rule is not None, d
        if d.rule is not None:
            assert d.rule.startswith("58 Pa. Code § 54"), d
        if d.type in (
            EventType.BACCARAT_RESULT,
            EventType.BACCARAT_HAND,
            EventType.CARDS_BURN,
            EventType.CARDS_LAST_HAND,
        ):
            assert d.rule is not None, d
        if d.rule is None and d.type in (
            EventType.TABLE_HALTED,
            EventType.ROUND_VOIDED,
            EventType.PROCEDURE_VIOLATION,
            EventType.CARDS_SHUFFLE_REQUIRED,
            EventType.TABLE_WARNING,
        ):
            assert "policy" in d.data and "not a regulation" in d.data["policy"], d
