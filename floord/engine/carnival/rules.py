"""The carnival poker games (58 Pa. Code chapters 555-565): citations and table rules.

Our seeds hold only each chapter's § 55x.4 (opening of the table) and § 55x.5 (shuffle
and cut), so that is all floord enforces for these games: no payouts, no hands. The six
chapters say the same things in the same paragraphs, except Pai Gow Poker (ch. 561):
its deck holds one joker (§ 561.4(b)), its § 561.5 has no counting-shuffler paragraph,
and its cut (offered to a player, at least 10 cards from the top or the bottom) is
§ 561.5(c)-(e). `CITES` maps a short key to each chapter's paragraph, so the engine and
its tests speak of "count" or "recut", never of a paragraph number.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from floord.contract import cite
from floord.engine.cards.deck_count import DeckWords, deck_names, deck_problem
from floord.engine.cards.idle_clock import idle_minutes_problem
from floord.engine.core.inspection import InspectionSpec

CHAPTERS = {
    "caribbean_stud": "555",
    "four_card_poker": "557",
    "let_it_ride": "559",
    "pai_gow_poker": "561",
    "texas_holdem_bonus": "563",
    "three_card_poker": "565",
}
GAMES = tuple(CHAPTERS)
Shuffler = Literal["none", "counting", "non_counting"]
SHUFFLERS: tuple[Shuffler, ...] = ("none", "counting", "non_counting")
MAX_BOXES = 7  # floord's bound: the chapters' layouts (§ 55x.2) are not in our seeds
CUT_MIN = 10  # § 55x.5(d)(1)(ii), § 561.5(e): at least 10 cards

# key -> paragraph of § 55x (chapters 555, 557, 559, 563, 565) and of chapter 561.
CITES: dict[str, tuple[str | None, str | None]] = {
    "cards_inspected": ("4(a)", "4(a)"),
    "cards_verified": ("4(b)", "4(b)"),
    "one_joker": (None, "4(b)"),
    "cards_spread_and_washed": ("4(c)", "4(c)"),
    "decks_inspected_separately": ("4(d)", "4(d)"),
    "preinspected": ("4(e)", "4(e)"),
    "shuffle": ("5(a)", "5(a)"),
    "count": ("5(b)", None),
    "no_cut_after_device": ("5(c)(1)", "5(b)(1)"),
    "cut_required": ("5(c)(2)", "5(b)(2)"),
    "cut": ("5(d)(1)", "5(e)"),
    "cut_offer": (None, "5(c)"),
    "offer_first_player": (None, "5(d)(1)"),
    "offer_farthest_right": (None, "5(d)(2)"),
    "recut": ("5(e)", "5(f)"),
    "no_gaming_activity": ("5(f)", "5(g)"),
}
# What `cards.deck_book.DeckBook` asks for, in these chapters' words: a shuffle is a completed
# one, after each round (§ 55x.5(a)); a jam or an unfinished shuffle is no shuffle.
DECK_KEYS = {
    "shuffle": "shuffle",
    "count": "count",
    "in_play_shuffled": "shuffle",
    "reshuffle": "shuffle",
    "no_gaming_activity": "no_gaming_activity",
    # Decks received are used once inspected and verified (§ 55x.4(a), (b)).
    "inspected": "cards_inspected",
}


def rule_of(game: str, key: str) -> str | None:
    """The citation of `key` in `game`'s chapter, or None where that chapter has none."""
    chapter = CHAPTERS[game]
    para = CITES[key][1 if chapter == "561" else 0]
    return None if para is None else cite(f"{chapter}.{para}")


@dataclass(frozen=True)
class CarnivalRules:
    """A carnival table's rules, the one form of them; also what `DeckBook` reads
    (`DeckRules`). A table's config (`floord/games/carnival.py`) builds one from its
    `game` and `rules:`, a test by keyword, and each is checked against the game's chapter
    as it is made (ValueError names what is wrong). A rule the config leaves out takes
    the default here."""

    game: str
    shuffler: Shuffler = "counting"
    decks: Literal[1, 2] = 1
    # § 55x.4(d): the two decks' names (the shuffler's batch ids); None for one deck.
    deck_backs: tuple[str, ...] | None = None
    boxes: int = MAX_BOXES
    # § 55x.5(f), § 561.5(g): minutes without a round after which the cards are spread
    # and shuffled again before the next round; None: not watched.
    idle_minutes: int | None = None
    # Not a table's choice: what `DeckRules` asks of every card game.
    deck_change_warn_minutes: ClassVar[int] = 0
    has_shoe: ClassVar[bool] = False  # the dealing procedures (§ 55x.8-10) are not in our seeds
    deck_hours: ClassVar[int | None] = None  # the deck-change rules (§ 55x.3) are not in our seeds
    deck_change_rule: ClassVar[str | None] = None

    def __post_init__(self) -> None:
        game = self.game
        if game not in CHAPTERS:
            raise ValueError(f"game must be one of {', '.join(GAMES)}, found {game!r}")
        if self.shuffler not in SHUFFLERS:
            raise ValueError(
                f"shuffler must be one of {', '.join(SHUFFLERS)}, found {self.shuffler!r}"
            )
        separately = rule_of(game, "decks_inspected_separately")
        words = DeckWords(
            decks_basis="",
            needs_shuffler=f"two decks are used with an automated shuffler ({separately})",
            backs_named="two different names, the shuffler's batch ids",
            one_deck_basis="",
        )
        if (problem := deck_problem(self.decks, self.deck_backs, self.shuffler, words)) is not None:
            raise ValueError(problem)
        boxes = self.boxes
        if not isinstance(boxes, int) or isinstance(boxes, bool) or not 1 <= boxes <= MAX_BOXES:
            raise ValueError(f"boxes must be 1..{MAX_BOXES}, found {boxes!r}")
        if (problem := idle_minutes_problem(self.idle_minutes)) is not None:
            raise ValueError(f"{problem} ({rule_of(game, 'no_gaming_activity')})")

    @property
    def deck_names(self) -> tuple[str, ...]:
        return deck_names(self.decks, self.deck_backs)

    @property
    def deck_size(self) -> int:
        """52 cards; Pai Gow Poker's deck includes the one joker (§ 561.4(b))."""
        return 53 if self.game == "pai_gow_poker" else 52

    @property
    def cut_rule(self) -> str:
        rule = rule_of(self.game, "cut")
        assert rule is not None
        return rule

    def cite(self, key: str) -> str:
        rule = rule_of(self.game, key)
        if rule is None:
            raise KeyError(f"chapter {CHAPTERS[self.game]} has no rule {key!r}")
        return rule

    def deck_rule(self, key: str) -> str | None:
        mapped = DECK_KEYS.get(key)
        return None if mapped is None else rule_of(self.game, mapped)

    def cut_bounds(self) -> tuple[int, int]:
        """The cut's card counts allowed: at least 10 from the top (§ 55x.5(d)(1)(ii)),
        and, in Pai Gow Poker, at least 10 from the top or the bottom (§ 561.5(e))."""
        if self.game == "pai_gow_poker":
            return CUT_MIN, self.deck_size - CUT_MIN
        return CUT_MIN, self.deck_size - 1


def carnival_inspection(rules: CarnivalRules) -> InspectionSpec:
    """The opening checklist of § 55x.4: the dealer inspects the cards (a), the
    floorperson verifies them (b), they are spread, washed and stacked (b), (c); one
    joker only in Pai Gow Poker (§ 561.4(b)); two decks each on its own (d). Decks
    received preinspected (§ 55x.4(e)) are answered true with a note saying so."""
    keys = ["cards_inspected", "cards_verified", "cards_spread_and_washed", "one_joker"]
    if rules.decks == 2:
        keys.append("decks_inspected_separately")
    items = {k: r for k in keys if (r := rule_of(rules.game, k)) is not None}
    return InspectionSpec(items=items, rule=rules.cite("cards_verified"))
