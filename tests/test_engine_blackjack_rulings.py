"""Blackjack rulings as chapters 549 and 551 write them.

Each test quotes the paragraph it enforces. Helpers are `test_engine_blackjack_support`'s.
"""

from __future__ import annotations

import re

import pytest
from test_engine_blackjack_support import READER, make_table, of_type, types, violations

from floord.contract import EventType, cite

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("game", "section"), [("blackjack", "549.2(b)(2)"), ("spanish21", "551.2(b)(2)")]
)
def test_no_more_than_seven_boxes_549_2_b_2_551_2_b_2(game, section) -> None:
    """§ 549.2(b)(2): the layout contains "No more than seven specific areas designated
    for the placement of wagers." § 551.2(b)(2): "No more than seven player positions
    containing a separate designated betting area". A table of eight or nine boxes is
    refused, and no round is dealt on a box 8 or 9."""
    for boxes in (8, 9):
        with pytest.raises(ValueError, match=re.escape(cite(section))):
            make_table(game, boxes=boxes)
    t = make_table(game, boxes=7)
    t.ready()
    for boxes in ([8], [1, 9], [7, 8]):
        refused = t.start(*boxes)
        assert not refused.ok and refused.rule == cite(section)
    assert t.engine.current_round is None
    assert t.start(1, 7).ok


def _dealt(*cards: str):
    """Box 1 and the dealer dealt (box 1, up card, box 1, hole card), no peek needed."""
    t = make_table()
    t.ready()
    assert t.start(1).ok
    t.draws(*cards)
    return t


def _end(t):
    """`round_end` after the dealer's turn: the record and box 1's result."""
    out = t.dealer("round_end")
    assert out.ok, out.error
    [result] = of_type(out.output, EventType.BLACKJACK_RESULT)
    return out.output, result.data["hands"][0]


def test_a_card_drawn_in_error_is_the_next_card_and_the_round_ends_549_16_b() -> None:
    """§ 549.16(b): "A card drawn in error without its face being exposed shall be used as
    though it were the next card from the shoe." The dealer draws before the player
    said hit; the player's hit takes that card, floord waits for no other, the dealer
    plays and the round ends (it stalled before: "box 1 hand 0 waits for its card")."""
    t = _dealt("TS", "6D", "4C", "9S")  # box 1: 14; dealer 6 up, 9 down
    [v] = violations(t.draw("5H"))
    assert v.data["card"] == "5H" and v.data["used_as"] == "next_card"
    assert v.data["used_as_rule"] == cite("549.16(b)")
    hit = t.decide(1, "hit")
    assert hit.ok, hit.error
    [hand] = of_type(hit.output, EventType.BLACKJACK_HAND)
    assert hand.data["cards"] == ["TS", "4C", "5H"] and hand.data["total"] == 19
    assert t.decide(1, "stand").ok
    assert t.dealer("dealer_turn").ok
    t.draw("7C")  # the dealer's 15 draws: 22
    out = t.dealer("round_end")
    assert out.ok, out.error
    [result] = of_type(out.output, EventType.BLACKJACK_RESULT)
    assert result.data["hands"][0]["outcome"] == "win"
    assert types(out.output)[-1] == EventType.ROUND_ENDED
    assert t.engine.current_round is None


def test_a_card_no_player_takes_goes_to_the_dealer_who_must_draw_549_16_c() -> None:
    """§ 549.16(c): "After the initial two cards have been dealt to each player and a
    card is drawn in error and exposed to the players, the card shall be dealt to the
    players or dealer as though it were the next card from the shoe. Any player refusing
    to accept the card may not have any additional cards dealt to him during the round."
    The player stands (refuses it); the dealer's 15 must draw, so it is the dealer's."""
    t = _dealt("TS", "6D", "8C", "9S")  # box 1: 18; dealer 15
    t.draw("5H")
    assert t.decide(1, "stand").ok
    turn = t.dealer("dealer_turn")
    assert turn.ok, turn.error
    dealer = of_type(turn.output, EventType.BLACKJACK_DEALER_HAND)
    assert dealer[-1].data["cards"] == ["6D", "9S", "5H"] and dealer[-1].data["total"] == 20
    out, hand = _end(t)
    assert hand["outcome"] == "lose"
    assert not violations(out)


def test_a_card_neither_players_nor_dealer_can_use_is_discarded_549_16_c() -> None:
    """§ 549.16(c): "If the card is refused by the players and the dealer cannot use the
    card, the card shall be placed in the discard rack." The dealer stands on 17."""
    t = _dealt("TS", "8D", "9C", "9S")  # box 1: 19; dealer 17
    t.draw("5H")
    assert t.decide(1, "stand").ok
    turn = t.dealer("dealer_turn")
    assert turn.ok
    [discarded] = violations(turn.output)
    assert discarded.rule == cite("549.16(c)")
    assert discarded.data["what"] == "card_drawn_in_error_discarded"
    assert discarded.data["card"] == "5H"
    _, hand = _end(t)
    assert hand["outcome"] == "win"


def test_a_card_drawn_in_error_survives_a_snapshot_549_16_b() -> None:
    """§ 549.16(b): the card drawn in error is "used as though it were the next card from
    the shoe", also after a restart of the engine from its snapshot mid-round."""
    t = _dealt("TS", "6D", "4C", "9S")
    t.draw("5H")
    again = make_table(snapshot=t.engine.snapshot(), clock=t.clock)
    hit = again.decide(1, "hit")
    assert hit.ok, hit.error
    [hand] = of_type(hit.output, EventType.BLACKJACK_HAND)
    assert hand.data["cards"] == ["TS", "4C", "5H"]


K = cite("549.16(k)")


def _reader_fails_mid_round():
    """Box 1 dealt 10 and 4, the dealer 6 up (no peek needed), 9 down; the reader faults."""
    t = _dealt("TS", "6D", "4C", "9S")
    out = t.reader(EventType.DEVICE_FAULT, {"code": 7, "text": "sensor", "origin": "x"})
    assert types(out) == ["table.halted", "table.warning"]
    return t, out


def test_a_reader_malfunction_suspends_the_round_until_repaired_549_16_k() -> None:
    """§ 549.16(k): "If a card reader device malfunctions, the dealer may not continue
    dealing the game of Blackjack at that table until the card reader device is repaired
    or replaced." Nothing in it voids the round in play (unlike (j)(1), "call all hands
    dead ... and return each player's wager"): with a 6 up card that needs no peek, the
    round waits; the dealer's commands are refused citing (k); once the reader is
    replaced and the table resumed, the round goes on and ends with a result."""
    t, out = _reader_fails_mid_round()
    round_id = t.engine.current_round
    assert round_id is not None and not of_type(out, EventType.ROUND_VOIDED)
    suspended = of_type(out, EventType.TABLE_WARNING)[0]
    assert suspended.rule == K and suspended.round == round_id
    for name, args in (("decision", {"box": 1, "hand": 0, "action": "hit"}),
                       ("dealer_turn", {}), ("round_end", {})):  # fmt: skip
        refused = t.dealer(name, args)
        assert not refused.ok and refused.rule == K
    # The reader is replaced: its line goes, it comes back, identifies, passes a self-test.
    t.reader(EventType.DEVICE_OFFLINE, {})
    t.connect(READER, [])
    t.reader(EventType.READER_SELF_TEST, {"passed": True, "code": 0, "text": "ok"})
    assert t.command("resume", {"reason": "reader replaced"}).ok
    assert t.engine.current_round == round_id
    hit = t.decide(1, "hit")
    assert hit.ok, hit.error
    t.draw("5H")  # 19
    assert t.decide(1, "stand").ok
    assert t.dealer("dealer_turn").ok
    t.draw("8C")  # the dealer's 15 draws: 23
    out, hand = _end(t)
    assert hand["outcome"] == "win" and out.events[-1].type == EventType.ROUND_ENDED
    assert not of_type(out, EventType.ROUND_VOIDED)


def test_a_suspended_round_is_void_under_policy_when_the_table_closes_549_16_k() -> None:
    """§ 549.16(k) stops the dealing "until the card reader device is repaired or
    replaced"; it says nothing of a table closed meanwhile. floord's close policy voids
    the round then, citing nothing."""
    t, _ = _reader_fails_mid_round()
    closed = t.command("close")
    assert closed.ok
    [voided] = of_type(closed.output, EventType.ROUND_VOIDED)
    assert voided.rule is None and "policy" in voided.data
    assert voided.data["phase"] == "players" and voided.data["peek_done"] is False
    assert t.engine.current_round is None


def test_another_halt_voids_a_suspended_round_under_policy_549_16_k() -> None:
    """§ 549.16(k) covers the reader only; a shoe lost while the round waits is floord's
    fail-closed policy, which voids the round with no citation."""
    t, _ = _reader_fails_mid_round()
    out = t.device(EventType.DEVICE_OFFLINE, {})  # the shoe
    [voided] = of_type(out, EventType.ROUND_VOIDED)
    assert voided.rule is None and "fail closed" in voided.data["policy"]
    assert t.engine.current_round is None
