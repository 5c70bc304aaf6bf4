"""Blackjack engine: what the retained state shows, the reader's self-test, § 549.14.

The retained `P/state` never shows the dealer's hole card before the dealer turns it.
"""

from __future__ import annotations

import json

import pytest
from test_engine_blackjack_support import make_table

from floord.contract import EventType, cite

pytestmark = pytest.mark.unit


def test_public_state_masks_the_hole_card_until_the_dealer_turns_it() -> None:
    t = make_table()
    t.ready()
    assert t.start(1).ok
    t.draws("5S", "8D", "6C", "9S")  # box 1, dealer up, box 1, the hole card
    assert "9S" in json.dumps(t.engine.snapshot()), "the journal's snapshot keeps it"
    public = json.dumps(t.engine.public_state())
    assert "9S" not in public and "8D" in public
    assert t.decide(1, "stand").ok
    assert t.dealer("dealer_turn").ok
    assert "9S" in json.dumps(t.engine.public_state())


def test_a_reader_that_connects_is_asked_for_its_self_test_once_a_gaming_day() -> None:
    t = make_table()
    t.device(EventType.DEVICE_ONLINE, {}, "reader-1")
    identity = {"maker": "T", "model": "M", "serial": "1", "firmware": "1", "capabilities": []}
    out = t.device(EventType.DEVICE_IDENTIFIED, identity, "reader-1")
    assert [(c.device, c.name) for c in out.device_commands] == [("reader-1", "self_test")]
    t.reader(EventType.READER_SELF_TEST, {"passed": True, "code": 0, "text": "ok"})
    out = t.device(EventType.DEVICE_IDENTIFIED, identity, "reader-1")
    assert out.device_commands == []


def test_boxes_per_player_follow_549_14() -> None:
    t = make_table(max_adjacent_boxes=2)
    t.ready()
    three = t.dealer("round_start", {"boxes": [1, 2, 3], "players": {"P1": [1, 2, 3]}})
    assert not three.ok and three.rule == cite("549.14") and "limit is 2" in three.error
    apart = t.dealer("round_start", {"boxes": [1, 3], "players": {"P1": [1, 3]}})
    assert not apart.ok and "not adjacent" in apart.error
    missing = t.dealer("round_start", {"boxes": [1, 2], "players": {"P1": [1]}})
    assert not missing.ok and "every box" in missing.error
    ok = t.dealer("round_start", {"boxes": [1, 2, 4], "players": {"P1": [1, 2], "P2": [4]}})
    assert ok.ok


def test_a_shoe_frame_lost_mid_round_is_a_warning_on_that_round() -> None:
    t = make_table()
    t.ready()
    assert t.start(1).ok
    lost = {"reason": "1 frame(s) lost", "raw": ""}
    out = t.device(EventType.DEVICE_PROTOCOL_ERROR, lost)
    [warning] = out.events
    assert warning.type == EventType.TABLE_WARNING and warning.data["what"] == "shoe_data_lost"
    assert warning.round == t.engine.current_round
    t.draws("5S", "8D", "6C", "9S")
    assert t.decide(1, "stand").ok
    assert t.dealer("dealer_turn").ok
    assert t.dealer("round_end").ok
    assert t.device(EventType.DEVICE_PROTOCOL_ERROR, lost).events == []  # between rounds


def test_a_count_of_shoe_errors_mid_round_is_a_warning_too() -> None:
    # The adapter's limiter counts errors past the first of their kind
    # (device.protocol_errors): a count that lands in a round puts it in doubt the same way.
    t = make_table()
    t.ready()
    assert t.start(1).ok
    counted = {
        "count": 7,
        "first": "2026-11-29T20:00:00.000000Z",
        "last": "2026-11-29T20:00:01.000000Z",
        "sample": {"reason": "1 frame(s) lost: SEQ 05 after 03", "raw": ""},
        "interval_s": 60.0,
    }
    [warning] = t.device(EventType.DEVICE_PROTOCOL_ERRORS, counted).events
    assert warning.type == EventType.TABLE_WARNING and warning.data["what"] == "shoe_data_lost"
    assert warning.data["reason"] == "7 protocol errors, such as: 1 frame(s) lost: SEQ 05 after 03"
    assert warning.round == t.engine.current_round
