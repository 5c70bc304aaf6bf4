"""Card notation, hand totals and shoe composition (58 Pa. Code § 549.3(b), § 551.3(a))."""

from __future__ import annotations

import pytest

from floord.engine.cards.card import (
    CardError,
    count_hand,
    deck_size,
    needs_peek,
    parse_card,
    same_value,
    shoe_composition,
    suit_side,
)

pytestmark = pytest.mark.unit


def test_cards_are_rank_and_suit_and_anything_else_is_a_clear_error() -> None:
    assert parse_card("as") == "AS" and parse_card("TD") == "TD"
    for bad in ("10H", "1S", "AX", "", None, 5):
        with pytest.raises(CardError, match="rank"):
            parse_card(bad)


def test_values_follow_549_3_b_aces_soft_then_hard() -> None:
    hand = count_hand(["AS", "6H"])
    assert (hand.hard, hand.soft, hand.total, hand.bust) == (7, 17, 17, False)
    hand = count_hand(["AS", "6H", "9C"])  # the ace would take it over 21: counts 1
    assert (hand.hard, hand.soft, hand.total) == (16, None, 16)
    hand = count_hand(["KS", "QH", "2C"])
    assert (hand.total, hand.bust) == (22, True)
    assert count_hand(["AS", "AH"]).total == 12


def test_blackjack_is_an_ace_and_a_ten_value_as_the_initial_two_cards() -> None:
    assert count_hand(["AS", "JD"]).blackjack
    assert count_hand(["TS", "AD"]).blackjack
    assert not count_hand(["AS", "5D", "5C"]).blackjack  # 21 in three cards
    assert not count_hand(["AS", "KD"], may_be_blackjack=False).blackjack  # a split hand


def test_peek_pairs_and_double_shoe_sides() -> None:
    assert needs_peek("AS") and needs_peek("TH") and needs_peek("KC")
    assert not needs_peek("9D")
    assert same_value("KS", "TH") and not same_value("9S", "TH")  # § 549.12(a) as amended
    assert suit_side("QH", "left") == "left" and suit_side("QS", "left") == "right"
    assert suit_side("2D", "right") == "right" and suit_side("2C", "right") == "left"


def test_shoe_composition_52_or_48_cards_per_deck() -> None:
    six = shoe_composition("blackjack", 6)
    assert sum(six.values()) == 6 * 52 == 6 * deck_size("blackjack")
    spanish = shoe_composition("spanish21", 8)
    assert sum(spanish.values()) == 8 * 48 and not any(c.startswith("T") for c in spanish)
    with pytest.raises(ValueError, match="game"):
        deck_size("poker")
