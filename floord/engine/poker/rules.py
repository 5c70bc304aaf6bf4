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
from typing import ClassVar, Literal

from floord.contract import cite
from floord.engine.cards.idle_clock import idle_minutes_problem
from floord.engine.core.inspection import InspectionSpec

GAME = "poker"
Shuffler = Literal["none", "automated"]
SHUFFLERS: tuple[Shuffler, ...] = ("none", "automated")
DECKS = 2  # § 553.5(a): "After receiving two decks of cards at the table"
DECK_SIZE = 52  # floord's reading: § 553.3 (the decks) is not in our seeds
CUT_MIN = 10  # § 553.6(b)(2): "a stack of at least 10 cards from the top"
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
    """A Poker table's rules, the one form of them; also what `DeckBook` reads
    (`DeckRules`). A table's config (`floord/games/poker.py`) builds one from its
    `rules:`, a test by keyword, and each is checked against chapter 553 as it is made
    (ValueError names what is wrong). A rule the config leaves out takes the default here."""

    shuffler: Shuffler = "automated"
    # § 553.5(a): the two decks received, by the names the dealer and the shuffler use.
    deck_backs: tuple[str, ...] = ("red", "blue")
    # § 553.6(d): minutes without a round after which both decks are spread, washed,
    # stacked, shuffled and cut again; None: not watched.
    idle_minutes: int | None = None
    # Not a table's choice: what `DeckRules` asks of every card game.
    decks: ClassVar[int] = DECKS
    deck_size: ClassVar[int] = DECK_SIZE
    deck_change_warn_minutes: ClassVar[int] = 0
    has_shoe: ClassVar[bool] = False  # dealt from the hand (no dealing rule in our seeds)
    deck_hours: ClassVar[int | None] = None  # § 553.3 is not in our seeds
    deck_change_rule: ClassVar[str | None] = None

    def __post_init__(self) -> None:
        if self.shuffler not in SHUFFLERS:
            raise ValueError(
                f"shuffler must be one of {', '.join(SHUFFLERS)}, found {self.shuffler!r}"
            )
        backs = self.deck_backs
        if (
            not isinstance(backs, tuple)
            or len(backs) != DECKS
            or not all(isinstance(b, str) and b for b in backs)
            or backs[0] == backs[1]
        ):
            shown = list(backs) if isinstance(backs, tuple) else backs  # as the file has it
            raise ValueError(
                f"deck_backs must name the two decks received ({cite(CITES['decks_received'])}) "
                f"with two different names, found {shown!r}"
            )
        if (problem := idle_minutes_problem(self.idle_minutes)) is not None:
            raise ValueError(f"{problem} ({cite(CITES['no_gaming_activity'])})")

    @property
    def deck_names(self) -> tuple[str, ...]:
        return self.deck_backs

    def cite(self, key: str) -> str:
        return cite(CITES[key])

    def deck_rule(self, key: str) -> str | None:
        mapped = DECK_KEYS.get(key)
        return None if mapped is None else self.cite(mapped)

    def cut_bounds(self) -> tuple[int, int]:
        """At least 10 cards from the top (§ 553.6(b)(2)) and at least one left below."""
        return CUT_MIN, self.deck_size - 1


def poker_inspection(rules: PokerRules) -> InspectionSpec:
    """The opening checklist of § 553.5: the dealer inspects the two decks (a), a
    floorperson or higher verifies and they are spread face up by suit and in sequence
    for the first two players (b), then each deck is turned face down, washed and
    stacked (c). Decks received preinspected and preshuffled (§ 553.5(f)) are answered
    true with a note saying so."""
    return InspectionSpec(
        items={k: rules.cite(k) for k in CHECKLIST}, rule=rules.cite("cards_verified")
    )
