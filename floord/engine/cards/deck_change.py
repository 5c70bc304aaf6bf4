"""The warning that a table's decks are due to be changed, given once per set of decks.

Blackjack's shoe and the poker `DeckBook` both open decks at a recorded time, know when
they are due, and warn a configured number of minutes before; each words the warning
under its own chapter's citation.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Protocol

from floord.contract import format_ts


class DeckClock(Protocol):
    """A book that knows when its decks were opened and whether it has warned yet."""

    decks_opened_at: str | None
    deck_warned: bool

    def deck_due_at(self) -> datetime | None: ...


def deck_warning_at(book: DeckClock, warn: timedelta) -> datetime | None:
    """The first instant `deck_change_due` warns at (None: it will not: no decks on
    record, or warned already)."""
    due = book.deck_due_at()
    if due is None or book.deck_warned:
        return None
    return due - warn


def deck_change_due(book: DeckClock, now: datetime, warn: timedelta) -> dict[str, Any] | None:
    """The data of a `deck_change_due` warning on the first tick within `warn` of the
    decks' due time (marking the book warned), else None."""
    due = book.deck_due_at()
    if due is None or book.deck_warned or now < due - warn:
        return None
    book.deck_warned = True
    return {"what": "deck_change_due", "due_at": format_ts(due), "opened_at": book.decks_opened_at}
