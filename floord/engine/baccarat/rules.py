"""Which section of 58 Pa. Code each Baccarat-family decision stands on, and the options.

Minibaccarat is chapter 541, Midibaccarat 543, Baccarat (with EZ Baccarat and the
Dragon 7) 545. The three chapters are parallel, section for section; floord's sources
(40 Pa.B. 2959, 41 Pa.B. 2952) hold §§ 541.4, 541.5, 541.10, 541.13(d); §§ 543.4,
543.5, 543.9, 543.10; §§ 545.1, 545.2, 545.4, 545.5, 545.8, 545.10, 545.12, 545.13.
Sections the chapters refer to by number (the drawing rules, § 54x.11, named by
§ 54x.10(b); the initial deal, § 54x.9) are cited in each game's own chapter. Where a
chapter's rule is neither in the sources nor referred to (payout odds and wagers of
chapters 541 and 543), chapter 545's is applied and the decision says so in
`data.rule_note`, as `blackjack_rules` does for Spanish 21.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from floord.contract import cite
from floord.engine.cards.idle_clock import idle_minutes_problem
from floord.engine.core.inspection import InspectionSpec

GAMES = ("minibaccarat", "midibaccarat", "baccarat")
CHAPTER = {"minibaccarat": 0, "midibaccarat": 1, "baccarat": 2}
DragonBonusTable = Literal["A", "B", "C"]
DRAGON_BONUS_TABLES: tuple[DragonBonusTable, ...] = ("A", "B", "C")
# key -> (chapter 541, chapter 543, chapter 545); None: not in floord's sources.
SECTIONS: dict[str, tuple[str | None, str | None, str]] = {
    "inspection": ("541.4(a)", "543.4(a)", "545.4(a)"),
    # After the verification, spread for the first player; then washed and stacked.
    "spread": ("541.4(b)", "543.4(b)", "545.4(b)"),
    "wash": ("541.4(c)", "543.4(c)", "545.4(c)"),
    # Decks received preinspected and preshuffled: (a)-(d) / (a)-(c) do not apply.
    "preinspected": ("541.4(e)", "543.4(d)", "545.4(d)"),
    "shuffle": ("541.5(a)", "543.5(a)", "545.5(a)"),
    "burn": ("541.5(g)", "543.5(g)", "545.5(f)"),
    # The cut: offered from the highest numbered position (at Baccarat after a reshuffle,
    # the last curator), clockwise, else the dealer; a cover card at least ten cards in
    # from the top or the bottom; a recut a floorperson or above requires.
    "cut_offer": ("541.5(c)", "543.5(c)", "545.5(b)"),
    "cut_cards": ("541.5(d)", "543.5(d)", "545.5(c)"),
    "recut": ("541.5(f)", "543.5(f)", "545.5(e)"),
    "cover_position": ("541.5(e)", "543.5(e)", "545.5(d)"),
    "deal_order": ("541.9(c)", "543.9(c)", "545.9"),
    "third_order": ("541.10(c)", "543.10(c)", "545.10(c)"),
    "one_more_card": ("541.10(d)", "543.10(d)", "545.10(d)"),
    "cover_card": ("541.10(e)", "543.10(e)", "545.10(e)"),
    "drawing_rules": ("541.11", "543.11", "545.11"),
    "natural": (None, None, "545.1"),
    "wagers": (None, None, "545.8(a)"),
    "dragon_7": (None, None, "545.8(a)(1)(iii)"),
    "announce": (None, None, "545.12(a)"),
    "player_pays": (None, None, "545.13(a)"),
    "tie_pays": (None, None, "545.13(b)"),
    "vigorish": (None, None, "545.13(c)"),
    "dragon_7_insurance": (None, None, "545.13(d)"),
    "dragon_bonus": ("541.13(d)", None, "541.13(d)"),
    # "No more bets" before any card: § 543.9(b) (Midibaccarat), § 545.8(c) (Baccarat);
    # chapter 541's is not in floord's sources.
    "no_more_bets": (None, "543.9(b)", "545.8(c)"),
    "settlement": (None, None, "545.12(b)"),
    "deferred_vigorish": (None, None, "545.13(f)"),
    "same_vigorish": (None, None, "545.13(g)"),
}
# § 541.5(h): no gaming activity at a Minibaccarat table; chapters 543 and 545 in
# floord's sources have no such paragraph.
IDLE_SECTION = {"minibaccarat": "541.5(h)"}
# § 541.5(b), § 543.5(b): a stack the dealer shuffled is left feathered so that the
# floorperson can verify the shuffle; chapter 545 in floord's sources has no such paragraph.
FEATHER_SECTION = {"minibaccarat": "541.5(b)", "midibaccarat": "543.5(b)"}
# § 545.13(f): the Rules Submission says whether the vigorish is collected when the
# winning payout is made or deferred (then collected before a new shoe).
VigorishCollection = Literal["at_payout", "deferred"]
VIGORISH_COLLECTION: tuple[VigorishCollection, ...] = ("at_payout", "deferred")


class RulesError(ValueError):
    """A Baccarat table configuration floord cannot run; the message says what is wrong."""


@dataclass(frozen=True)
class BaccaratRules:
    """One table's game and Rules Submission options, and its citations: the one form of
    them. A table's config (`floord/games/baccarat.py`) builds one from its `game` and
    `rules:`, a test by keyword, and each is checked as it is made: every refusal (a
    `RulesError`) names the option and its section. A rule the config leaves out takes
    the default here; at EZ Baccarat no vigorish is taken, so `vigorish_percent` is None."""

    game: str
    decks: int = 8
    vigorish_percent: int | None = 5
    ez_baccarat: bool = False
    dragon_bonus_table: DragonBonusTable | None = None
    tie_pays: int = 8
    vigorish_collection: VigorishCollection = "at_payout"
    # § 541.5(h): minutes without a coup after which the cards are spread and reshuffled.
    idle_minutes: int | None = None

    def __post_init__(self) -> None:
        game, ez, vig = self.game, self.ez_baccarat, self.vigorish_percent
        if game not in GAMES:
            raise RulesError(f"game {', '.join(GAMES)} expected, found {game!r}")
        if not _whole(self.decks) or not 6 <= self.decks <= 8:
            raise RulesError(
                f"decks must be 6, 7 or 8 (six or more decks, § 541.4(a), § 543.4(a), "
                f"§ 545.4(a); batches of six to eight, § 541.4(d)), found {self.decks!r}"
            )
        if not isinstance(ez, bool):
            raise RulesError(f"ez_baccarat must be true or false, found {ez!r}")
        if ez and game != "baccarat":
            raise RulesError(
                "EZ Baccarat is a Baccarat table's option (§ 545.2(b)(6), § 545.8(a)); "
                f"floord's sources hold no EZ rules for {game}"
            )
        if not (_whole(vig) and vig in (4, 5)) and not (ez and vig is None):
            raise RulesError(f"vigorish_percent must be 4 or 5 (§ 545.13(c)), found {vig!r}")
        bonus = self.dragon_bonus_table
        if bonus is not None and bonus not in DRAGON_BONUS_TABLES:
            raise RulesError(f"dragon_bonus_table must be A, B, C or null, found {bonus!r}")
        if bonus is not None and game != "minibaccarat":
            raise RulesError(
                "the Dragon Bonus Wager is a Minibaccarat option (§ 541.13(d)); floord's "
                f"sources hold no Dragon Bonus for {game}"
            )
        tie = self.tie_pays
        if not _whole(tie) or tie < 8:
            raise RulesError(f"tie_pays must be 8 or more (to 1, § 545.13(b)), found {tie!r}")
        collection = self.vigorish_collection
        if collection not in VIGORISH_COLLECTION:
            raise RulesError(
                "vigorish_collection must be at_payout or deferred (§ 545.13(f)), "
                f"found {collection!r}"
            )
        idle = self.idle_minutes
        if (problem := idle_minutes_problem(idle)) is not None:
            raise RulesError(f"{problem} (§ 541.5(h))")
        if idle is not None and game not in IDLE_SECTION:
            raise RulesError(
                "idle_minutes is Minibaccarat's (§ 541.5(h), no gaming activity); floord's "
                f"sources hold no such paragraph for {game} (chapters 543, 545)"
            )
        if ez:  # EZ Baccarat takes no vigorish: none is kept for it
            object.__setattr__(self, "vigorish_percent", None)

    def section(self, key: str) -> str:
        own = SECTIONS[key][CHAPTER[self.game]]
        return own if own is not None else SECTIONS[key][2]

    def cite(self, key: str) -> str:
        return cite(self.section(key))

    def note(self, key: str) -> dict[str, str]:
        """`{"rule_note": ...}` when the game's chapter borrows chapter 545's rule."""
        if SECTIONS[key][CHAPTER[self.game]] is not None:
            return {}
        chapter = {"minibaccarat": "541", "midibaccarat": "543"}[self.game]
        return {
            "rule_note": f"chapter {chapter}'s rule for this is not in floord's sources; "
            f"§ {SECTIONS[key][2]} (Baccarat) applied"
        }

    @property
    def idle_rule(self) -> str | None:
        """§ 541.5(h) at Minibaccarat; None where the chapter has no such paragraph."""
        section = IDLE_SECTION.get(self.game)
        return None if section is None else cite(section)

    @property
    def feather_rule(self) -> str | None:
        """§ 541.5(b), § 543.5(b); None at Baccarat (§ 545.5 has no such paragraph)."""
        section = FEATHER_SECTION.get(self.game)
        return None if section is None else cite(section)

    def to_dict(self) -> dict[str, Any]:
        return {
            "decks": self.decks,
            "vigorish_percent": self.vigorish_percent,
            "ez_baccarat": self.ez_baccarat,
            "dragon_bonus_table": self.dragon_bonus_table,
            "tie_pays": self.tie_pays,
            "vigorish_collection": self.vigorish_collection,
        }

    @property
    def new_decks_after_cover(self) -> bool:
        """§ 543.10(e), § 545.10(e): new decks; § 541.10(e): the cards are reshuffled."""
        return self.game != "minibaccarat"


def baccarat_inspection(rules: BaccaratRules) -> InspectionSpec:
    """The cards sorted and inspected, the floorperson verifying (§ 54x.4(a)).

    Decks received preinspected and preshuffled (§ 54x.4(d), (e)) are answered true.
    """
    return InspectionSpec(
        items={"cards_inspected": rules.cite("inspection")}, rule=rules.cite("inspection")
    )


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
