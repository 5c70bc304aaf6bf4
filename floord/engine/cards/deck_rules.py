"""What a card table's decks' book reads of the game's rules (`DeckRules`).

Each game's rules value (Mississippi Stud, the carnival games, Poker) has these members;
the book (`floord.engine.cards.deck_book`) and the reasons no round may start
(`floord.engine.cards.deal_refusals`) read the rules only through them.
"""

from __future__ import annotations

from typing import Protocol


class DeckRules(Protocol):
    """What `DeckBook` reads of a game's rules (`StudRules`, `CarnivalRules`)."""

    # Read-only: the rules are frozen models, and the book never changes them.
    @property
    def shuffler(self) -> str: ...

    @property
    def decks(self) -> int: ...

    @property
    def deck_names(self) -> tuple[str, ...]:
        """The names the table's decks go by: their backs, or "deck" for one."""
        ...

    @property
    def deck_change_warn_minutes(self) -> int: ...

    @property
    def deck_size(self) -> int: ...

    @property
    def has_shoe(self) -> bool: ...

    @property
    def deck_hours(self) -> int | None: ...

    @property
    def deck_change_rule(self) -> str | None: ...

    def deck_rule(self, key: str) -> str | None: ...

    def cite(self, key: str) -> str: ...
