"""No gaming activity at an open card table: when the cards must be spread and reshuffled.

58 Pa. Code § 549.6(h), § 551.5(h), § 541.5(h), § 571.5(f) and § 55x.5(f) (§ 561.5(g))
each say what is done "if there is no gaming activity" at a table open for gaming: the
cards are spread for inspection and then shuffled again before the next round. None of
them says how long a pause is "no gaming activity", so the table's Rules Submission does
(`idle_minutes`, absent: not watched). Each game keeps the time of its last activity (a
round in play, a card or stack from its devices) and asks here, on every tick, whether
an idle spell has begun; what the cards need then is the game's own. Pure: no clock.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Protocol

from floord.contract import EventType, format_ts, parse_ts
from floord.engine.core.rulings import decision
from floord.engine.core.types import Decision

if TYPE_CHECKING:
    from floord.engine.cards.deck_book import DeckBook
    from floord.engine.core.rounds import RoundBook
    from floord.engine.core.table_state import TableState

IDLE_MINUTES_MAX = 24 * 60


def idle_since(
    active_at: str | None,
    now: datetime,
    minutes: int | None,
    *,
    in_play: bool,
    is_open: bool,
) -> tuple[str | None, str | None]:
    """(the last activity to keep, the start of an idle spell that reached `minutes` now).

    A round in play is activity; once an idle spell is reported the clock stops (None)
    until the next activity, so each spell is reported once."""
    if in_play:
        return format_ts(now), None
    if not minutes or active_at is None or not is_open:
        return active_at, None
    if now - parse_ts(active_at) < timedelta(minutes=minutes):
        return active_at, None
    return None, active_at


class _IdleRules(Protocol):
    @property
    def idle_minutes(self) -> int | None: ...


class IdleWatchedTable(Protocol):
    """What `card_table_quiet_until` reads of a card game's engine."""

    @property
    def rules(self) -> _IdleRules: ...
    @property
    def rounds(self) -> RoundBook: ...
    @property
    def table(self) -> TableState: ...


def card_table_quiet_until(
    engine: IdleWatchedTable,
    table_due: datetime | None,
    active_at: str | None,
    deck_warning: datetime | None = None,
) -> datetime | None:
    """A card table's `quiet_until`: None (every tick) while a round is in play, each
    tick in play being activity to `idle_since`; else the earliest of the table's own
    instant (`table_due`, None: every tick), the end of the idle spell under way (its
    last activity `active_at`, at an open table) and the deck change's warning."""
    if table_due is None or engine.rounds.current is not None:
        return None
    instants = [table_due]
    minutes = engine.rules.idle_minutes
    if minutes and active_at is not None and engine.table.is_open:
        instants.append(parse_ts(active_at) + timedelta(minutes=minutes))
    if deck_warning is not None:
        instants.append(deck_warning)
    return min(instants)


def idle_minutes_problem(value: object) -> str | None:
    """Why `value` is no `idle_minutes` option (whole minutes 1..1440, or null)."""
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= IDLE_MINUTES_MAX:
        return f"idle_minutes must be whole minutes 1..{IDLE_MINUTES_MAX} or null, found {value!r}"
    return None


def idle_decks(book: DeckBook, since: str, minutes: int, *, every_deck: bool) -> list[Decision]:
    """No gaming activity since `since`: the cards are shuffled again before the next
    round. `every_deck`: all the cards at the table (§ 55x.5(f): "the cards shall be
    spread out"); else those in the dealing shoe and the discard rack (§ 571.5(f))."""
    rule = book.rules.deck_rule("no_gaming_activity")
    if rule is None:
        return []
    if every_deck:
        book.reshuffle_all()
    elif book.has_shoe and book.shoe_loaded:
        loaded = book.next_deck()
        if loaded is not None and book.shuffler_in_use:
            book.decks[loaded] = "unshuffled"
        book.shoe_loaded = False
    else:
        return []  # nothing in the shoe; the rack's deck is shuffled anyway (§ 571.5(a))
    book.idle_since = since
    decks = [d for d, s in book.decks.items() if s == "unshuffled"]
    return [
        decision(
            EventType.CARDS_SHUFFLE_REQUIRED,
            rule,
            None,
            reason="no_gaming_activity",
            since=since,
            idle_minutes=minutes,
            decks=decks,
            detail="the cards are spread for the first player, washed, stacked and "
            "shuffled before the next round",
        )
    ]


def watch_idle(
    book: DeckBook,
    now: datetime,
    minutes: int | None,
    *,
    in_play: bool,
    is_open: bool,
    every_deck: bool,
) -> list[Decision]:
    """On a tick: the book's idle spell, if one reached `minutes` now (see `idle_decks`)."""
    book.active_at, since = idle_since(
        book.active_at, now, minutes, in_play=in_play, is_open=is_open
    )
    if since is None or not minutes:
        return []
    return idle_decks(book, since, minutes, every_deck=every_deck)
