"""War (58 Pa. Code chapter 567): citations and table rules.

Our seeds hold only § 567.4 (opening of the table for gaming) and § 567.5 (shuffle and
cut of the cards) of chapter 567, as amended by 40 Pa.B. 2959. They refer to § 567.8(d)
(the procedure for dealing the cards, which says when the cover card ends the shoe) and
§ 523.16(u), (v) (preinspected and preshuffled cards), neither of which the seeds
contain: floord reads § 567.5(g) alone (the round in play is completed, then the cards
are reshuffled) and takes a receipt's "preinspected and preshuffled" as the operator
declares it. The layout (§ 567.2), the decks (§ 567.3), the wagers and payouts are not in
the seeds either: no hand is read or paid. `CITES` maps a short key to its paragraph.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from floord.contract import cite
from floord.engine.cards.idle_clock import idle_minutes_problem
from floord.engine.core.inspection import InspectionSpec

GAME = "war"
Shuffler = Literal["none", "automated"]
SHUFFLERS: tuple[Shuffler, ...] = ("none", "automated")
MIN_DECKS = 6  # § 567.4(a): "After receiving six or more decks of cards at the table"
MAX_DECKS = 16  # floord's bound (a receipt names at most 16 decks)
MAX_BOXES = 7  # floord's bound: the layout (§ 567.2) is not in our seeds
DECK_SIZE = 52
CUT_MIN = 10  # § 567.5(d): "at least 10 cards in from the top or the bottom"
CITES: dict[str, str] = {
    "decks_inspected": "567.4(a)",
    "cards_spread": "567.4(b)",
    "washed_and_stacked": "567.4(c)",
    "batches_separately": "567.4(d)",
    "preinspected": "567.4(e)",
    "shuffle": "567.5(a)",
    "offer": "567.5(b)",
    "offer_first_player": "567.5(b)(1)",
    "offer_cover_box": "567.5(b)(2)",
    "offer_cover_dealer": "567.5(b)(3)",
    "offer_reshuffle": "567.5(b)(4)",
    "cut_declined": "567.5(c)",
    "cover_card": "567.5(d)",
    "second_cover_card": "567.5(e)",
    "recut": "567.5(f)",
    "reshuffle_at_cover": "567.5(g)",
    "no_gaming_activity": "567.5(h)",
    "idle_shuffler": "567.5(h)(2)",
}


@dataclass(frozen=True)
class WarRules:
    """A War table's rules, the one form of them: a table's config (`floord/games/war.py`)
    builds one from its `rules:`, a test or the demo by keyword, and each is checked
    against chapter 567 as it is made (ValueError names what is wrong). A rule the config
    leaves out takes the default here."""

    decks: int = MIN_DECKS
    shuffler: Shuffler = "none"
    boxes: int = MAX_BOXES
    # § 567.5(h): minutes without a round or a card after which the cards come out of
    # the shoe and the rack, are spread, and are shuffled and cut again; None: not watched.
    idle_minutes: int | None = None
    deck_size: ClassVar[int] = DECK_SIZE  # not a table's choice

    def __post_init__(self) -> None:
        if not _whole(self.decks, MIN_DECKS, MAX_DECKS):
            raise ValueError(
                f"decks must be {MIN_DECKS} or more ({cite(CITES['decks_inspected'])}), at "
                f"most {MAX_DECKS}, found {self.decks!r}"
            )
        if self.shuffler not in SHUFFLERS:
            raise ValueError(
                f"shuffler must be one of {', '.join(SHUFFLERS)}, found {self.shuffler!r}"
            )
        if not _whole(self.boxes, 1, MAX_BOXES):
            raise ValueError(f"boxes must be 1..{MAX_BOXES}, found {self.boxes!r}")
        if (problem := idle_minutes_problem(self.idle_minutes)) is not None:
            raise ValueError(f"{problem} ({cite(CITES['no_gaming_activity'])})")

    def cite(self, key: str) -> str:
        return cite(CITES[key])

    @property
    def stack_cards(self) -> int:
        """The cards of the table's decks: one stack shuffled by hand."""
        return self.decks * self.deck_size


def _whole(value: object, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def war_inspection(rules: WarRules) -> InspectionSpec:
    """The opening checklist of § 567.4: each deck sorted and inspected separately, face
    down, and the floorperson assigned to the table verifies (a); the cards spread face up
    by suit and in sequence for the first player (b); turned face down, washed and
    stacked (c); with an automated shuffler, each batch spread on its own (d). Decks
    received preinspected and preshuffled (e) are answered true with a note saying so."""
    items = {
        "decks_sorted_and_inspected": rules.cite("decks_inspected"),
        "cards_spread_for_first_player": rules.cite("cards_spread"),
        "cards_washed_and_stacked": rules.cite("washed_and_stacked"),
    }
    if rules.shuffler != "none":
        items["batches_spread_separately"] = rules.cite("batches_separately")
    return InspectionSpec(items=items, rule=rules.cite("decks_inspected"))
