"""The drawing rules of Baccarat: Point Counts, naturals, and who takes a third card.

The chapters deal a third card "in conformity with" § 541.11, § 543.11, § 545.11
(§ 54x.10(b)); those sections are not in floord's sources, so this is the standard
tableau of the game, the same in all three chapters:

- a Natural (8 or 9 on the first two cards, § 545.1) on either hand: neither draws;
- the Player's Hand draws on 0-5 and stands on 6 or 7;
- if the Player's Hand stood, the Banker's Hand draws on 0-5 and stands on 6 or 7;
- if the Player's Hand drew, the Banker's Hand, by its two-card count and the value of
  the Player's third card: 0-2 draws; 3 draws unless that card is an 8; 4 draws on
  2-7; 5 draws on 4-7; 6 draws on 6 or 7; 7 stands.

`next_card` says what the rules require after the cards dealt so far, in the order of
§ 54x.9(c) (Player, Banker, Player, Banker) and § 54x.10(c) (Player's third first).
"""

from __future__ import annotations

from floord.engine.cards.card import baccarat_value

PLAYER, BANKER = "player", "banker"
INITIAL_ORDER = (PLAYER, BANKER, PLAYER, BANKER)
# What the next card must be: a hand's initial card, a third card, or nothing.
NEXT_NONE = "none"
NEXT_PLAYER_THIRD = "player_third"
NEXT_BANKER_THIRD = "banker_third"


def point_count(cards: list[str]) -> int:
    """The hand's Point Count: the sum of the cards' values, tens dropped."""
    return sum(baccarat_value(c) for c in cards) % 10


def is_natural(cards: list[str]) -> bool:
    """§ 545.1: a Point Count of 8 or 9 on the first two cards."""
    return len(cards) == 2 and point_count(cards) >= 8


def player_draws(player_total: int) -> bool:
    """The Player's Hand (no natural on the table) draws on 0-5."""
    return player_total <= 5


def banker_draws(banker_total: int, player_third: int | None) -> bool:
    """The Banker's Hand (no natural on the table) by its total and the Player's third card.

    `player_third` is the value (0-9) of the Player's third card, None if the Player stood.
    """
    if player_third is None:
        return banker_total <= 5
    if banker_total <= 2:
        return True
    if banker_total == 3:
        return player_third != 8
    if banker_total == 4:
        return 2 <= player_third <= 7
    if banker_total == 5:
        return 4 <= player_third <= 7
    if banker_total == 6:
        return player_third in (6, 7)
    return False


def next_card(player: list[str], banker: list[str]) -> str:
    """What the rules call for next: "player" / "banker" (initial four), a third card, none."""
    dealt = len(player) + len(banker)
    if dealt < 4:
        return INITIAL_ORDER[dealt]
    if is_natural(player) or is_natural(banker):
        return NEXT_NONE
    p2, b2 = point_count(player[:2]), point_count(banker[:2])
    if len(player) == 2 and len(banker) == 2:
        if player_draws(p2):
            return NEXT_PLAYER_THIRD
        return NEXT_BANKER_THIRD if banker_draws(b2, None) else NEXT_NONE
    if len(banker) == 2 and len(player) == 3:
        third = baccarat_value(player[2])
        return NEXT_BANKER_THIRD if banker_draws(b2, third) else NEXT_NONE
    return NEXT_NONE


def why_no_card(player: list[str], banker: list[str]) -> str:
    """In words, why no further card may be dealt to either hand."""
    if len(player) == 3 and len(banker) == 3:
        return "each hand has had its one additional card"
    if is_natural(player) or is_natural(banker):
        return "a Natural is on the table: neither hand draws"
    p2, b2 = point_count(player[:2]), point_count(banker[:2])
    if len(player) == 2 and len(banker) == 3:
        return f"the Player's Hand stands on {p2} and the Banker's Hand has had its third card"
    if len(player) == 2:
        return f"the Player's Hand stands on {p2} and the Banker's Hand on {b2}"
    if len(banker) == 2:
        third = baccarat_value(player[2])
        return f"the Banker's Hand stands on {b2} when the Player's third card is a {third}"
    return "the hands are complete"


def is_dragon_7(player: list[str], banker: list[str]) -> bool:
    """§ 545.1: the Banker's Hand is 7 on three cards and the Player's Hand less than 7."""
    return len(banker) == 3 and point_count(banker) == 7 and point_count(player) < 7
