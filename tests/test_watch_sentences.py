"""Every event a table emits reads as a sentence on the console, never as JSON."""

from __future__ import annotations

from typing import Any

import pytest
from contract_doc import documented_payloads

from floord.contract import EVENT_TYPES, Envelope, EventType
from floord.watch.detail import EventFilter
from floord.watch.sentences import SENTENCES, TELEMETRY, fallback, family, sentence
from floord.watch.wording import cite, p_text, round_number

pytestmark = pytest.mark.unit

DOCUMENTED = documented_payloads()
JSON_MARKS = ("{", "}", "[", "]", '"', "None", "True", "False")


def env(kind: str, data: Any, rule: str | None = None, round_id: str | None = None) -> Envelope:
    return Envelope(
        "casino-1", "RL-01", 42, "2026-11-29T19:17:40.123456Z", kind, "wheel", data, rule, round_id
    )


def test_every_contract_event_type_has_its_own_wording() -> None:
    assert set(DOCUMENTED) == EVENT_TYPES
    assert set(SENTENCES) == EVENT_TYPES


@pytest.mark.parametrize("kind", sorted(EVENT_TYPES))
def test_each_type_reads_as_words_whatever_its_data(kind: str) -> None:
    keys = [k.rstrip("?") for k in DOCUMENTED[kind].keys]
    required = [k.rstrip("?") for k in DOCUMENTED[kind].required]
    shapes: list[dict[str, Any]] = [
        {k: "x" for k in keys},  # every documented key
        {k: "x" for k in required},  # only those always present
        {k: 7 for k in keys},  # numbers where text was expected
        {k: {"a": [1, "b"]} for k in keys},  # nested groups and lists
        {k: None for k in keys},
        {},
    ]
    for data in shapes:
        text = sentence(env(kind, data, "58 Pa. Code § 531.5(a)", "RL-01-2026-11-29-0042"))
        assert text and text.endswith(", § 531.5(a)"), (kind, data, text)
        for mark in JSON_MARKS:
            assert mark not in text, (kind, data, text)
        assert text != fallback(env(kind, data)), (kind, text)


def test_the_sentences_staff_read() -> None:
    rid = "RL-01-2026-11-29-0042"
    result = {"number": "17", "colour": "black", "dealer": "DL-7", "spin": 3}
    assert sentence(env(EventType.ROULETTE_RESULT, result, None, rid)) == (
        "17 black, round 42, dealer DL-7"
    )
    halted = {"code": "device_offline", "device": "reader", "detail": "card reader silent"}
    halted["reasons"] = [dict(halted)]
    assert sentence(env(EventType.TABLE_HALTED, halted, "58 Pa. Code § 549.16(k)")) == (
        "halted: reader offline (card reader silent), § 549.16(k)"
    )
    halted["reasons"].append({"code": "journal_failure"})
    assert sentence(env(EventType.TABLE_HALTED, {**halted, "device": None, "code": "tilt"})) == (
        "halted: tilt (card reader silent); 1 more reason(s) latched"
    )
    alert = {"id": "A00001", "test": "pocket", "p_value": 0.000213456789, "level": 0.001}
    assert sentence(env(EventType.SURVEILLANCE_ALERT, {**alert, "window": 270})) == (
        "alert A00001: pocket test p = 0.000213 below 0.001 over 270 results"
    )
    # A Craps table's dice tests name the die or the shooter's seat, and the dice set.
    dice = {**alert, "test": "dice_faces", "window": 180, "die": "D2", "dice_set": "D1,D2"}
    assert sentence(env(EventType.SURVEILLANCE_ALERT, dice)) == (
        "alert A00001: dice faces test p = 0.000213 below 0.001 over 180 results, die D2, "
        "dice set D1,D2"
    )
    shooter = {**alert, "test": "shooter_signature", "window": 60, "shooter": 3}
    assert sentence(env(EventType.SURVEILLANCE_ALERT, shooter)) == (
        "alert A00001: shooter signature test p = 0.000213 below 0.001 over 60 results, "
        "shooter at seat 3"
    )
    # A shuffle alert says which shoe and what was seen in it.
    slug = {
        **alert,
        "test": "shuffle_slug",
        "shoe": 4,
        "side": None,
        "cards": 7,
        "statistic": 6,
        "run": {"at": 2, "shoe": 3, "at_earlier": 16},
    }
    assert sentence(env(EventType.SURVEILLANCE_ALERT, slug)) == (
        "alert A00001: shuffle slug in shoe 4 after 7 cards: a run of 6 cards from card 2 "
        "as dealt in shoe 3 from its card 16; p = 0.000213 below 0.001"
    )
    pairs = {
        **alert,
        "test": "shuffle_correlation",
        "shoe": 4,
        "side": "left",
        "cards": 90,
        "against": "previous_shoe",
        "pairs": {"observed": 70, "expected": 7.25},
    }
    assert sentence(env(EventType.SURVEILLANCE_ALERT, pairs)) == (
        "alert A00001: shuffle correlation in shoe 4 (left side) after 90 cards: 70 "
        "neighbours as in the previous shoe vs 7.25 expected; p = 0.000213 below 0.001"
    )
    clumps = {
        **alert,
        "test": "shuffle_clumping",
        "shoe": 2,
        "cards": 234,
        "suits": {"observed": 90, "expected": 58.1},
        "ranks": {"observed": 20, "expected": 17.4},
    }
    assert sentence(env(EventType.SURVEILLANCE_ALERT, clumps)) == (
        "alert A00001: shuffle clumping in shoe 2 after 234 cards: same-suit neighbours 90 "
        "vs 58.1, same-rank 20 vs 17.4 expected; p = 0.000213 below 0.001"
    )
    acked = {"id": "A00001", "by": "SE-3001", "note": "wheel checked", "alert": alert}
    assert sentence(env(EventType.SURVEILLANCE_ALERT_ACKNOWLEDGED, acked)) == (
        "alert A00001 acknowledged by SE-3001: wheel checked"
    )
    command = {"id": "c1", "name": "ack_alert", "by": "SE-3001", "role": "security"}
    command |= {"args": {"alert": "A00001", "note": "ok"}, "key": "current"}
    assert sentence(env(EventType.OPERATOR_COMMAND, command)) == (
        "SE-3001 (security): ack_alert alert A00001, note ok"
    )
    refused = {"id": "c2", "name": "ack_alert", "by": "FP-1", "code": "role_not_allowed"}
    refused["reason"] = "'ack_alert' may be issued by security, supervisor"
    assert sentence(env(EventType.OPERATOR_COMMAND_REFUSED, refused)) == (
        "FP-1's ack_alert refused (role_not_allowed): 'ack_alert' may be issued by "
        "security, supervisor"
    )
    offline = {"port": "/dev/pts/3", "reason": "silent past 5 s"}
    assert sentence(env(EventType.DEVICE_OFFLINE, offline)) == "wheel offline: silent past 5 s"
    revolutions = {"spin": 9, "count": 14}
    assert sentence(env(EventType.WHEEL_BALL_REVOLUTIONS, revolutions)) == (
        "spin 9: ball went round 14 times"
    )
    moved = {"card": "9H", "from": {"dealer": True}, "to": {"box": 1, "hand": 0}, "by": "DL-7"}
    assert sentence(env(EventType.BLACKJACK_CARD_CORRECTED, moved)) == (
        "card 9H was dealt to box 1 hand 0, not the dealer, by DL-7"
    )
    throw = {
        "throw": 7,
        "together": True,
        "dice": [
            {"id": "A1", "face": 4, "rest": "table", "lie": "flat", "far_end": True},
            {"id": "A2", "face": 3, "rest": "die", "lie": "cocked", "far_end": True},
        ],
    }
    assert sentence(env(EventType.DICE_THROW, throw)) == (
        "throw 7: A1: 4, A2: 3 on the other die (cocked)"
    )
    voided = {"reason": "ball_off_wheel", "detail": "the ball left the wheel", "spin": 9}
    assert sentence(env(EventType.ROUND_VOIDED, voided, "58 Pa. Code § 531.7(c)", rid)) == (
        "round 42 voided: ball off wheel (the ball left the wheel), § 531.7(c)"
    )


def test_the_cut_reads_as_who_cut_where_and_who_refused() -> None:
    """A Blackjack cut (§ 549.6(b)-(d)) names the cutting card, the refusals and the box
    designated; a Baccarat family's feathered stack (§ 541.5(b)) its verification."""
    cut = {
        "cards": 60,
        "by": "player",
        "box": 5,
        "declined": [1, 3],
        "side": None,
        "recut": False,
        "offered_to": {"to": "the player on whose box the cutting card appeared", "box": 1},
    }
    assert sentence(env(EventType.CARDS_CUT, cut, "58 Pa. Code § 549.6(d)")) == (
        "cut by box 5's player: cutting card 60 cards in; "
        "offered first to the player on whose box the cutting card appeared (box 1); refused "
        "by box 1, 3, § 549.6(d)"
    )
    recut = {"cards": 120, "by": "dealer", "box": None, "recut": True, "side": "left"}
    assert "recut by dealer: cutting card 120 cards in (left side)" in sentence(
        env(EventType.CARDS_CUT, recut)
    )
    seen = {"even": False, "by": "FP-1"}
    assert "shuffled unevenly, shuffle again" in sentence(
        env(EventType.CARDS_SHUFFLE_VERIFIED, seen, "58 Pa. Code § 541.5(b)")
    )


def test_the_pai_gow_sentences() -> None:
    rid = "PG-01-2026-11-29-0007"
    position = {"throw": 3, "faces": [4, 2, 6], "total": 12, "position": 4}
    position |= {"count_order": ["dealer", 1, 2, 3, 4, 5, 6], "detail": "counted"}
    assert sentence(env(EventType.PAIGOW_DEAL_POSITION, position, None, rid)) == (
        "shaker 4/2/6 = 12: deal starts at betting area 4, round 7"
    )
    dealt = {"from": 3, "position": "dealer", "as_determined": False, "by": "DL-7"}
    assert sentence(env(EventType.PAIGOW_DEALT, {**dealt, "role": "dealer"}, None, rid)) == (
        "tiles dealt from betting area 3 by DL-7; the dice said the dealer, round 7"
    )
    right = {**dealt, "from": "dead_hand", "position": "dead_hand", "as_determined": True}
    assert sentence(env(EventType.PAIGOW_DEALT, right)) == (
        "tiles dealt from the Dead Hand by DL-7, as the dice said"
    )


def test_an_out_of_order_shoe_covered_and_uncovered() -> None:
    ooo = {"code": 30, "text": "dispenser jammed"}
    assert sentence(env(EventType.SHOE_OUT_OF_ORDER, ooo)) == (
        "shoe out of order: dispenser jammed (code 30)"
    )
    assert sentence(env(EventType.SHOE_OUT_OF_ORDER, {"code": 0})) == "shoe back in service"
    covered = {"device": "shoe", "by": "FP-1", "reason": "jam", "marked": "sign"}
    covered["deal_by"] = "hand"
    assert sentence(env(EventType.TABLE_DEVICE_COVERED, covered, "58 Pa. Code § 571.13(g)")) == (
        "shoe out of order, a sign put on it by FP-1: jam; the table deals from the hand, "
        "§ 571.13(g)"
    )
    uncovered = {"device": "shoe", "by": "FP-1", "reason": "fixed", "dealing": "automated_shoe"}
    assert sentence(env(EventType.TABLE_DEVICE_UNCOVERED, uncovered)) == (
        "shoe uncovered by FP-1: fixed; the table deals from the automated shoe again"
    )


def test_a_type_this_console_does_not_know_still_reads_as_words() -> None:
    newer = env("wheel.ball_speed", {"spin": 3, "rpm": 61.5, "ok": True})
    assert sentence(newer) == "wheel ball speed: spin 3, rpm 61.5, ok yes"
    assert sentence(env("table.something", None)) == "table something"


def test_p_values_and_citations_are_short() -> None:
    assert [p_text(p) for p in (0.000213456789, 3.8e-10, 0.0123456, 0.5, 1.0)] == [
        "0.000213",
        "3.8e-10",
        "0.0123",
        "0.5",
        "1",
    ]
    assert [p_text(p) for p in (None, "0.1", True, float("nan"))] == ["?", "?", "?", "nan"]
    assert cite("58 Pa. Code § 549.16(k)") == "§ 549.16(k)" and cite(None) == ""
    assert round_number("RL-01-2026-11-29-0042") == "42" and round_number(None) == ""


def test_telemetry_is_hidden_by_default_and_families_filter() -> None:
    assert EventType.WHEEL_BALL_REVOLUTIONS in TELEMETRY
    assert family(EventType.WHEEL_BALL_REVOLUTIONS) == "telemetry"
    assert family(EventType.TABLE_HALTED) == "halt"
    assert family(EventType.SURVEILLANCE_ALERT) == "alert"
    assert family(EventType.PROCEDURE_VIOLATION) == "violation"
    assert family(EventType.ROUND_VOIDED) == "void"
    assert family(EventType.ROULETTE_RESULT) == "result"
    assert family(EventType.OPERATOR_COMMAND) == "operator"
    assert family(EventType.DEVICE_OFFLINE) == "device"
    assert family(EventType.ROUND_STARTED) == "table"
    spin = env(EventType.WHEEL_BALL_REVOLUTIONS, {"spin": 1, "count": 9})
    halt = env(EventType.TABLE_HALTED, {"code": "tilt"})
    shown = EventFilter()
    assert not shown.shows(spin) and shown.shows(halt)
    assert shown.toggled_telemetry().shows(spin)
    only_halts = shown.next_family()
    assert only_halts.only == "halt" and only_halts.shows(halt) and not only_halts.shows(spin)


def test_a_roll_reversed_by_a_no_roll_reads_as_what_it_voids() -> None:
    rid = "CR-01-2026-11-29-0012"
    undone = {"round": rid, "total": 7, "decision": "loser_7", "shooter_restored": True}
    body = {"reason": "improper", "invalid": False, "rethrow": True, "called_by": "BX-1",
            "reverses": undone}  # fmt: skip
    assert sentence(env(EventType.CRAPS_NO_ROLL, body, "58 Pa. Code § 537.9(b)(6)", rid)) == (
        "no roll (improper), called by BX-1, the 7 called (loser 7) is void, the dice are "
        "thrown again, § 537.9(b)(6)"
    )
    back = {"action": "restored", "seat": 3, "n": 2, "reason": "no_roll"}
    assert sentence(env(EventType.CRAPS_SHOOTER, back, "58 Pa. Code § 537.9(b)(6)")) == (
        "the shooter at 3 keeps the dice (the loser 7 is void), § 537.9(b)(6)"
    )
