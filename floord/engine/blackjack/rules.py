"""Which section of 58 Pa. Code each Blackjack or Spanish 21 decision stands on.

Blackjack is chapter 549 (40 Pa.B. 985, amended at 40 Pa.B. 2959). Spanish 21 is
chapter 551, of which floord's sources hold only §§ 551.2-551.5, 551.8, 551.12 and
551.15 (40 Pa.B. 2959): where a Spanish 21 rule is in those sections it is cited; where
it is not, chapter 549's rule is applied and the decision says so in `data.rule_note`.
The engine asks this module for a citation by a short key, so the two games share one
engine and one set of tests.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from floord.contract import cite
from floord.engine.blackjack.spanish21 import Payout
from floord.engine.cards.card import deck_size
from floord.engine.core.inspection import InspectionSpec

# § 549.2(b)(2), § 551.2(b)(2): "No more than seven" betting areas (player positions).
MAX_BOXES = 7

# key -> (chapter 549 section, chapter 551 section or None when not in floord's sources)
SECTIONS: dict[str, tuple[str, str | None]] = {
    "betting_areas": ("549.2(b)(2)", "551.2(b)(2)"),
    "reader_inspection": ("549.2(e)", "551.2(e)"),
    "cards_inspected": ("549.5(a)", "551.4(a)"),
    "cards_verified": ("549.5(a)", "551.4(b)"),
    "preinspected": ("549.5(f)", "551.4(d)"),
    # The spread for the first player, then washed and stacked; § 551.4 has no (d), (e).
    "cards_spread": ("549.5(b)", "551.4(b)"),
    "cards_washed": ("549.5(c)", "551.4(c)"),
    "sides_spread": ("549.5(d)", "551.4(b)"),
    "batches_spread": ("549.5(e)", "551.4(b)"),
    "values": ("549.3(b)", "551.3(b)"),
    "no_tens": ("551.3(a)", "551.3(a)"),
    "deck_change": ("549.3(e)", "551.3(c)"),
    "batches_equal": ("549.3(d)(1)", None),
    "batch_backs": ("549.3(d)(2)", None),
    "batch_in_shuffler": ("549.3(d)(3)", None),
    "batches_alternate": ("549.3(d)(4)", None),
    "one_batch_in_rack": ("549.3(d)(5)", None),
    "wagers_win": ("549.4(b)", None),
    "wagers_push": ("549.4(c)", None),
    "shuffle_after_shoe": ("549.6(a)", "551.5(a)"),
    "offer": ("549.6(b)", "551.5(b)"),
    "offer_first": ("549.6(b)(1)", "551.5(b)(1)"),
    "offer_box": ("549.6(b)(2)", "551.5(b)(2)"),
    "offer_dealer": ("549.6(b)(3)", "551.5(b)(3)"),
    "offer_reshuffle": ("549.6(b)(4)", "551.5(b)(4)"),
    "cut_declined": ("549.6(c)", "551.5(c)"),
    "cut_cards": ("549.6(d)", "551.5(d)"),
    "cut_quarter": ("549.6(e)", "551.5(e)"),
    "recut": ("549.6(f)", "551.5(f)"),
    "no_gaming_activity": ("549.6(h)", "551.5(h)"),
    "cutting_card_used": ("549.3(a)", "551.3(a)"),
    "cutting_card_each_side": ("549.3(c)", None),
    "no_cards_missing": ("549.7(k)(2)", "551.8(j)(2)"),
    "reshuffle": ("549.6(g)", "551.5(g)"),
    "burn": ("549.7(c)", "551.8(c)"),
    "determinant": ("549.7(d)", None),
    "deal_order": ("549.7(e)", "551.8(d)"),
    "peek": ("549.7(f)", "551.8(e)"),
    "player_cards": ("549.7(h)", "551.8(g)"),
    "dealer_reveal": ("549.7(i)", "551.8(h)"),
    "cutting_card": ("549.7(k)", "551.8(j)"),
    "blackjack_pays": ("549.8", None),
    # A Blackjack paid 3 to 2: Spanish 21's layout says so (§ 551.2(c)(1)).
    "blackjack_3_to_2": ("549.8", "551.2(c)(1)"),
    "surrender": ("549.9(a)", None),
    "insurance_ace": ("549.10(a)", None),
    "insurance_before_peek": ("549.10(b)", None),
    "insurance_pays": ("549.10(c)", "551.2(c)(3)"),
    "double": ("549.11(a)", None),
    "double_collect": ("549.11(b)", None),
    "split_pair": ("549.12(a)", "551.12(a)"),
    "split_order": ("549.12(b)", "551.12(b)"),
    "split_three_hands": ("549.12(c)(1)", "551.12(c)"),
    "split_aces": ("549.12(c)(2)", None),
    "split_collect": ("549.12(d)", "551.12(d)"),
    "player_draw": ("549.13(a)(1)", None),
    "dealer_draw": ("549.13(b)", None),
    "boxes_per_player": ("549.14", None),
    "dealer_no_effect": ("549.13(c)", None),
    "continuous": ("549.15", "551.15"),
    "face_up": ("549.16(a)", None),
    "drawn_in_error": ("549.16(b)", None),
    "drawn_in_error_exposed": ("549.16(c)", None),
    "dealer_17_card": ("549.16(d)", None),
    "dealer_missed": ("549.16(e)", None),
    "insufficient_cards": ("549.16(f)", None),
    "no_card": ("549.16(g)", None),
    "wrong_side": ("549.16(h)", None),
    "card_not_dealt": ("549.16(i)", None),
    "peek_exposed": ("549.16(j)(1)", None),
    "peek_hidden": ("549.16(j)(2)", None),
    "reader_malfunction": ("549.16(k)", None),
}
# Spanish 21 rules that are in floord's sources and differ from chapter 549: no rule
# to cite where chapter 551 does not restrict (split aces, § 551.12(c)).
NOT_IN_SPANISH21 = frozenset({"split_aces", "determinant", "wrong_side"})


Shoe = Literal["single", "double"]
Side = Literal["left", "right"]
Shuffler = Literal["none", "batch", "continuous"]
GAMES = ("blackjack", "spanish21")


@dataclass(frozen=True)
class GameRules:
    """One table's game and Rules Submission options, its citations, deck size and the
    Spanish 21 differences: the one form of them. A table's config
    (`floord/games/blackjack.py`) builds one from its `game` and `rules:`, a test by
    keyword, and each is checked as it is made (ValueError names what is wrong). A rule
    the config leaves out takes the default here; `decks` has none."""

    game: str
    decks: int = field(kw_only=True)
    shoe: Shoe = field(default="single", kw_only=True)
    # § 549.7(d)(1): the suits that tell which side a round is dealt from.
    hearts_diamonds_side: Side = field(default="left", kw_only=True)
    shuffler: Shuffler = field(default="none", kw_only=True)
    # § 549.3(d)(2): the two batches' back colours (or ids), alternated in and out of play.
    batch_backs: tuple[str, ...] | None = field(default=None, kw_only=True)
    # § 549.2(b)(2), § 551.2(b)(2): no more than seven betting areas (player positions).
    boxes: int = field(default=MAX_BOXES, kw_only=True)
    max_adjacent_boxes: int = field(default=2, kw_only=True)  # § 549.14
    deck_change_warn_minutes: int = field(default=60, kw_only=True)
    # Spanish 21's additional payouts (§ 551.6(g), (h)), from the Rules Submission.
    pay_table: tuple[Payout, ...] = field(default=(), kw_only=True)
    # § 549.6(h), § 551.5(h): minutes without a round after which the cards are spread,
    # inspected and reshuffled before the next round; None: not watched.
    idle_minutes: int | None = field(default=None, kw_only=True)

    def __post_init__(self) -> None:
        if self.game not in GAMES:
            raise ValueError(f"game blackjack or spanish21 expected, found {self.game!r}")
        if self.game == "spanish21" and self.decks not in (6, 8):
            raise ValueError(
                f"Spanish 21 is played with 6 or 8 decks (§ 551.3(a)), found {self.decks!r}"
            )
        if self.game == "spanish21" and self.shoe == "double":
            raise ValueError("Spanish 21 has no double shoe procedure (§ 551.8(c), (d))")
        if (problem := boxes_problem(self, self.boxes)) is not None:
            raise ValueError(problem)

    @property
    def deck_size(self) -> int:
        return deck_size(self.game)

    @property
    def spanish21(self) -> bool:
        return self.game == "spanish21"

    def applies(self, key: str) -> bool:
        """False where the game's own chapter has no such rule (split aces in Spanish 21)."""
        return not (self.spanish21 and key in NOT_IN_SPANISH21)

    def section(self, key: str) -> str:
        blackjack, spanish = SECTIONS[key]
        return spanish if self.spanish21 and spanish else blackjack

    def cite(self, key: str) -> str:
        return cite(self.section(key))

    def note(self, key: str) -> dict[str, str]:
        """`{"rule_note": ...}` when a Spanish 21 decision borrows chapter 549's rule."""
        blackjack, spanish = SECTIONS[key]
        if self.spanish21 and spanish is None:
            return {
                "rule_note": (
                    f"chapter 551's rule for this is not in floord's sources; "
                    f"§ {blackjack} (Blackjack) applied"
                )
            }
        return {}


def boxes_problem(rules: GameRules, boxes: object) -> str | None:
    """Why `boxes` (the table's betting areas) breaks § 549.2(b)(2) / § 551.2(b)(2)."""
    if not isinstance(boxes, int) or isinstance(boxes, bool) or not 1 <= boxes <= MAX_BOXES:
        return (
            f"boxes must be 1..{MAX_BOXES}: the layout has no more than seven betting areas "
            f"({rules.cite('betting_areas')}), found {boxes!r}"
        )
    return None


def blackjack_inspection(rules: GameRules) -> InspectionSpec:
    """The floorperson's check of the card reader (§ 549.2(e), § 551.2(e)) and the cards.

    The cards item covers § 549.5(a) / § 551.4(a) (the cards inspected for defects, or
    received preinspected under § 549.5(f) / § 551.4(d)); Spanish 21 adds the tens
    removed from each deck (§ 551.4(b)).
    """
    items = {
        "card_reader_untampered": rules.cite("reader_inspection"),
        "card_reader_working": rules.cite("reader_inspection"),
        "cards_inspected": rules.cite("cards_inspected"),
    }
    if rules.spanish21:
        items["tens_removed"] = cite("551.4(b)")
    return InspectionSpec(items=items, rule=rules.cite("reader_inspection"))
