"""A card placed "at least approximately one-quarter of the way in from the bottom".

Blackjack's cutting card (§ 549.6(e), § 551.5(e)) and War's second cover card
(§ 567.5(e)) are placed in the stack with the same words. A dealing shoe's counts show
where it was: the stack loaded (`shoe.loaded {cards}`) less the cards drawn before it
(`shoe.cutting_card {count}`) are the cards behind it. "Approximately" is floord's
reading, the same at both games: a quarter of the stack less a quarter deck. Pure.
"""

from __future__ import annotations


def quarter_reading(card: str) -> str:
    """floord's reading of the paragraph's words, said of `card` ("cutting card")."""
    return (
        "floord's reading of 'at least approximately one-quarter': the cards behind the "
        f"{card} may fall short of a quarter of the stack by at most a quarter deck"
    )


def quarter_minimum(stack: int, deck_size: int) -> int:
    """The fewest cards behind the card that floord accepts as about a quarter."""
    return max(0, stack // 4 - deck_size // 4)
