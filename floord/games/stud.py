"""Mississippi Stud (58 Pa. Code ch. 571): dealt from the hand or a shoe, shuffled by
hand or by a counting or non-counting shuffler."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from floord.engine.stud.rules import MAX_BOXES, Dealing, Shuffler, StudRules
from floord.games.definition import Families, GameDefinition, first_device, slot_problems
from floord.games.table_model import DeviceConfig, GameTable, StrictModel
from floord.table.vocabulary import TableEngine

_DEFAULT = StudRules()


class StudRulesConfig(StrictModel):
    """Rules Submission options of a Mississippi Stud table (ch. 571) as the config file
    holds them, each key's type the engine's: the file's words for what is wrong with one
    key. `engine_rules` makes the engine's `StudRules`, which checks which combinations
    chapter 571 allows (cards dealt from the hand need a shuffler, § 571.9(a)(1); two
    decks need two back colours, § 571.3(b)); the defaults are its.
    """

    dealing: Dealing = _DEFAULT.dealing  # § 571.8-10
    shuffler: Shuffler = _DEFAULT.shuffler
    decks: Literal[1, 2] = _DEFAULT.decks
    deck_backs: list[str] | None = None
    boxes: int = Field(default=_DEFAULT.boxes, ge=1, le=MAX_BOXES)  # § 571.2(a)
    # § 571.12(b): at most $50,000 or the most one patron could win per round betting the
    # minimum wager, whichever is greater; the engine's rule table computes the ceiling.
    aggregate_payout_limit: int = Field(default=_DEFAULT.aggregate_payout_limit, ge=1)
    minimum_ante: int | None = Field(default=_DEFAULT.minimum_ante, ge=1)
    deck_change_warn_minutes: int = Field(default=_DEFAULT.deck_change_warn_minutes, ge=0, le=240)
    # § 571.5(f): minutes without a round after which the cards in the shoe and the rack
    # are spread, washed, stacked and shuffled before the next round; null: not watched.
    idle_minutes: int | None = Field(default=_DEFAULT.idle_minutes, ge=1, le=24 * 60)

    def engine_rules(self) -> StudRules:
        """The engine's rules, made once from these; ValueError names what is wrong."""
        return StudRules(
            dealing=self.dealing,
            shuffler=self.shuffler,
            decks=self.decks,
            deck_backs=None if self.deck_backs is None else tuple(self.deck_backs),
            boxes=self.boxes,
            aggregate_payout_limit=self.aggregate_payout_limit,
            minimum_ante=self.minimum_ante,
            deck_change_warn_minutes=self.deck_change_warn_minutes,
            idle_minutes=self.idle_minutes,
        )


class StudTableConfig(GameTable):
    game: Literal["mississippi_stud"]
    rules: StudRulesConfig = StudRulesConfig()
    devices: list[DeviceConfig] = Field(default_factory=list)


def _check(table: StudTableConfig, where: str, families: Families) -> list[str]:
    """A shoe when dealt from one, a shuffler unless `shuffler: none`; then the rules
    against the engine's rule table."""
    rules = table.rules
    wanted: dict[str, int | None] = {
        "dealing_shoe": 0 if rules.dealing == "hand" else 1,
        "card_shuffler": 0 if rules.shuffler == "none" else 1,
    }
    why = f"dealing {rules.dealing!r} with shuffler {rules.shuffler!r}"
    problems = slot_problems(families, wanted, where, why)
    try:
        table.rules.engine_rules()
    except ValueError as exc:
        problems.append(f"{where}.rules: {exc}")
    return problems


def _engine(table: StudTableConfig, families: Families, common: dict[str, Any]) -> TableEngine:
    from floord.engine.stud.engine import StudEngine

    shoes = families.get("dealing_shoe", [])
    return StudEngine(
        table.id,
        game=table.game,
        rules=table.rules.engine_rules(),
        shoe_device=first_device(families, "dealing_shoe"),
        shuffler_device=first_device(families, "card_shuffler"),
        shoe_reports_cards=bool(shoes and shoes[0][1].reports_cards),
        **common,
    )


DEFINITION = GameDefinition(
    table=StudTableConfig,
    build_engine=_engine,
    families=frozenset({"dealing_shoe", "card_shuffler"}),
    check=_check,
)
