"""The dealer's errors in a Blackjack deal: 58 Pa. Code § 549.16(e), (g) and (i).

A card-recognition shoe reads each card; only the dealer (or a floorperson) knows where
it went on the layout, and says so with `card_to` when it was not where the deal order
put it. Each test quotes the paragraph it enforces. Helpers are
`test_engine_blackjack_support`'s.
"""

from __future__ import annotations

import pytest
from test_engine_blackjack_support import make_table, of_type, violations

from floord.contract import EventType, cite

pytestmark = pytest.mark.unit

PARA_E, PARA_G, PARA_I = cite("549.16(e)"), cite("549.16(g)"), cite("549.16(i)")


def _started(*boxes: int):
    t = make_table()
    t.ready()
    assert t.start(*boxes).ok
    return t


def _card_to(t, **to):
    out = t.dealer("card_to", to)
    assert out.ok, out.error
    [moved] = of_type(out.output, EventType.BLACKJACK_CARD_CORRECTED)
    return out.output, moved


def _hand(out, box: int):
    return [h for h in of_type(out, EventType.BLACKJACK_HAND) if h.data["box"] == box][-1]


def _result(t):
    out = t.dealer("round_end")
    assert out.ok, out.error
    [result] = of_type(out.output, EventType.BLACKJACK_RESULT)
    return {h["box"]: h for h in result.data["hands"]}


def test_the_dealer_misses_his_first_card_and_deals_himself_after_the_players_549_16_e():
    """§ 549.16(e): "If the dealer misses dealing his first or second card to himself, the
    dealer shall continue dealing the first two cards to each player, and then deal the
    appropriate number of cards to himself." The dealer passes his up card over and deals
    box 1 its second card; `card_to` says so, and the deal follows (e): box 2's second
    card, then the dealer's two cards, the first of them his up card."""
    t = _started(1, 2)
    t.draws("TS", "7H")
    t.draw("9C")  # floord's deal order: the dealer's up card
    out, moved = _card_to(t, box=1, hand=0)
    assert moved.data["from"] == {"dealer": True} and moved.data["to"] == {"box": 1, "hand": 0}
    assert moved.data["missed"] == [{"dealer": True}] and not moved.data["held"]
    assert moved.data["next"] == {"box": 2, "hand": 0}
    assert moved.rule == cite("549.7(e)")
    [missed] = violations(out)
    assert missed.rule == PARA_E and missed.data["what"] == "dealer_missed_own_card"
    assert _hand(out, 1).data["cards"] == ["TS", "9C"]
    assert t.engine.snapshot()["round"]["dealer"]["cards"] == []
    assert _hand(t.draw("8D"), 2).data["cards"] == ["7H", "8D"]  # box 2's second card
    refused = t.decide(1, "stand")
    assert not refused.ok and refused.rule == cite("549.7(e)")  # the dealer's cards first
    [up] = of_type(t.draw("6S"), EventType.BLACKJACK_DEALER_HAND)
    assert up.data["cards"] == ["6S"] and up.data["hole_card"] == "down"
    assert not t.draw("TD").events  # the hole card: nothing is published
    assert t.decide(1, "stand").ok and t.decide(2, "stand").ok
    assert t.dealer("dealer_turn").ok
    t.draw("5C")  # the dealer's 16 draws: 21
    hands = _result(t)
    assert hands[1]["outcome"] == "lose" and hands[2]["outcome"] == "lose"


def test_a_missed_ace_up_card_is_checked_only_once_the_dealer_has_his_cards_549_16_e():
    """§ 549.16(e) with an ace: the dealer's up card is the first card he deals himself
    after the players' first two, and the peek (§ 549.7(f)) follows his hole card."""
    t = _started(1)
    t.draw("TS")
    t.draw("9C")  # floord: the dealer's up card; it was box 1's second card
    _card_to(t, box=1, hand=0)
    early = t.peek()
    assert [v.data["what"] for v in violations(early)] == ["peek_before_hole_card"]
    t2 = _started(1)
    t2.draw("TS")
    t2.draw("9C")
    _card_to(t2, box=1, hand=0)
    t2.draws("AH", "7D")  # the up card, the hole card
    refused = t2.decide(1, "stand")
    assert not refused.ok and refused.rule == cite("549.7(f)")
    [peek] = of_type(t2.peek(), EventType.BLACKJACK_PEEK)
    assert peek.data["up_card"] == "AH" and peek.data["needed"] is True
    assert t2.decide(1, "stand").ok


def test_no_card_dealt_to_a_hand_is_dead_and_the_player_in_the_next_deal_549_16_g():
    """§ 549.16(g): "If no cards are dealt to a player's hand, the hand is dead and the
    player shall be included in the next deal." The dealer passes box 2 over twice. The
    paragraph does not say what becomes of the wager: the result says `wager: null`."""
    t = _started(1, 2, 3)
    t.draw("TS")
    t.draw("9H")  # floord: box 2's first card; it went to box 3
    _, moved = _card_to(t, box=3, hand=0)
    assert moved.data["missed"] == [{"box": 2, "hand": 0}]
    assert moved.data["next"] == {"dealer": True}
    t.draws("6D", "7C")
    t.draw("8S")  # floord: box 2's second card; box 3's again
    out, _ = _card_to(t, box=3, hand=0)
    assert _hand(out, 3).data["cards"] == ["9H", "8S"]
    out = t.draw("TH")  # the hole card: the slots are dealt
    [dead] = of_type(out, EventType.BLACKJACK_HAND_DEAD)
    assert dead.rule == PARA_G and dead.data["box"] == 2 and dead.data["reason"] == "no_cards"
    assert dead.data["next_deal"] is True and dead.data["wager"] is None
    refused = t.decide(2, "hit")
    assert not refused.ok and refused.rule == PARA_G and "dead" in refused.error
    assert t.decide(1, "stand").ok and t.decide(3, "stand").ok
    assert t.dealer("dealer_turn").ok
    t.draw("2C")  # the dealer's 16 draws: 18
    hands = _result(t)
    assert hands[2]["outcome"] == "dead" and hands[2]["rule"] == PARA_G
    assert hands[2]["wager"] is None and hands[2]["cards"] == []
    assert hands[1]["outcome"] == "lose" and hands[3]["outcome"] == "lose"


def _one_card_to_box_1():
    """Boxes 1 and 2; the dealer passes box 1 over on the second round of the deal."""
    t = _started(1, 2)
    t.draws("TS", "9H", "6D")
    t.draw("8S")  # floord: box 1's second card; it went to box 2
    _, moved = _card_to(t, box=2, hand=0)
    assert moved.data["missed"] == [{"box": 1, "hand": 0}]
    out = t.draw("TH")  # the hole card
    [one] = violations(out)
    assert one.rule == PARA_G and one.data["what"] == "one_card_dealt" and one.data["box"] == 1
    refused = t.decide(2, "stand")
    assert not refused.ok  # the initial deal waits for the player's option
    refused = t.dealer("dealer_turn")
    assert not refused.ok
    return t


def test_one_card_dealt_the_player_takes_the_second_after_the_others_549_16_g():
    """§ 549.16(g): "If only one card is dealt to a player's hand, at the player's option,
    the dealer shall deal the second card to the player after all other players have
    received a second card." The player takes it: the next card is his."""
    t = _one_card_to_box_1()
    out = t.dealer("hand_option", {"box": 1, "hand": 0, "option": "deal"})
    assert out.ok, out.error
    [option] = of_type(out.output, EventType.BLACKJACK_HAND_OPTION)
    assert option.rule == PARA_G and option.data["option"] == "deal"
    assert option.data["outcome"] == "dealt_later" and option.data["by"] == "d1"
    assert _hand(t.draw("QC"), 1).data["cards"] == ["TS", "QC"]
    assert t.decide(1, "stand").ok and t.decide(2, "stand").ok
    assert t.dealer("dealer_turn").ok
    t.draw("9D")  # the dealer's 16 draws: 25
    hands = _result(t)
    assert hands[1]["outcome"] == "win" and hands[1]["total"] == 20
    assert hands[2]["outcome"] == "win"


def test_one_card_dealt_the_player_declines_the_hand_is_dead_under_floords_policy_549_16_g():
    """§ 549.16(g) gives the player the option of the second card and says nothing of a
    player who declines it: floord calls the hand dead and returns the wager, as its own
    policy (`rule` null, `policy` said), not as the paragraph's ruling."""
    t = _one_card_to_box_1()
    out = t.dealer("hand_option", {"box": 1, "hand": 0, "option": "decline"})
    assert out.ok, out.error
    [option] = of_type(out.output, EventType.BLACKJACK_HAND_OPTION)
    assert option.rule == PARA_G and option.data["outcome"] == "dead"
    [dead] = of_type(out.output, EventType.BLACKJACK_HAND_DEAD)
    assert dead.rule is None and "floord policy" in dead.data["policy"]
    assert dead.data["reason"] == "second_card_declined" and dead.data["wager"] == "returned"
    again = t.dealer("hand_option", {"box": 1, "hand": 0, "option": "deal"})
    assert not again.ok
    assert t.decide(2, "stand").ok
    assert t.dealer("dealer_turn").ok
    t.draw("9D")
    hands = _result(t)
    assert hands[1]["outcome"] == "dead" and hands[1]["rule"] is None
    assert hands[1]["wager"] == "returned" and "floord policy" in hands[1]["policy"]
    assert hands[2]["outcome"] == "win"


def _dealt_three():
    """Boxes 1, 2, 3: 14, 16, 18; the dealer 6 up, 9 down (15)."""
    t = _started(1, 2, 3)
    t.draws("TS", "9H", "8C", "6D", "4C", "7S", "TC", "9S")
    return t


def test_a_requested_card_dealt_elsewhere_comes_before_the_hole_card_is_revealed_549_16_i():
    """§ 549.16(i): "If after receiving the first two cards, the dealer fails to deal an
    additional card to a player who has requested a card, then, at the player's option,
    the dealer shall either deal the additional card after all other players have
    received their additional cards but prior to the dealer revealing his hole card, or
    call the player's hand dead and return the player's original wager." Box 1 asks for
    a card; the dealer deals it to box 2. Box 1's player takes the option of his card
    after the others: it comes once boxes 2 and 3 are done, and `dealer_turn` waits."""
    t = _dealt_three()
    assert t.decide(1, "hit").ok
    t.draw("5H")  # floord: box 1's card; it went to box 2
    out, moved = _card_to(t, box=2, hand=0)
    assert moved.data["held"] is True and moved.rule == cite("549.7(h)")
    again = t.dealer("card_to", {"box": 2, "hand": 0})
    assert not again.ok and "already recorded at box 2 hand 0" in again.error
    [missed] = [v for v in violations(out) if v.data["what"] == "requested_card_not_dealt"]
    assert missed.rule == PARA_I and missed.data["box"] == 1
    refused = t.decide(1, "stand")
    assert not refused.ok and refused.rule == PARA_I
    refused = t.dealer("dealer_turn")
    assert not refused.ok and refused.rule == PARA_I
    assert t.dealer("hand_option", {"box": 1, "hand": 0, "option": "deal"}).ok
    hit = t.decide(2, "hit")  # box 2 takes the card that lies on its box
    assert hit.ok and _hand(hit.output, 2).data["cards"] == ["9H", "7S", "5H"]
    refused = t.dealer("dealer_turn")
    assert not refused.ok and refused.rule == PARA_I and "box 1" in refused.error
    assert t.decide(3, "stand").ok
    assert _hand(t.draw("6C"), 1).data["cards"] == ["TS", "4C", "6C"]
    assert t.dealer("dealer_turn").ok
    t.draw("7D")  # the dealer's 15 draws: 22
    hands = _result(t)
    assert [hands[b]["outcome"] for b in (1, 2, 3)] == ["win", "win", "win"]
    assert hands[1]["total"] == 20


def test_a_requested_card_not_dealt_the_hand_is_dead_and_the_wager_returned_549_16_i():
    """§ 549.16(i): the other option, "call the player's hand dead and return the
    player's original wager". The dealer records that box 1's requested card was not
    dealt and the player's choice; box 2 plays on."""
    t = _dealt_three()
    assert t.decide(1, "hit").ok
    refused = t.decide(2, "stand")
    assert not refused.ok  # box 1 waits for its card
    out = t.command("hand_option", {"box": 1, "hand": 0, "option": "decline"})
    assert out.ok, out.error
    [missed] = violations(out.output)
    assert missed.rule == PARA_I and missed.data["what"] == "requested_card_not_dealt"
    [option] = of_type(out.output, EventType.BLACKJACK_HAND_OPTION)
    assert option.rule == PARA_I and option.data["role"] == "floorperson"
    [dead] = of_type(out.output, EventType.BLACKJACK_HAND_DEAD)
    assert dead.rule == PARA_I and dead.data["wager"] == "returned"
    assert t.decide(2, "stand").ok and t.decide(3, "stand").ok
    assert t.dealer("dealer_turn").ok
    t.draw("2D")  # the dealer's 15 draws: 17
    hands = _result(t)
    assert hands[1]["outcome"] == "dead" and hands[1]["wager"] == "returned"
    assert hands[1]["rule"] == PARA_I and hands[1]["dead"] == "requested_card_not_dealt"
    assert hands[2]["outcome"] == "lose" and hands[3]["outcome"] == "win"
