"""A card table's `decks` and `deck_backs` rules, read the same way by every poker game.

Mississippi Stud (§ 571.3) and the carnival games (§ 55x.4(d)) play one deck, or two
alternated by an automated shuffler, each named by its back. The checks are the same;
only the words (and the citations in them) are the chapter's, passed in by the caller.
"""

from __future__ import annotations

from typing import Any


def read_decks(
    rules: dict[str, Any],
    *,
    default: int,
    shuffler: str,
    decks_basis: str,
    needs_shuffler: str,
    backs_named: str,
    one_deck_basis: str,
) -> tuple[int, tuple[str, ...]]:
    """The table's deck count and its decks' names ("deck" for one deck).

    ValueError names what is wrong: a count other than 1 or 2 (`decks_basis` cites
    it), two decks without a shuffler (`needs_shuffler`), two decks without two
    different names (`backs_named` says what they are), or names given for one deck
    (`one_deck_basis`)."""
    decks = rules.get("decks", default)
    if decks not in (1, 2) or isinstance(decks, bool):
        raise ValueError(f"decks must be 1 or 2{decks_basis}, found {decks!r}")
    backs = rules.get("deck_backs") or []
    if decks == 2:
        if shuffler == "none":
            raise ValueError(needs_shuffler)
        if (
            not isinstance(backs, list)
            or len(backs) != 2
            or not all(isinstance(b, str) and b for b in backs)
            or backs[0] == backs[1]
        ):
            raise ValueError(f"two decks need deck_backs: {backs_named}")
    elif backs:
        raise ValueError(f"deck_backs is for two decks{one_deck_basis}; one deck has none")
    return decks, tuple(backs) if decks == 2 else ("deck",)
