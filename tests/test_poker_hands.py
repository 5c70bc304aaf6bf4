"""The poker hand evaluator against a hand-written table of known hands (§ 571.6)."""

from __future__ import annotations

import itertools

import pytest

from floord.engine.cards.card import CardError
from floord.engine.cards.poker_hands import CLASSES, best_hand

pytestmark = pytest.mark.unit

# cards -> (class, tie-break ranks, the best five as a set)
KNOWN = [
    ("AS KS QS JS TS", "royal_flush", (14,), "AS KS QS JS TS"),
    ("9H KH QH JH TH", "straight_flush", (13,), "9H KH QH JH TH"),
    ("AD 2D 3D 4D 5D", "straight_flush", (5,), "AD 2D 3D 4D 5D"),
    ("7C 7D 7H 7S 2C", "four_of_a_kind", (7, 2), "7C 7D 7H 7S 2C"),
    ("KC KD KH 4S 4C", "full_house", (13, 4), "KC KD KH 4S 4C"),
    ("2H 9H JH 4H KH", "flush", (13, 11, 9, 4, 2), "2H 9H JH 4H KH"),
    ("TC JD QH KS AC", "straight", (14,), "TC JD QH KS AC"),
    ("AC 2D 3H 4S 5C", "straight", (5,), "AC 2D 3H 4S 5C"),
    ("QC KD AH 2S 3C", "high_card", (14, 13, 12, 3, 2), "QC KD AH 2S 3C"),  # no wraparound
    ("8C 8D 8H 2S 5C", "three_of_a_kind", (8, 5, 2), "8C 8D 8H 2S 5C"),
    ("JC JD 4H 4S AC", "two_pair", (11, 4, 14), "JC JD 4H 4S AC"),
    ("JC JD 4H 7S AC", "one_pair", (11, 14, 7, 4), "JC JD 4H 7S AC"),
    ("2C 5D 8H JS KC", "high_card", (13, 11, 8, 5, 2), "2C 5D 8H JS KC"),
    # seven cards: the best five are chosen
    ("AS KS 2D 7C QS JS TS", "royal_flush", (14,), "AS KS QS JS TS"),
    ("KC KD KH 4S 4C 4D 2H", "full_house", (13, 4), "KC KD KH 4S 4C"),
    ("2C 3C 4C 5C 6H 7D KC", "flush", (13, 5, 4, 3, 2), "2C 3C 4C 5C KC"),  # over a straight
    ("AC 2C 3C 4C 5C 6H 7D", "straight_flush", (5,), "AC 2C 3C 4C 5C"),  # over 3-7 straight
    ("2C 3D 4H 5S 6C 7D 8H", "straight", (8,), "4H 5S 6C 7D 8H"),
    ("9C 9D 9H 9S KC KD KH", "four_of_a_kind", (9, 13), "9C 9D 9H 9S KC"),
    ("QC QD 8H 8S 3C 3D AH", "two_pair", (12, 8, 14), "QC QD 8H 8S AH"),
    # six cards
    ("6C 6D 2H 9S TC KD", "one_pair", (6, 13, 10, 9), "6C 6D 9S TC KD"),
]


@pytest.mark.parametrize(("cards", "cls", "ranks", "five"), KNOWN)
def test_known_hands_571_6(cards: str, cls: str, ranks: tuple[int, ...], five: str) -> None:
    hand = best_hand(cards.split())
    assert hand.cls == cls
    assert hand.ranks == ranks
    assert set(hand.cards) == set(five.split())


def test_every_class_of_571_6_b_is_in_the_table_and_in_order() -> None:
    assert {cls for _, cls, _, _ in KNOWN} == set(CLASSES)
    ladder = [
        "AS KS QS JS TS",
        "9H KH QH JH TH",
        "7C 7D 7H 7S 2C",
        "KC KD KH 4S 4C",
        "2H 9H JH 4H KH",
        "TC JD QH KS AC",
        "8C 8D 8H 2S 5C",
        "JC JD 4H 4S AC",
        "JC JD 4H 7S AC",
        "2C 5D 8H JS KC",
    ]
    hands = [best_hand(h.split()) for h in ladder]
    assert [h.cls for h in hands] == list(CLASSES)
    for better, worse in itertools.pairwise(hands):
        assert better.beats(worse)
        assert not worse.beats(better)


@pytest.mark.parametrize(
    ("high", "low"),
    [
        ("AC 2D 3H 4S 5C", "KC AD 2H 3S 4C"),  # a wheel beats ace-high nothing
        ("2C 3D 4H 5S 6C", "AC 2D 3H 4S 5C"),  # six-high straight beats the wheel
        ("2D 3D 4D 5D 6D", "AH 2H 3H 4H 5H"),
        ("KC KD KH 2S 2C", "QC QD QH AS AC"),  # trips decide a full house
        ("AC AD 9H 9S 3C", "AH AS 9C 9D 2C"),  # two pair: the kicker
        ("AC AD KH 9S 3C", "AH AS KC 9D 2C"),  # one pair: the last kicker
        ("AH JH 9H 6H 4H", "AC JC 9C 6C 3C"),  # flush: rank by rank
        ("5C 5D 5H 5S 3C", "4C 4D 4H 4S AC"),
    ],
)
def test_kickers_break_ties(high: str, low: str) -> None:
    assert best_hand(high.split()).beats(best_hand(low.split()))


def test_suits_never_break_a_tie() -> None:
    a = best_hand(["AC", "KD", "9H", "7S", "3C"])
    b = best_hand(["AD", "KH", "9S", "7C", "3D"])
    assert a.ties(b) and not a.beats(b) and not b.beats(a)


@pytest.mark.parametrize(
    ("cards", "error"),
    [
        ("AS KS QS JS", "five to seven"),
        ("AS KS QS JS TS 9S 8S 7S", "five to seven"),
        ("AS AS QS JS TS", "twice"),
        ("AS KS QS JS 1S", "rank"),
        ("AS KS QS JS TX", "rank"),
    ],
)
def test_bad_cards_are_a_clear_error(cards: str, error: str) -> None:
    with pytest.raises(CardError, match=error):
        best_hand(cards.split())


def test_lower_case_cards_are_read() -> None:
    assert best_hand(["as", "ks", "qs", "js", "ts"]).cls == "royal_flush"
