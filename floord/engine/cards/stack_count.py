"""A stack placed in a dealing shoe, counted against the table's decks.

A shoe that counts the cards it is loaded with (`shoe.loaded {cards}`) shows whether the
stack holds the table's decks. Only Blackjack and Spanish 21 have a paragraph that asks
for the count (§ 549.7(k)(2), § 551.8(j)(2): the cards remaining after the cutting card go
to the rack "to ensure that no cards are missing"); any other load at any card game is
counted as floord's policy. Each game says which rule, if any, applies.
"""

from __future__ import annotations

from typing import Any

STACK_COUNT_POLICY = (
    "floord policy, not a regulation: a stack loaded holds exactly the table's decks "
    "(one side's share of a double shoe, one batch of a shuffler)"
)


def stack_count_problem(cards: object, expected: int, side: str | None) -> dict[str, Any] | None:
    """The violation's data when a counted stack is not the `expected` cards, else None
    (a shoe that did not count, null `cards`, shows nothing)."""
    if not isinstance(cards, int) or isinstance(cards, bool) or cards == expected:
        return None
    return {
        "what": "cards_missing" if cards < expected else "cards_extra",
        "side": side,
        "count": cards,
        "expected": expected,
        "detail": f"the shoe was loaded with {cards} cards; the table's decks make {expected}",
    }
