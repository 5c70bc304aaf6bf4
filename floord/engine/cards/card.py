"""Playing cards as the card devices write them, and the point count of a Blackjack hand.

A card is rank + suit: rank in A 2-9 T J Q K (T is the ten), suit in S H D C ("AS",
"TD", "KH"). Values follow 58 Pa. Code § 549.3(b) (and § 551.3(b) for Spanish 21): 2-9
(and 10) at face value, J Q K ten, an ace 11 unless that would take the hand over 21,
then 1. Spanish 21 decks are 48 cards, the ten of each suit removed (§ 551.3(a)).
The Baccarat games count an ace 1, tens and faces 0 (`baccarat_value`), and burn the
first card's face value with tens and faces 10 (`burn_value`).
"""

from __future__ import annotations

from dataclasses import dataclass

RANKS = "A23456789TJQK"
SUITS = "SHDC"
RED_SUITS = frozenset("HD")
TEN_VALUE_RANKS = frozenset("TJQK")
DECK_SIZE = {"blackjack": 52, "spanish21": 48}


class CardError(ValueError):
    """A card text that is not rank + suit; the message quotes what was found."""


def parse_card(text: object) -> str:
    """The card in its canonical form ("AS"), or CardError saying what is wrong."""
    if not isinstance(text, str) or len(text) != 2:
        raise CardError(f"a card is rank + suit such as 'AS' or 'TD', found {text!r}")
    rank, suit = text[0].upper(), text[1].upper()
    if rank not in RANKS or suit not in SUITS:
        raise CardError(f"a card is rank (A 2-9 T J Q K) + suit (S H D C), found {text!r}")
    return rank + suit


def point_value(card: str) -> int:
    """The card's value with an ace counted as 1 (§ 549.3(b))."""
    rank = card[0]
    if rank == "A":
        return 1
    if rank in TEN_VALUE_RANKS:
        return 10
    return int(rank)


def is_ten_value(card: str) -> bool:
    return card[0] in TEN_VALUE_RANKS


def is_ace(card: str) -> bool:
    return card[0] == "A"


def needs_peek(up_card: str) -> bool:
    """§ 549.7(f), § 551.8(e): the dealer checks for Blackjack on an ace or ten-value."""
    return is_ace(up_card) or is_ten_value(up_card)


def same_value(a: str, b: str) -> bool:
    """Identical in value for a split (§ 549.12(a)): a king and a ten are a pair."""
    return point_value(a) == point_value(b)


def suit_side(card: str, hearts_diamonds_side: str) -> str:
    """The double-shoe side a determinant card's suit names (§ 549.7(d)(1))."""
    other = "right" if hearts_diamonds_side == "left" else "left"
    return hearts_diamonds_side if card[1] in RED_SUITS else other


@dataclass(frozen=True)
class HandCount:
    """A hand's point count: hard (aces as 1), soft (one ace as 11, if that fits)."""

    cards: tuple[str, ...]
    hard: int
    soft: int | None
    blackjack: bool

    @property
    def total(self) -> int:
        return self.soft if self.soft is not None else self.hard

    @property
    def bust(self) -> bool:
        return self.hard > 21

    def to_dict(self) -> dict[str, object]:
        return {
            "cards": list(self.cards),
            "hard": self.hard,
            "soft": self.soft,
            "total": self.total,
            "blackjack": self.blackjack,
            "bust": self.bust,
        }


def count_hand(cards: list[str], *, may_be_blackjack: bool = True) -> HandCount:
    """Count a hand; `may_be_blackjack` is False for a split hand (not the initial two)."""
    hard = sum(point_value(c) for c in cards)
    has_ace = any(is_ace(c) for c in cards)
    soft = hard + 10 if has_ace and hard + 10 <= 21 else None
    blackjack = (
        may_be_blackjack
        and len(cards) == 2
        and any(is_ace(c) for c in cards)
        and any(is_ten_value(c) for c in cards)
    )
    return HandCount(tuple(cards), hard, soft, blackjack)


def dealer_must_stand(count: HandCount) -> bool:
    """§ 549.13(b): the dealer draws until a hard or soft total of 17 to 21."""
    return count.total >= 17


def deck_size(game: str) -> int:
    """52 cards, or 48 for Spanish 21 (§ 551.3(a))."""
    try:
        return DECK_SIZE[game]
    except KeyError:
        raise ValueError(f"game blackjack or spanish21 expected, found {game!r}") from None


def shoe_composition(game: str, decks: int) -> dict[str, int]:
    """How many of each card `decks` decks hold: {"AS": decks, ...}; no tens in Spanish 21."""
    if decks < 1:
        raise ValueError(f"at least one deck expected, found {decks}")
    ranks = RANKS.replace("T", "") if game == "spanish21" else RANKS
    deck_size(game)  # validates the game
    return {r + s: decks for r in ranks for s in SUITS}


def baccarat_value(card: str) -> int:
    """A card's Point Count value in the Baccarat games: ace 1, 2-9 at face, tens and faces 0.

    A hand's Point Count is the sum of its values, tens dropped (the standard count: the
    chapters use Point Count, e.g. § 545.1 'Natural', but its own definition is not in
    floord's sources).
    """
    return point_value(card) % 10


def burn_value(card: str) -> int:
    """The face value of the first card out of a new shoe: tens and faces ten, ace one.

    § 541.5(g), § 543.5(g), § 545.5(f): that card and as many more are burned.
    """
    return point_value(card)
