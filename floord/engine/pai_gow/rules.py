"""Pai Gow (58 Pa. Code chapter 535): citations, the table's positions, its count order.

Our seeds (40 Pa.B. 2959) hold one section of chapter 535: § 535.2, the table, its layout,
its drop and tip boxes and the Pai Gow shaker. Its paragraph (d) says the shaker is "used
to shake three dice before each hand of Pai Gow is dealt to determine the starting
position for the dealing of the Pai Gow tiles"; how the dice determine it is not in the
seeds (nor are the tiles, the opening of the table, the dealing procedure, the wagers
or the payouts). So the counting is the table's Rules Submission, configured as
`count_order`, never a default of floord's: the table's positions in the order the dice
are counted, the first counted 1; the total of the three faces counted around them (past
the last, on from the first) names the starting position. The positions are those of
§ 535.2: the six numbered betting areas (b)(1), the dealer's place (a) and the Dead Hand
(b)(2), which a table's count may or may not include. `CITES` maps a key to its paragraph.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from floord.contract import cite
from floord.engine.core.inspection import InspectionSpec

GAME = "pai_gow"
DICE = 3  # § 535.2(d): "three dice"; (d)(1): "capable of housing three dice"
FACES = range(1, 7)
PLAYER_AREAS = (1, 2, 3, 4, 5, 6)  # § 535.2(b)(1): "numbered one through six"
DEALER = "dealer"  # § 535.2(a): "a place for the dealer"
DEAD_HAND = "dead_hand"  # § 535.2(b)(2): four tiles to the left of the dealer
POSITIONS: tuple[int | str, ...] = (*PLAYER_AREAS, DEALER, DEAD_HAND)

CITES: dict[str, str] = {
    "table": "535.2(a)",
    "layout": "535.2(b)",
    "betting_areas": "535.2(b)(1)",
    "dead_hand": "535.2(b)(2)",
    "name_or_logo": "535.2(b)(3)",
    "drop_box": "535.2(c)",
    "shaker": "535.2(d)",
    "three_dice": "535.2(d)(1)",
    "shaker_logo": "535.2(d)(2)",
}
# What no paragraph of the seeds says, and floord therefore takes from the Rules Submission.
COUNT_NOTE = (
    "§ 535.2(d) says the dice determine the starting position but not how: floord counts "
    "the total of the three faces around the table's configured count_order (its Rules "
    "Submission), the first position counted 1"
)


def position_name(position: int | str) -> str:
    """A position as a sentence says it: `betting area 3`, `the dealer`, `the Dead Hand`."""
    if position == DEALER:
        return "the dealer"
    if position == DEAD_HAND:
        return "the Dead Hand"
    return f"betting area {position}"


def is_position(value: Any) -> bool:
    """One of the table's positions of § 535.2 (a bool is not a betting area)."""
    return not isinstance(value, bool) and value in POSITIONS


@dataclass(frozen=True)
class PaiGowRules:
    """A Pai Gow table's rules, the one form of them: a table's config
    (`floord/games/pai_gow.py`) builds one from its `rules:`, a test or the demo by
    keyword, and each is checked against § 535.2 as it is made (ValueError names what is
    wrong). `count_order` has no default: the table's Rules Submission says it."""

    count_order: tuple[int | str, ...]

    def __post_init__(self) -> None:
        order = self.count_order
        read_count_order(list(order) if isinstance(order, tuple) else order)

    def cite(self, key: str) -> str:
        return cite(CITES[key])

    def note(self, key: str) -> dict[str, str]:
        return {}

    def starting_position(self, total: int) -> int | str:
        """The position the dice total names, counted around `count_order` from 1."""
        return self.count_order[(total - 1) % len(self.count_order)]


def read_count_order(value: Any) -> tuple[int | str, ...]:
    """Check a configured `count_order`; a ValueError says what is wrong, with the
    paragraph. Every place of § 535.2(a) (the six betting areas of (b)(1) and the dealer)
    is counted once; the Dead Hand of (b)(2) at most once."""
    if not isinstance(value, list | tuple) or not value:
        raise ValueError(
            "count_order: the table's positions in the order the shaker's dice are counted "
            f"expected (its Rules Submission; {COUNT_NOTE}), found {value!r}"
        )
    bad = [v for v in value if not is_position(v)]
    if bad:
        raise ValueError(
            f"count_order: positions 1 to 6, {DEALER!r} or {DEAD_HAND!r} expected "
            f"({cite(CITES['betting_areas'])}, {cite(CITES['table'])}, "
            f"{cite(CITES['dead_hand'])}), found {bad!r}"
        )
    twice = sorted({str(v) for v in value if list(value).count(v) > 1})
    if twice:
        raise ValueError(f"count_order: each position once expected, found {twice} twice")
    missing = [p for p in (*PLAYER_AREAS, DEALER) if p not in value]
    if missing:
        raise ValueError(
            "count_order: the six betting areas and the dealer's place expected "
            f"({cite(CITES['table'])}), found {missing!r} missing"
        )
    return tuple(value)


def pai_gow_inspection(rules: PaiGowRules) -> InspectionSpec:
    """The § 535.2 characteristics checked before opening. Chapter 535's opening section
    is not in our seeds, so asking for this checklist is floord's policy (as Big Six
    does for § 533.1): a table does not open on a layout and shaker no one checked."""
    items = {
        "six_player_places_and_dealer": rules.cite("table"),
        "layout_approved": rules.cite("layout"),
        "betting_areas_numbered_1_to_6": rules.cite("betting_areas"),
        "dead_hand_area_left_of_dealer": rules.cite("dead_hand"),
        "name_or_logo_on_layout": rules.cite("name_or_logo"),
        "drop_box_and_tip_box": rules.cite("drop_box"),
        "shaker_approved": rules.cite("shaker"),
        "shaker_houses_three_dice_unseen": rules.cite("three_dice"),
        "shaker_name_or_logo": rules.cite("shaker_logo"),
    }
    return InspectionSpec(items=items, rule=cite("535.2"))
