"""Why no round may start on a card table's decks: each reason with its citation.

The decks' book (`floord.engine.cards.deck_book`) keeps what happened to the decks; this
module reads it for `round_start`: the receipt not yet cleared, an idle table, the decks
past their change, a deck removed, an uncovered broken shuffler, no shuffled deck ready,
the shoe not loaded. Each reason carries the game's citation (`rules.deck_rule(key)`),
or None where it is floord's policy.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol

from floord.contract import format_ts
from floord.engine.cards.deck_receipt import receipt_problem
from floord.engine.cards.deck_rules import DeckRules

# § 571.5(a), § 55x.5(a) exempt preshuffled decks from the shuffle before play; the table's
# automated shuffler shuffles them all the same (docs/rules.md, "Readings").
PRESHUFFLED_POLICY = (
    "floord policy, not a regulation: decks received preshuffled are shuffled by the "
    "table's automated shuffler before floord deals them, though the shuffle before play "
    "is not required of them; no shuffled deck is ready"
)


class DeckState(Protocol):
    """What the reasons read of the decks' book (`floord.engine.cards.deck_book.DeckBook`)."""

    decks: dict[str, str]
    receipt: dict[str, Any] | None
    idle_since: str | None
    decks_opened_at: str | None
    removed_rule: str | None
    out_of_order: bool
    covered: bool
    last_dealt: str | None
    shoe_loaded: bool

    @property
    def rules(self) -> DeckRules: ...

    @property
    def receipt_key(self) -> str: ...

    @property
    def shuffler_in_use(self) -> bool: ...

    @property
    def has_shoe(self) -> bool: ...

    @property
    def preshuffled_unused(self) -> bool: ...

    def next_deck(self) -> str | None: ...

    def deck_due_at(self) -> datetime | None: ...


def deal_problems(book: DeckState, now: datetime) -> list[tuple[str | None, str]]:
    """Why no round may start on `book`'s decks now: (citation or None, sentence),
    strongest first."""
    problems: list[tuple[str | None, str]] = []
    if (problem := receipt_problem(book.receipt)) is not None:
        problems.append((book.rules.deck_rule(book.receipt_key), problem))
    if book.idle_since is not None:
        problems.append(
            (
                book.rules.deck_rule("no_gaming_activity"),
                f"no gaming activity since {book.idle_since}: the cards are spread, "
                "washed, stacked and shuffled again",
            )
        )
    due = book.deck_due_at()
    if due is None and book.rules.deck_hours is not None:
        problems.append(
            (
                book.rules.deck_change_rule,
                "no deck change is on record: a floorperson records the decks opened "
                "for use with change_decks",
            )
        )
    elif due is not None and now >= due:
        problems.append(
            (
                book.rules.deck_change_rule,
                f"the decks were opened at {book.decks_opened_at} and had to be changed "
                f"by {format_ts(due)} (every {book.rules.deck_hours} hours)",
            )
        )
    removed = [d for d, s in book.decks.items() if s == "removed"]
    if removed:
        problems.append(
            (
                book.removed_rule,
                f"deck(s) {', '.join(removed)} removed from the table: a floorperson "
                "records new decks with change_decks",
            )
        )
    cover_rule = book.rules.deck_rule("out_of_order")
    if book.out_of_order and not book.covered and cover_rule is not None:
        problems.append((cover_rule, "the automated shuffler is out of order and not covered"))
    needs_rule = book.rules.deck_rule("needs_shuffler")
    if needs_rule is not None and not book.shuffler_in_use:
        problems.append((needs_rule, "cards dealt from the hand need a working automated shuffler"))
    if book.shuffler_in_use and not removed and book.next_deck() is None:
        states = sorted(set(book.decks.values()))
        if "jammed" in states:
            problems.append(
                (book.rules.deck_rule("reshuffle"), "the jammed deck must be reshuffled")
            )
        elif book.rules.decks == 2 and book.decks.get(book.last_dealt or "") == "ready":
            problems.append(
                (
                    book.rules.deck_rule("alternate"),
                    f"deck {book.last_dealt} was dealt last round: the decks alternate",
                )
            )
        elif book.preshuffled_unused:
            problems.append((None, PRESHUFFLED_POLICY))
        else:
            problems.append(
                (
                    book.rules.deck_rule("shuffle"),
                    f"no shuffled deck is ready (decks: {book.decks})",
                )
            )
    if book.has_shoe and not book.shoe_loaded:
        problems.append(
            (
                book.rules.cite("deck_in_shoe"),
                "the shuffled deck has not been placed in the shoe since the last round",
            )
        )
    return problems
