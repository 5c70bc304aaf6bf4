"""Blackjack rulings as chapters 549 and 551 write them (issue 13's wrong decisions).

Each test quotes the paragraph it enforces. Helpers are `test_engine_blackjack_support`'s.
"""

from __future__ import annotations

import re

import pytest
from test_engine_blackjack_support import make_table, of_type, types, violations

from floord.contract import EventType, cite


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
