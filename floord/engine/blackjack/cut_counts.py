"""What the shoe's counts show about the cut and about missing cards (Blackjack, Spanish 21).

The dealing shoe reports how many cards a stack holds (`shoe.loaded {cards}`, null for
a shoe that cannot count them) and how many were drawn before the cutting card
(`shoe.cutting_card {count}`). From these two numbers and the table's decks floord
checks, without any other device:

- the dealer's cutting card at least approximately one quarter of the way in from the
  bottom of the stack (§ 549.6(e), § 551.5(e)): the cards behind it;
- the stack loaded is the table's decks (a side of a double shoe, a shuffler batch):
  after a cutting card, the cards the dealer moved to the discard rack "to ensure that
  no cards are missing" come back in the next stack (§ 549.7(k)(2), § 551.8(j)(2));
  any other load is checked as floord's policy;
- a shoe that runs out without its cutting card (§ 549.3(a), (c), § 551.3(a)).

The player's own cut (§ 549.6(d), at least 10 cards from either end) is made on the
table before the stack goes into the shoe: the dealer's `cut` records it (`cuts`), and a
shoe that counts the stack checks it again at the load.
"""

from __future__ import annotations

from floord.contract import EventType
from floord.engine.blackjack.rules import GameRules
from floord.engine.cards.quarter_cut import quarter_minimum as quarter_cards
from floord.engine.cards.quarter_cut import quarter_reading
from floord.engine.cards.stack_count import STACK_COUNT_POLICY, stack_count_problem
from floord.engine.core.rulings import policy_decision, violation
from floord.engine.core.types import Decision

# "At least approximately one-quarter": floord allows a quarter of a deck less.
QUARTER_POLICY = quarter_reading("cutting card")


def expected_stack(rules: GameRules, decks: int, double: bool, shuffler: str) -> int:
    """The cards one loading of the shoe (or of one side) holds with the table's decks."""
    share = decks // 2 if double or shuffler == "batch" else decks
    return share * rules.deck_size


def quarter_minimum(rules: GameRules, stack: int) -> int:
    """The fewest cards behind the cutting card that floord accepts as about a quarter."""
    return quarter_cards(stack, rules.deck_size)


def load_count(
    rules: GameRules,
    side: str,
    cards: object,
    expected: int,
    after_cutting_card: bool,
    round_id: str | None,
) -> list[Decision]:
    """A stack whose count is not the table's decks: cards missing or cards added."""
    body = stack_count_problem(cards, expected, None if side == "shoe" else side)
    if body is None:
        return []
    what = body["what"]
    if after_cutting_card:
        return [violation(rules, "no_cards_missing", what, round_id, **_rest(body))]
    return [policy_decision(EventType.PROCEDURE_VIOLATION, STACK_COUNT_POLICY, round_id, **body)]


def cut_position(
    rules: GameRules, side: str, count: int, stack: int, round_id: str | None
) -> list[Decision]:
    """The cutting card `count` cards from the top of a `stack`: behind it about a quarter."""
    behind = stack - count
    least = quarter_minimum(rules, stack)
    if behind >= least:
        return []
    return [
        violation(
            rules,
            "cut_quarter",
            "cutting_card_too_deep",
            round_id,
            side=None if side == "shoe" else side,
            count=count,
            stack=stack,
            behind=behind,
            least=least,
            detail=f"the cutting card came out after {count} of {stack} cards, {behind} from "
            f"the bottom; at least about a quarter of the stack ({least} or more) is behind it",
            reading=QUARTER_POLICY,
        )
    ]


def ran_out_uncut(rules: GameRules, side: str, round_id: str | None) -> list[Decision]:
    """The shoe (or a side) ran out and no cutting card came out of it."""
    key = "cutting_card_each_side" if side != "shoe" else "cutting_card_used"
    return [
        violation(
            rules,
            key,
            "no_cutting_card",
            round_id,
            side=None if side == "shoe" else side,
            detail="the shoe ran out without its cutting card: a cutting card is used in "
            + ("each side of a double shoe" if side != "shoe" else "the shoe"),
        )
    ]


def _rest(body: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in body.items() if k != "what"}
