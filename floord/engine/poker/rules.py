"""Poker (58 Pa. Code chapter 553): citations and table rules.

Our seeds hold only § 553.5 (opening of the table for gaming) and § 553.6 (shuffle and
cut of the cards) of chapter 553, as amended by 40 Pa.B. 2959. They refer to § 553.2(c)
(the area where the deck not in use is placed), § 553.3 (the number of decks and their
rotation) and § 523.16(u), (v) (preinspected and preshuffled cards), none of which the
seeds contain: floord neither checks the area nor a rotation, and takes a receipt's
"preinspected and preshuffled" as the operator declares it. No hand is read or paid.
`CITES` maps a short key to its paragraph, so the engine and its tests speak of "cut" or
"recut", never of a paragraph number.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from floord.contract import cite
from floord.engine.cards.idle_clock import idle_minutes_problem
from floord.engine.core.inspection import InspectionSpec

GAME = "poker"
SHUFFLERS = ("none", "automated")
DECKS = 2  # § 553.5(a): "After receiving two decks of cards at the table"
DECK_SIZE = 52  # floord's reading: § 553.3 (the decks) is not in our seeds
CUT_MIN = 10  # § 553.6(b)(2): "a stack of at least 10 cards from the top"
# A rule a table's config leaves out: these, here and in the config's model
# (`floord/games/poker.py`).
DEFAULTS: dict[str, Any] = {"shuffler": "automated", "deck_backs": ["red", "blue"]}

CITES: dict[str, str] = {
    "decks_received": "553.5(a)",
    "cards_inspected": "553.5(a)",
    "cards_verified": "553.5(b)",
    "cards_spread_for_players": "553.5(b)",
    "decks_washed_and_stacked": "553.5(c)",
    "one_deck_cut": "553.5(d)",
    "other_deck_in_shuffler": "553.5(e)",
    "preinspected": "553.5(f)",
    "shuffle": "553.6(a)",
    "cut": "553.6(b)",
    "recut": "553.6(c)",
    "no_gaming_activity": "553.6(d)",
}
# What `DeckBook` asks for, in chapter 553's words. A counting shuffler's count and a
# shuffler out of order have no paragraph here (None: floord's policy or not checked).
DECK_KEYS = {
    "inspected": "decks_received",
    "shuffle": "shuffle",
    "in_play_shuffled": "other_deck_in_shuffler",
    "reshuffle": "shuffle",
    "no_gaming_activity": "no_gaming_activity",
}
CHECKLIST: tuple[str, ...] = ("cards_inspected", "cards_verified", "cards_spread_for_players")
CHECKLIST += ("decks_washed_and_stacked",)


@dataclass(frozen=True)
class PokerRules:
    """A Poker table's validated rules; also what `DeckBook` reads (`DeckRules`)."""

    shuffler: str
    deck_backs: tuple[str, ...]
    # § 553.6(d): minutes without a round after which both decks are spread, washed,
    # stacked, shuffled and cut again; None: not watched.
    idle_minutes: int | None = None
    decks: int = DECKS
    deck_size: int = DECK_SIZE
    deck_change_warn_minutes: int = 0
    has_shoe: bool = False  # the cards are dealt from the hand (no dealing rule in our seeds)
    deck_hours: int | None = None  # § 553.3 is not in our seeds
    deck_change_rule: str | None = None

    def cite(self, key: str) -> str:
        return cite(CITES[key])

    def deck_rule(self, key: str) -> str | None:
        mapped = DECK_KEYS.get(key)
        return None if mapped is None else self.cite(mapped)

    def cut_bounds(self) -> tuple[int, int]:
        """At least 10 cards from the top (§ 553.6(b)(2)) and at least one left below."""
        return CUT_MIN, self.deck_size - 1


def read_rules(rules: dict[str, Any]) -> PokerRules:
    """Check a table's `rules` against chapter 553; ValueError names what is wrong."""
    if not isinstance(rules, dict):
        raise ValueError(f"rules must be an object, found {type(rules).__name__}")
    unknown = sorted(set(map(str, rules)) - {"shuffler", "deck_backs", "idle_minutes"})
    if unknown:
        raise ValueError(f"unknown poker rule(s): {', '.join(unknown)}")
    shuffler = rules.get("shuffler", DEFAULTS["shuffler"])
    if shuffler not in SHUFFLERS:
        raise ValueError(f"shuffler must be one of {', '.join(SHUFFLERS)}, found {shuffler!r}")
    backs = rules.get("deck_backs")
    backs = DEFAULTS["deck_backs"] if backs is None else backs
    if (
        not isinstance(backs, list)
        or len(backs) != DECKS
        or not all(isinstance(b, str) and b for b in backs)
        or backs[0] == backs[1]
    ):
        raise ValueError(
            f"deck_backs must name the two decks received ({cite(CITES['decks_received'])}) "
            f"with two different names, found {backs!r}"
        )
    idle = rules.get("idle_minutes")
    if (problem := idle_minutes_problem(idle)) is not None:
        raise ValueError(f"{problem} ({cite(CITES['no_gaming_activity'])})")
    return PokerRules(shuffler=shuffler, deck_backs=tuple(backs), idle_minutes=idle)


def poker_inspection(rules: PokerRules) -> InspectionSpec:
    """The opening checklist of § 553.5: the dealer inspects the two decks (a), a
    floorperson or higher verifies and they are spread face up by suit and in sequence
    for the first two players (b), then each deck is turned face down, washed and
    stacked (c). Decks received preinspected and preshuffled (§ 553.5(f)) are answered
    true with a note saying so."""
    return InspectionSpec(
        items={k: rules.cite(k) for k in CHECKLIST}, rule=rules.cite("cards_verified")
    )
