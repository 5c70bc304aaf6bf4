"""A card table's `decks` and `deck_backs` rules, checked the same way by every poker game.

Mississippi Stud (§ 571.3) and the carnival games (§ 55x.4(d)) play one deck, or two
alternated by an automated shuffler, each named by its back. The checks are the same;
only the words (and the citations in them) are the chapter's, passed in by the caller.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DeckWords:
    """A chapter's words for what is wrong: the citation of the deck count
    (`decks_basis`), why two decks need a shuffler, what the two names are, and the
    citation saying one deck has none."""

    decks_basis: str
    needs_shuffler: str
    backs_named: str
    one_deck_basis: str


def deck_problem(
    decks: object, backs: tuple[str, ...] | None, shuffler: str, words: DeckWords
) -> str | None:
    """Why the table's deck count and its decks' names cannot be used, or None: a count
    other than 1 or 2, two decks without a shuffler, two decks without two different
    names, or names given for one deck."""
    if decks not in (1, 2) or isinstance(decks, bool):
        return f"decks must be 1 or 2{words.decks_basis}, found {decks!r}"
    named = backs or ()
    if decks == 2:
        if shuffler == "none":
            return words.needs_shuffler
        if (
            not isinstance(named, tuple)
            or len(named) != 2
            or not all(isinstance(b, str) and b for b in named)
            or named[0] == named[1]
        ):
            return f"two decks need deck_backs: {words.backs_named}"
    elif named:
        return f"deck_backs is for two decks{words.one_deck_basis}; one deck has none"
    return None


def deck_names(decks: int, backs: tuple[str, ...] | None) -> tuple[str, ...]:
    """The names the table's decks go by: their backs for two, "deck" for one."""
    return tuple(backs or ()) if decks == 2 else ("deck",)
