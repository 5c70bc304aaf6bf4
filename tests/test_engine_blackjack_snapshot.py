"""Snapshots and restarts of a Blackjack table, and the citation discipline."""

from __future__ import annotations

import json

import pytest
from test_engine_blackjack_shoe import _play_round
from test_engine_blackjack_support import READER, SHUFFLER, TABLE, make_table, types

from floord.contract import EventType
from floord.engine import SnapshotError

pytestmark = pytest.mark.unit


def _restarted(t, game: str = "blackjack", **kw):
    snap = json.loads(json.dumps(t.engine.snapshot()))  # as stored: JSON
    return make_table(game, snapshot=snap, clock=t.clock, **kw)


def test_snapshot_round_trip_mid_round_behaves_the_same() -> None:
    a = make_table()
    a.ready()
    a.start(1, 2)
    a.draws("8S", "AD", "KC", "9H")
    a.decide(1, "insurance")
    b = _restarted(a)
    assert b.engine.snapshot() == a.engine.snapshot()
    assert b.engine.current_round == a.engine.current_round == f"{TABLE}-2024-03-05-0001"
    outs = []
    for t in (a, b):
        t.drawn = a.drawn
        out = t.draws("3C", "7S")
        out.extend(t.peek(False))
        t.decide(1, "split")
        out.extend(t.draws("8H", "2C"))
        t.decide(1, "stand", hand=1)
        t.decide(1, "stand", hand=2)
        t.decide(2, "stand")
        out.extend(t.dealer("dealer_turn").output)
        out.extend(t.draw("4D"))
        out.extend(t.dealer("round_end").output)
        outs.append([(d.type, d.data, d.rule, d.round) for d in out.events])
    assert outs[0] == outs[1]
    assert outs[1][-1][0] == EventType.ROUND_ENDED


def test_after_restart_voids_the_round_and_a_halt_stays_latched() -> None:
    a = make_table()
    a.ready()
    round_id = a.start(1).output.events[0].round
    b = _restarted(a)
    out = b.engine.after_restart(b.clock.step())
    assert types(out) == ["round.voided"] and out.events[0].round == round_id
    assert "restart rule" in out.events[0].data["policy"]
    assert b.engine.snapshot()["devices"][READER]["online"] is False
    b.reader(EventType.DEVICE_FAULT, {"code": 1, "text": "x"})
    c = _restarted(b)
    assert c.engine.after_restart(c.clock.step()).events == []
    assert c.engine.snapshot()["state"] == "halted"


def test_a_snapshot_of_another_table_or_game_is_refused() -> None:
    snap = make_table().engine.snapshot()
    with pytest.raises(SnapshotError, match="game 'blackjack'"):
        make_table("spanish21", snapshot=snap)
    with pytest.raises(SnapshotError, match="version"):
        make_table(snapshot={**snap, "version": 9})
    with pytest.raises(SnapshotError, match="sides"):
        make_table(snapshot=snap, shoe="double", decks=2)


def test_bad_configurations_are_refused() -> None:
    with pytest.raises(ValueError, match=r"551\.3"):
        make_table("spanish21", decks=4)
    with pytest.raises(ValueError, match="double shoe"):
        make_table("spanish21", shoe="double")
    with pytest.raises(ValueError, match="shuffler device"):
        make_table(shuffler="batch", batch_backs=["a", "b"])
    with pytest.raises(ValueError, match="game"):
        make_table("baccarat")


def _scenario() -> list:
    """Many kinds of decision, on both games."""
    decisions = []
    for game in ("blackjack", "spanish21"):
        t = make_table(game, shuffler_device=SHUFFLER)
        steps = [t.draw("5C")]
        t.ready()
        steps.append(t.device(EventType.SHOE_CUTTING_CARD, {"count": 0, "side": None}))
        steps.append(_play_round(t, ("AS", "6D", "KD", "TC" if game == "spanish21" else "9C")))
        t.load()
        t.start(1)
        steps.append(t.draws("TS", "AD", "7C", "KH"))
        steps.append(t.peek(False))
        steps.append(t.device(EventType.SHOE_CARD_FACE_UP, {"card": "2S"}))
        steps.append(t.device(EventType.SHOE_EMPTY, {}))
        steps.append(t.device(EventType.SHUFFLER_JAM, {"batch": None}, SHUFFLER))
        steps.append(t.reader(EventType.DEVICE_TAMPER, {"code": 1}))
        steps.append(t.device("shoe.teleported", {}))
        steps.append(t.inspect(card_reader_working=False).output)
        steps.append(t.command("close").output)
        decisions += [d for out in steps for d in out.events]
    return decisions


def test_every_decision_under_a_regulation_carries_its_citation() -> None:
    decisions = _scenario()
    seen = {str(d.type) for d in decisions}
    assert {"blackjack.result", "blackjack.peek", "round.voided", "table.halted"} <= seen
    assert {"procedure.violation", "cards.shuffle_required", "blackjack.hand"} <= seen
    for d in decisions:
        own = {k: v for k, v in d.data.items() if k != "reasons"}  # earlier halts' own rules
        if "58 Pa. Code" in json.dumps(own, ensure_ascii=False):
            assert d.rule is not None, d
        if d.rule is not None:
            assert d.rule.startswith("58 Pa. Code § 5"), d
        if d.type in (EventType.BLACKJACK_RESULT, EventType.BLACKJACK_HAND):
            assert d.rule is not None, d
        if d.rule is None and d.type in (
            EventType.TABLE_HALTED,
            EventType.ROUND_VOIDED,
            EventType.PROCEDURE_VIOLATION,
            EventType.CARDS_BATCH_REFUSED,
            EventType.TABLE_WARNING,
        ):
            assert "policy" in d.data and "not a regulation" in d.data["policy"], d
