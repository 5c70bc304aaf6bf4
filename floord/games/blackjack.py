"""Blackjack and Spanish 21 (58 Pa. Code ch. 549, 551): a card reader, a shoe, maybe a
shuffler; decks, shoe and shuffler must fit each other and the game's chapter."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from floord.engine.blackjack.rules import MAX_BOXES, GameRules, Shoe, Shuffler, Side
from floord.engine.blackjack.spanish21 import pay_table_problems, read_pay_table
from floord.games.definition import Families, GameDefinition, first_device, slot_problems
from floord.games.table_model import DeviceConfig, GameTable, StrictModel
from floord.table.vocabulary import TableEngine

_DEFAULT = GameRules("blackjack", decks=1)


class CardTableRules(StrictModel):
    """Rules Submission options of a Blackjack or Spanish 21 table (58 Pa. Code ch. 549, 551)
    as the config file holds them, each key's type the engine's: the file's words for what
    is wrong with one key.

    Checks that need the game (six or eight decks for Spanish 21) are in `_check`;
    `engine_rules` makes the engine's `GameRules` for the table's game; the defaults are
    its.
    """

    decks: int = Field(ge=1, le=8, description="decks in the shoe; in each side of a double shoe")
    shoe: Shoe = _DEFAULT.shoe
    # § 549.7(d)(1): the suits that tell which side a round is dealt from.
    hearts_diamonds_side: Side = _DEFAULT.hearts_diamonds_side
    shuffler: Shuffler = _DEFAULT.shuffler
    # § 549.3(d)(2): the two batches' back colours (or ids), alternated in and out of play.
    batch_backs: list[str] | None = None
    # § 549.2(b)(2), § 551.2(b)(2): no more than seven betting areas (player positions).
    boxes: int = Field(default=_DEFAULT.boxes, ge=1, le=MAX_BOXES)
    max_adjacent_boxes: int = Field(
        default=_DEFAULT.max_adjacent_boxes, ge=1, le=7, description="§ 549.14"
    )
    deck_change_warn_minutes: int = Field(
        default=_DEFAULT.deck_change_warn_minutes, ge=0, le=24 * 60
    )
    # Spanish 21's additional payouts (§ 551.6(g), (h): not in floord's sources), each
    # {name, paragraph, odds, cards | min_cards | ranks, suits}; checked by the engine's
    # `spanish21.pay_table_problems` in `_check`.
    spanish21_payouts: list[dict[str, Any]] | None = None
    # § 549.6(h), § 551.5(h): minutes without a round after which the cards are spread,
    # inspected and reshuffled before the next round; null: not watched.
    idle_minutes: int | None = Field(default=_DEFAULT.idle_minutes, ge=1, le=24 * 60)

    def engine_rules(self, game: str) -> GameRules:
        """The engine's rules for `game`, made once from these; ValueError names what is
        wrong (the first problem of the pay table, as `spanish21_payouts...`)."""
        return GameRules(
            game,
            decks=self.decks,
            shoe=self.shoe,
            hearts_diamonds_side=self.hearts_diamonds_side,
            shuffler=self.shuffler,
            batch_backs=None if self.batch_backs is None else tuple(self.batch_backs),
            boxes=self.boxes,
            max_adjacent_boxes=self.max_adjacent_boxes,
            deck_change_warn_minutes=self.deck_change_warn_minutes,
            pay_table=read_pay_table(game, self.spanish21_payouts),
            idle_minutes=self.idle_minutes,
        )


class CardTableConfig(GameTable):
    game: Literal["blackjack", "spanish21"]
    rules: CardTableRules
    devices: list[DeviceConfig] = Field(min_length=1)


def _check(table: CardTableConfig, where: str, families: Families) -> list[str]:
    """A card table's rules and devices must fit each other and the game's chapter."""
    problems: list[str] = []
    rules = table.rules
    if table.game == "spanish21" and rules.decks not in (6, 8):
        problems.append(
            f"{where}.rules.decks: 6 or 8 decks for Spanish 21 (58 Pa. Code § 551.3(a)) "
            f"expected, found {rules.decks}"
        )
    problems += [
        f"{where}.rules.spanish21_payouts{key}: {said}"
        for key, said in pay_table_problems(table.game, rules.spanish21_payouts)
    ]
    if rules.shuffler == "batch":
        backs = rules.batch_backs or []
        if len(backs) != 2 or len(set(backs)) != 2:
            problems.append(
                f"{where}.rules.batch_backs: two different back colours for the two batches "
                f"(58 Pa. Code § 549.3(d)(2)) expected, found {rules.batch_backs!r}"
            )
        if rules.decks < 2 or rules.decks % 2:
            problems.append(
                f"{where}.rules.decks: an even number of decks, at least two, split into two "
                f"equal batches (58 Pa. Code § 549.3(d)(1)) expected, found {rules.decks}"
            )
    elif rules.batch_backs is not None:
        problems.append(
            f"{where}.rules.batch_backs: only with shuffler: batch expected, "
            f"found shuffler {rules.shuffler!r}"
        )
    if rules.shoe == "double" and rules.shuffler == "continuous":
        problems.append(
            f"{where}.rules.shuffler: a double shoe is not fed by a continuous shuffler, "
            f"found shoe 'double' with shuffler 'continuous'"
        )
    wanted: dict[str, int | None] = {
        "card_reader": 1,
        "dealing_shoe": 1,
        "card_shuffler": 0 if rules.shuffler == "none" else 1,
    }
    problems += slot_problems(families, wanted, where, f"shuffler {rules.shuffler!r}")
    for device_id, profile in families.get("dealing_shoe", []):
        double = profile.double_shoe
        if double != (rules.shoe == "double"):
            problems.append(
                f"{where}.devices: a {rules.shoe} shoe expected (rules.shoe), found device "
                f"{device_id!r} with profile {profile.model!r}"
            )
    return problems


def _engine(table: CardTableConfig, families: Families, common: dict[str, Any]) -> TableEngine:
    from floord.engine.blackjack.engine import BlackjackEngine

    [(reader, reader_profile)] = families["card_reader"]
    [(shoe, shoe_profile)] = families["dealing_shoe"]
    return BlackjackEngine(
        table.id,
        rules=table.rules.engine_rules(table.game),
        reader_device=reader,
        shoe_device=shoe,
        shuffler_device=first_device(families, "card_shuffler"),
        reader_exposes_value=reader_profile.exposes_value,
        shoe_reports_cards=shoe_profile.reports_cards,
        **common,
    )


DEFINITION = GameDefinition(
    table=CardTableConfig,
    build_engine=_engine,
    families=frozenset({"card_reader", "dealing_shoe", "card_shuffler"}),
    check=_check,
)
