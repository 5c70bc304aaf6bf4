"""Mississippi Stud (58 Pa. Code chapter 571): citations, the table's rules, the payouts.

Chapter 571 (41 Pa.B. 3017) has three dealing procedures with the same stub rules in
different paragraphs (§ 571.8 manual shoe, § 571.9 from the hand, § 571.10 automated
shoe); `StudRules.cite` picks the paragraph of the table's procedure by a short key, so
the engine and its tests speak of "stub_count", never of a paragraph number.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from floord.contract import cite
from floord.engine.cards.deck_count import DeckWords, deck_names, deck_problem
from floord.engine.cards.idle_clock import idle_minutes_problem
from floord.engine.cards.poker_hands import PokerHand, pair_rank
from floord.engine.core.inspection import InspectionSpec

GAMES = ("mississippi_stud",)
Dealing = Literal["hand", "manual_shoe", "automated_shoe"]
DEALING: tuple[Dealing, ...] = ("hand", "manual_shoe", "automated_shoe")
Shuffler = Literal["none", "counting", "non_counting"]
SHUFFLERS: tuple[Shuffler, ...] = ("none", "counting", "non_counting")
DECK_SIZE = 52  # § 571.3(a)
MAX_BOXES = 6  # § 571.2(a)
LIMIT_FLOOR = 50_000  # § 571.12(b): "$50,000 or ..., whichever is greater"
MAX_STREET_MULTIPLE = 3  # § 571.1: each Street Wager is one, two or three times the Ante
# Chapter 571's words for what is wrong with the decks (`cards.deck_count`).
WORDS = DeckWords(
    decks_basis=" (§ 571.3(a), (b))",
    needs_shuffler="a second deck needs an automated shuffler (§ 571.3(b))",
    backs_named="two different back colours (§ 571.3(b)(2))",
    one_deck_basis=" (§ 571.3(b))",
)
ACTIONS = {"play1": 1, "play2": 2, "play3": 3, "fold": 0}  # § 571.11(a), (c), (e)

# key -> section for (manual_shoe, hand, automated_shoe)
BY_PROCEDURE: dict[str, tuple[str, str, str]] = {
    "no_more_bets": ("571.8(b)", "571.9(a)(3)", "571.10(a)(2)"),
    "deal_order": ("571.8(d)", "571.9(b)", "571.10(b)"),
    "stub_count": ("571.8(f)", "571.9(d)", "571.10(d)"),
    "stub_wrong": ("571.8(h)", "571.9(f)", "571.10(f)"),
    "deck_in_shoe": ("571.8(a)", "571.9(a)(2)", "571.10(a)(1)"),
}
PROCEDURE_INDEX = {"manual_shoe": 0, "hand": 1, "automated_shoe": 2}
# § 571.12(a): winning wagers are paid at these odds (to 1).
PAYOUT_ODDS = {
    "royal_flush": 500,
    "straight_flush": 100,
    "four_of_a_kind": 40,
    "full_house": 10,
    "flush": 6,
    "straight": 4,
    "three_of_a_kind": 3,
    "two_pair": 2,
}
# DeckBook's keys: shuffled after every round, a counting shuffler's count, the dealt deck
# shuffled, a jam's reshuffle, a broken shuffler covered, two decks alternated.
DECK_RULES = {
    "shuffle": "571.5(a)",
    "count": "571.5(b)",
    "in_play_shuffled": "571.3(b)(3)",
    "reshuffle": "571.13(e)",
    "out_of_order": "571.13(g)",
    "alternate": "571.3(b)(4)",
    "inspected": "571.4(a)",
    "no_gaming_activity": "571.5(f)",
}
STREET_RULES = {3: "571.11(a)", 4: "571.11(c)", 5: "571.11(e)"}
REVEAL_RULES = {1: "571.11(b)", 2: "571.11(d)", 3: "571.11(f)"}


@dataclass(frozen=True)
class StudRules:
    """The table's rules, the one form of them: dealing procedure, shuffler, decks, payout
    limit. A table's config (`floord/games/stud.py`) builds one from its `rules:`, a test
    by keyword, and each is checked against chapter 571 as it is made (ValueError names
    what is wrong). A rule the config leaves out takes the default here."""

    dealing: Dealing = "hand"  # § 571.8-10
    shuffler: Shuffler = "counting"
    decks: Literal[1, 2] = 1
    # § 571.3(b)(2): the two decks' back colours; None for one deck.
    deck_backs: tuple[str, ...] | None = None
    boxes: int = MAX_BOXES
    aggregate_payout_limit: int = LIMIT_FLOOR
    deck_change_warn_minutes: int = 30
    minimum_ante: int | None = None
    # § 571.5(f): minutes without a round after which the cards are spread and reshuffled.
    idle_minutes: int | None = None
    # False while the automated shoe is covered (§ 571.13(g)) and the dealer deals by
    # another method that no device of the table reports (`stud.shoe_cover`).
    shoe_observed: bool = True

    def __post_init__(self) -> None:
        if self.dealing not in DEALING:
            raise ValueError(f"dealing must be one of {', '.join(DEALING)}, found {self.dealing!r}")
        if self.shuffler not in SHUFFLERS:
            raise ValueError(
                f"shuffler must be one of {', '.join(SHUFFLERS)}, found {self.shuffler!r}"
            )
        # The rules in effect under a cover (`shoe_observed` False) are the configured
        # ones with another method of dealing, which `cover_shoe` checked when it was
        # recorded; a restored cover is taken as recorded.
        if self.shoe_observed and self.dealing == "hand" and self.shuffler == "none":
            raise ValueError(
                "cards dealt from the hand are shuffled by an automated shuffler (§ 571.9(a)(1))"
            )
        if (problem := deck_problem(self.decks, self.deck_backs, self.shuffler, WORDS)) is not None:
            raise ValueError(problem)
        if not _whole(self.boxes) or not 1 <= self.boxes <= MAX_BOXES:
            raise ValueError(f"boxes must be 1..{MAX_BOXES} (§ 571.2(a)), found {self.boxes!r}")
        ante = self.minimum_ante
        if ante is not None and (not _whole(ante) or ante < 1):
            raise ValueError(f"minimum_ante must be a whole number of dollars >= 1, found {ante!r}")
        limit = self.aggregate_payout_limit
        if not _whole(limit) or limit < 1:
            raise ValueError(
                f"aggregate_payout_limit must be a whole number of dollars >= 1, found {limit!r}"
            )
        if (problem := limit_problem(limit, ante)) is not None:
            raise ValueError(problem)
        warn = self.deck_change_warn_minutes
        if not _whole(warn) or not 0 <= warn <= 240:
            raise ValueError(f"deck_change_warn_minutes must be 0..240, found {warn!r}")
        if (problem := idle_minutes_problem(self.idle_minutes)) is not None:
            raise ValueError(f"{problem} (§ 571.5(f))")

    def cite(self, key: str) -> str:
        return cite(BY_PROCEDURE[key][PROCEDURE_INDEX[self.dealing]])

    deck_size = DECK_SIZE

    @property
    def deck_names(self) -> tuple[str, ...]:
        return deck_names(self.decks, self.deck_backs)

    @property
    def has_shoe(self) -> bool:
        """A shoe device the deck is seen placed in (none when dealt from the hand, or
        from a manual shoe standing in for a covered automated one)."""
        return self.dealing != "hand" and self.shoe_observed

    def deck_rule(self, key: str) -> str | None:
        """The citation `cards.deck_book.DeckBook` gives a deck decision (see DECK_RULES)."""
        if key == "needs_shuffler":
            return cite("571.9(a)(1)") if self.dealing == "hand" else None
        if key == "spread":
            # The spread for the first player (b); two decks each spread apart (d).
            return cite("571.4(d)" if self.decks == 2 else "571.4(b)")
        return cite(DECK_RULES[key])

    @property
    def observed_cards(self) -> int:
        """Cards a shoe device sees per box in a round (§ 571.10(c): the automated shoe
        deals the players' stacks only; the community cards come from the hand)."""
        if not self.shoe_observed:
            return 0
        return {"manual_shoe": 2, "automated_shoe": 2, "hand": 0}[self.dealing]

    def observed_community(self) -> int:
        return 3 if self.dealing == "manual_shoe" and self.shoe_observed else 0

    @property
    def deck_hours(self) -> int:
        """§ 571.3(c): 4 hours dealt by hand, 8 from a manual or automated shoe."""
        return 4 if self.dealing == "hand" else 8

    @property
    def deck_change_rule(self) -> str:
        return cite("571.3(c)(1)") if self.dealing == "hand" else cite("571.3(c)(2)")


def most_won_at_minimum(minimum_ante: int) -> int:
    """The most one patron could win in a round betting the minimum wager (§ 571.12(b)).

    floord reads "betting the minimum wager" as an Ante Wager at the table minimum: the
    patron may still make each Street Wager three times the Ante (§ 571.1), and every
    wager wins at the best odds of § 571.12(a) (a royal flush). One patron plays one
    position (§ 571.7(e)), so a round is one hand.
    """
    wagers = minimum_ante * (1 + MAX_STREET_MULTIPLE * len(STREET_RULES))
    return wagers * max(PAYOUT_ODDS.values())


def limit_ceiling(minimum_ante: int | None) -> int:
    """§ 571.12(b): the limit "may not exceed $50,000 or the maximum amount that one patron
    could win per round when betting the minimum wager, whichever is greater". Without
    the table's minimum Ante floord cannot compute the second amount: $50,000."""
    if minimum_ante is None:
        return LIMIT_FLOOR
    return max(LIMIT_FLOOR, most_won_at_minimum(minimum_ante))


def limit_problem(limit: int, minimum_ante: int | None) -> str | None:
    """Why `limit` exceeds § 571.12(b)'s ceiling; None when it is at or below it."""
    ceiling = limit_ceiling(minimum_ante)
    if limit <= ceiling:
        return None
    if minimum_ante is None:
        why = (
            "without minimum_ante (the table's minimum Ante Wager, in dollars) the "
            f"ceiling is ${LIMIT_FLOOR:,}"
        )
    else:
        won = most_won_at_minimum(minimum_ante)
        why = (
            f"the ceiling is the greater of ${LIMIT_FLOOR:,} and ${won:,}, the most one "
            f"patron could win per round betting the ${minimum_ante:,} minimum"
        )
    return f"aggregate_payout_limit ${limit:,} exceeds § 571.12(b)'s ceiling of ${ceiling:,}: {why}"


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def stud_inspection() -> InspectionSpec:
    """The cards inspected by the dealer and verified by the floorperson (§ 571.4(a), (b));
    decks received preinspected (§ 571.4(e)) are answered true with a note saying so."""
    return InspectionSpec(
        items={
            "cards_inspected": cite("571.4(a)"),
            "cards_verified": cite("571.4(b)"),
        },
        rule=cite("571.4(b)"),
    )


def payout(hand: PokerHand) -> tuple[str, int | None, str]:
    """(outcome, odds to 1 or None, the § 571.12(a) class) of a player's best hand.

    A pair of jacks or better wins 1 to 1; a pair of sixes to tens pushes (§ 571.11(g)(2));
    anything lower loses.
    """
    if hand.cls in PAYOUT_ODDS:
        return "win", PAYOUT_ODDS[hand.cls], hand.cls
    pair = pair_rank(hand)
    if pair is not None and pair >= 11:
        return "win", 1, "pair_jacks_or_better"
    if pair is not None and 6 <= pair <= 10:
        return "push", None, "pair_sixes_to_tens"
    return "lose", None, "pair_below_sixes" if pair is not None else "no_pair"
