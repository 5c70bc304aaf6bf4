"""Mississippi Stud table: construction, inspection, devices, snapshots and public state."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from test_engine_stud_support import CHECKLIST, SHOE, make_table, of_type

from floord.contract import EventType, cite
from floord.engine import SnapshotError
from floord.engine.stud.rules import StudRules

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("over", "match"),
    [
        ({"dealing": "hand", "shuffler": "none"}, r"571\.9\(a\)\(1\)"),
        ({"dealing": "deck"}, "dealing must be"),
        ({"boxes": 7}, r"571\.2\(a\)"),
        ({"decks": 3}, r"571\.3"),
        ({"shuffler": "continuous"}, "shuffler must be"),
    ],
)
def test_bad_rules_are_refused_at_construction(over, match) -> None:
    with pytest.raises(ValueError, match=match):
        make_table(**over)


def test_the_rules_in_effect_under_a_cover_are_the_configured_ones_dealt_another_way() -> None:
    """§ 571.9(a)(1) is checked of the table's rules; under a cover of the automated shoe
    (§ 571.13(g)) the rules in effect are those with the method `cover_shoe` recorded."""
    table_rules = StudRules(dealing="automated_shoe", shuffler="none")
    covered = replace(table_rules, dealing="hand", shoe_observed=False)
    assert covered.dealing == "hand" and not covered.has_shoe
    with pytest.raises(ValueError, match=r"571\.9\(a\)\(1\)"):
        replace(table_rules, dealing="hand")


def test_inspect_is_the_floorpersons_571_4_b() -> None:
    t = make_table()
    refused = t.command("inspect", {"checklist": CHECKLIST}, role="security")
    assert not refused.ok and refused.rule == cite("571.4(b)")
    [log] = t.command("inspect", {"checklist": CHECKLIST}).output.events
    assert log.type == EventType.OPERATOR_INSPECTION and log.rule == cite("571.4(b)")


def test_a_shoe_that_does_not_read_cards_halts_a_recognition_table() -> None:
    t = make_table()
    t.device(EventType.DEVICE_ONLINE, {}, SHOE)
    identity = {"maker": "T", "model": "M", "serial": "1", "firmware": "1", "capabilities": []}
    out = t.device(EventType.DEVICE_IDENTIFIED, identity, SHOE)
    [halt] = of_type(out, EventType.TABLE_HALTED)
    assert halt.data["code"] == "device_mismatch"


def test_events_from_the_wrong_device_or_unknown_are_recorded() -> None:
    t = make_table()
    t.ready()
    out = t.device(EventType.SHOE_LOADED, {"side": None}, "shuffler-1")
    [v] = of_type(out, EventType.PROCEDURE_VIOLATION)
    assert v.rule is None and v.data["what"] == "event_from_other_device" and v.data["policy"]
    out = t.device(EventType.SHOE_CARD_DRAWN, {"count": 1, "card": "ZZ"})
    assert of_type(out, EventType.PROCEDURE_VIOLATION)[0].data["what"] == "unreadable_card"
    out = t.device(EventType.SHOE_CARD_DRAWN, {"count": 1, "card": "AS"})
    assert of_type(out, EventType.PROCEDURE_VIOLATION)[0].data["what"] == "card_without_round"


def test_public_state_masks_unturned_cards_and_snapshot_keeps_them() -> None:
    t = make_table()
    t.ready()
    assert t.start(1).ok
    assert t.dealer("no_more_bets").ok
    t.draws("AS", "KS", "QS", "JS", "TS")
    assert t.street({1: "play1"}, 1).ok
    public = t.engine.public_state()["round"]
    assert public["community"] == ["QS", "down", "down"]
    assert public["hands"][0]["cards"] == ["down", "down"]
    assert t.engine.snapshot()["round"]["hands"][0]["cards"] == ["AS", "KS"]
    assert t.street({1: "play1"}, 2).ok
    assert t.street({1: "play1"}, 3).ok
    assert t.engine.public_state()["round"]["hands"][0]["cards"] == ["AS", "KS"]


def test_snapshot_round_trip_mid_round_behaves_the_same() -> None:
    t = make_table()
    t.ready()
    assert t.start(1).ok
    assert t.dealer("no_more_bets").ok
    t.draws("AS", "KS", "QS", "JS", "TS")
    assert t.street({1: "play3"}, 1).ok
    snap = json.loads(json.dumps(t.engine.snapshot()))
    t2 = make_table(snapshot=snap, clock=t.clock)
    assert t2.engine.snapshot() == t.engine.snapshot()
    for table in (t, t2):
        assert table.street({1: "play1"}, 2).ok
        assert table.street({1: "play1"}, 3).ok
    a, b = t.dealer("round_end"), t2.dealer("round_end")
    assert [(d.type, d.data, d.rule) for d in a.output.events] == [
        (d.type, d.data, d.rule) for d in b.output.events
    ]


def test_after_restart_voids_the_round_and_refuses_other_snapshots() -> None:
    t = make_table()
    t.ready()
    assert t.start(1).ok
    snap = t.engine.snapshot()
    t2 = make_table(snapshot=snap, clock=t.clock)
    out = t2.engine.after_restart(t.clock.step())
    [void] = of_type(out, EventType.ROUND_VOIDED)
    assert void.rule is None and "restart" in void.data["policy"]
    with pytest.raises(SnapshotError):
        make_table(snapshot={**snap, "table": "other"})


def test_every_decision_carries_a_citation_or_a_policy() -> None:
    t = make_table()
    t.ready()
    outs = [t.play_round({1: "AS KS", 2: "7C 7D"}, "QS JS TS")]
    t.prepare()
    outs.append(t.start(1))
    outs.append(t.dealer("no_more_bets"))
    outs.append(t.dealer("reveal", {"card": 1}))
    outs.append(t.command("remove_deck", {"reason": "marked card"}))
    for out in outs:
        assert out.ok, out.error
        for d in out.output.events:
            if d.type in (EventType.ROUND_ENDED,):
                continue
            assert d.rule or d.data.get("policy"), d
