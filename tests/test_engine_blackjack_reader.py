"""The card reader: inspection and self-test before dealing, malfunctions, the peek.

58 Pa. Code § 549.2(e) / § 551.2(e), § 549.7(f), § 549.10, § 549.16(j) and (k).
"""

from __future__ import annotations

import pytest
from test_engine_blackjack_support import READER, SHOE, make_table, of_type, types, violations

from floord.contract import EventType, cite

pytestmark = pytest.mark.unit

READER_RULE = cite("549.2(e)")
MALFUNCTION = cite("549.16(k)")


def test_no_round_before_the_floorpersons_inspection_and_a_passed_self_test() -> None:
    t = make_table()
    t.connect_all()
    assert t.command("open").rule == READER_RULE  # open itself needs the inspection
    assert t.inspect().ok and t.command("open").ok
    t.new_decks()
    t.load()
    refused = t.start(1)
    assert not refused.ok and refused.rule == READER_RULE and "self-test" in refused.error
    # A card drawn now is dealing before the reader was cleared.
    v = violations(t.draw("5S"))
    assert v[0].data["what"] == "card_outside_round" and v[0].rule == READER_RULE
    t.reader(EventType.READER_SELF_TEST, {"passed": True, "code": 0, "text": "ok"})
    assert t.start(1).ok


def test_the_reader_is_inspected_by_the_floorperson_and_spanish21_cites_551_2_e() -> None:
    t = make_table("spanish21")
    t.connect_all()
    refused = t.command("inspect", {"checklist": {}}, by="s1", role="security")
    assert not refused.ok and refused.rule == cite("551.2(e)")
    out = t.inspect().output
    event = of_type(out, EventType.OPERATOR_INSPECTION)[0]
    assert event.rule == cite("551.2(e)")
    assert event.data["items"]["tens_removed"] == cite("551.4(b)")
    assert event.data["items"]["cards_inspected"] == cite("551.4(a)")


def test_a_tamper_report_needs_a_new_inspection_before_dealing() -> None:
    t = make_table()
    t.ready()
    out = t.reader(EventType.DEVICE_TAMPER, {"code": 3, "text": "case opened"})
    halted = of_type(out, EventType.TABLE_HALTED)[0]
    assert halted.rule == MALFUNCTION and halted.data["code"] == "device_tamper"
    t.reader(EventType.DEVICE_OFFLINE, {})
    t.connect_all()
    assert t.command("resume", {"reason": "reader checked"}).ok is False  # inspection first
    assert t.inspect().ok
    assert t.command("resume", {"reason": "reader checked"}).ok
    assert t.start(1).ok


@pytest.mark.parametrize(
    ("type", "data", "code"),
    [
        (EventType.DEVICE_FAULT, {"code": 7, "text": "sensor", "origin": "x"}, "device_fault"),
        (EventType.DEVICE_OFFLINE, {}, "device_offline"),
        (EventType.DEVICE_HEARTBEAT_LOST, {"missed": 3}, "device_heartbeat_lost"),
        (
            EventType.READER_SELF_TEST,
            {"passed": False, "code": 9, "text": "lamp"},
            "reader_self_test_failed",
        ),
    ],
)
def test_reader_trouble_halts_and_suspends_the_round_citing_549_16_k(type, data, code) -> None:
    """§ 549.16(k): "If a card reader device malfunctions, the dealer may not continue
    dealing the game of Blackjack at that table until the card reader device is repaired
    or replaced." The table halts; the round in play is suspended, not void (this test
    once asserted a void citing (k), which the paragraph does not say)."""
    t = make_table()
    t.ready()
    round_id = t.start(1).output.events[0].round
    t.draws("TS", "9H")
    out = t.reader(type, data)
    assert types(out) == ["table.halted", "table.warning"]
    halted, suspended = out.events
    assert halted.rule == MALFUNCTION and halted.data["code"] == code
    assert suspended.rule == MALFUNCTION and suspended.round == round_id
    assert suspended.data["what"] == "round_suspended"
    assert t.engine.current_round == round_id
    assert not t.start(1).ok
    assert violations(t.draw("4C"))[0].rule == MALFUNCTION


def test_resume_after_a_failed_self_test_needs_a_passing_one() -> None:
    t = make_table()
    t.ready()
    t.reader(EventType.READER_SELF_TEST, {"passed": False, "code": 9, "text": "lamp"})
    refused = t.command("resume", {"reason": "fixed"})
    assert not refused.ok and "self-test" in refused.error
    t.reader(EventType.READER_SELF_TEST, {"passed": True, "code": 0, "text": "ok"})
    assert t.command("resume", {"reason": "fixed"}).ok
    assert t.start(1).ok


def test_a_shoe_fault_halts_under_floords_policy_not_549_16_k() -> None:
    t = make_table()
    t.ready()
    t.start(1)
    out = t.device(EventType.DEVICE_FAULT, {"code": 1, "text": "jam"}, SHOE)
    assert types(out) == ["table.halted", "round.voided"]
    assert out.events[0].rule is None and "not a regulation" in out.events[1].data["policy"]


def test_a_reader_of_the_wrong_kind_halts_under_floords_policy() -> None:
    """§ 549.16(j) says how a wrong peek is judged for each kind of reader ("(1) If the
    particular card reader device in use provides any player with the opportunity to
    determine the value of the hole card ..."); it says nothing of a reader of another
    kind than configured. That halt is floord's policy: no citation (this test once
    asserted § 549.16(j))."""
    t = make_table(exposes=False)
    t.device(EventType.DEVICE_ONLINE, {}, READER)
    identity = {"maker": "T", "model": "M", "serial": "1", "firmware": "1",
                "capabilities": ["exposes_value"]}  # fmt: skip
    out = t.device(EventType.DEVICE_IDENTIFIED, identity, READER)
    [halted] = of_type(out, EventType.TABLE_HALTED)
    assert halted.rule is None and "not a regulation" in halted.data["detail"]
    reason = t.engine.snapshot()["halt_reasons"][0]
    assert reason["code"] == "reader_mismatch" and reason["rule"] is None


def _dealt(up: str, hole: str, *, exposes: bool = False):
    t = make_table(exposes=exposes)
    t.ready()
    t.start(1)
    t.draws("9S", up, "7H", hole)
    return t


def test_peek_on_an_ace_or_ten_is_recorded_and_decisions_wait_for_it_549_7_f() -> None:
    t = _dealt("KS", "6D")
    refused = t.decide(1, "hit")
    assert not refused.ok and refused.rule == cite("549.7(f)")
    peek = of_type(t.peek(False), EventType.BLACKJACK_PEEK)[0]
    assert peek.rule == cite("549.7(f)") and peek.data["needed"] is True
    assert "hole_card" not in peek.data  # the hole card stays down
    assert t.decide(1, "stand").ok


def test_a_card_dealt_before_the_required_peek_is_a_violation() -> None:
    t = _dealt("AS", "6D")
    assert t.decide(1, "insurance").ok
    v = violations(t.draw("3C"))
    assert v[0].data["what"] == "card_before_peek" and v[0].rule == cite("549.7(f)")


def test_a_peek_after_a_player_card_or_a_second_peek_is_a_violation_549_7_f() -> None:
    """§ 549.7(f): "the dealer shall determine whether the hole card will give the dealer a
    Blackjack prior to dealing any additional cards to the players at the table". A peek
    after a player's card came out, and a second peek in one round, break it; the first
    late peek still decides the round's Blackjack."""
    t = _dealt("KS", "6D")
    early = violations(t.draw("3C"))  # a card out before the peek
    assert early[0].data["what"] == "card_before_peek"
    out = t.peek(False)
    [late] = violations(out)
    assert late.rule == cite("549.7(f)") and late.data["what"] == "peek_after_player_cards"
    assert of_type(out, EventType.BLACKJACK_PEEK)[0].data["blackjack"] is False
    again = t.peek(True, "AH")
    [second] = violations(again)
    assert second.rule == cite("549.7(f)") and second.data["what"] == "second_peek"
    assert of_type(again, EventType.BLACKJACK_PEEK) == []  # the first peek stands
    assert t.engine.snapshot()["round"]["peek"] == {"blackjack": False}
    # Spanish 21 cites its own paragraph (§ 551.8(e)).
    s21 = make_table("spanish21")
    s21.ready()
    s21.start(1)
    s21.draws("9S", "KS", "7H", "6D")
    s21.peek(False)
    assert violations(s21.peek(False))[0].rule == cite("551.8(e)")


def test_insurance_only_on_an_ace_and_before_the_peek_549_10() -> None:
    t = _dealt("KS", "6D")
    refused = t.decide(1, "insurance")
    assert not refused.ok and refused.rule == cite("549.10(a)")
    t = _dealt("AS", "6D")
    t.peek(False)
    refused = t.decide(1, "insurance")
    assert not refused.ok and refused.rule == cite("549.10(b)")


def test_peek_on_another_card_with_a_reader_that_exposes_it_voids_549_16_j_1() -> None:
    t = _dealt("8S", "6D", exposes=True)
    out = t.peek(False)
    assert types(out) == ["blackjack.peek", "round.voided"]
    assert out.events[1].rule == cite("549.16(j)(1)") and out.events[1].data["wagers"] == "returned"
    assert t.engine.current_round is None


def test_peek_on_another_card_with_a_hidden_reader_continues_549_16_j_2() -> None:
    t = _dealt("8S", "6D")
    out = t.peek(False)
    v = violations(out)[0]
    assert v.rule == cite("549.16(j)(2)") and v.data["notify"] == "floorperson"
    assert t.engine.current_round is not None and t.decide(1, "stand").ok


def test_a_peek_that_contradicts_the_shoe_halts_the_reader() -> None:
    t = _dealt("AS", "KD")
    out = t.peek(False)  # the shoe read a Blackjack
    halted = of_type(out, EventType.TABLE_HALTED)[0]
    assert halted.data["code"] == "reader_disagrees" and halted.rule == MALFUNCTION
    assert not of_type(out, EventType.ROUND_VOIDED)
    assert of_type(out, EventType.TABLE_WARNING)[0].rule == MALFUNCTION


def test_a_peek_outside_a_round_or_before_the_hole_card_is_a_violation() -> None:
    t = make_table()
    t.ready()
    assert violations(t.peek())[0].data["what"] == "peek_outside_round"
    t.start(1)
    t.draws("9S", "AS")
    assert violations(t.peek())[0].data["what"] == "peek_before_hole_card"
