"""Spanish 21 settled as Spanish 21 where the seeds give its rules.

58 Pa. Code § 551.2(c)(1), (3), § 551.2(g)(1), § 551.12(e); the additional payouts of
§ 551.6(g), (h) (not in the seeds) come from the Rules Submission's pay table.
"""

from __future__ import annotations

from typing import Any

import pytest
from test_engine_blackjack_support import make_table, of_type

from floord.contract import EventType, cite
from floord.engine.blackjack.rules import GameRules
from floord.engine.blackjack.settle import settle_hand
from floord.engine.cards.card import count_hand

pytestmark = pytest.mark.unit

PAY_TABLE = [
    {"name": "six_seven_eight", "paragraph": "551.6(g)", "odds": "3 to 2",
     "ranks": ["6", "7", "8"], "suits": "mixed"},
    {"name": "five_card_21", "paragraph": "551.6(h)", "odds": "3 to 2", "cards": 5},
]  # fmt: skip


def _round(*boxes: int, **over: Any):
    t = make_table("spanish21", spanish21_payouts=PAY_TABLE, **over)
    t.ready()
    assert t.start(*boxes).ok
    return t


def _hands(t) -> list[dict[str, Any]]:
    assert t.dealer("dealer_turn").ok
    out = t.dealer("round_end")
    assert out.ok, out.error
    [result] = of_type(out.output, EventType.BLACKJACK_RESULT)
    return result.data["hands"]


def test_doubled_down_hands_get_no_additional_payout_551_2_g_1() -> None:
    """§ 551.2(g)(1): the sign at each Spanish 21 table explains "That doubled down hands
    are not eligible for the additional payouts in § 551.6(g) and (h)."

    § 551.6 is not in the seeds: the hands and odds are the Rules Submission's pay table.
    """
    t = _round(1, 2)
    t.draws("6S", "6C", "9S", "7H", "7C", "8S")  # dealer 9 up, 8 in the hole: 17
    assert t.decide(1, "hit").ok
    t.draw("8D")  # box 1: 6-7-8 of mixed suits, 21
    assert t.decide(2, "double").ok
    t.draw("8H")  # box 2: the same 21, doubled down
    plain, doubled = _hands(t)
    assert plain["outcome"] == doubled["outcome"] == "win"
    assert plain["additional_payout"] == {
        "name": "six_seven_eight",
        "odds": "3 to 2",
        "rule": cite("551.6(g)"),
    }
    assert "additional_payout" not in doubled
    refused = doubled["additional_payout_refused"]
    assert refused["name"] == "six_seven_eight" and refused["why"] == "a doubled down hand"
    assert refused["refused_rule"] == cite("551.2(g)(1)")
    # The win itself is chapter 549's rule, borrowed, and says so.
    assert plain["rule"] == cite("549.4(b)") and "chapter 551" in plain["rule_note"]


def test_split_hands_get_no_551_6_h_payout_551_12_e() -> None:
    """§ 551.12(e): "The additional payouts provided in § 551.6(h) (relating to wagers;
    payout odds) are not applicable to a winning wager on a split hand."

    A split hand keeps a § 551.6(g) payout (only doubled hands lose those, § 551.2(g)(1)).
    """
    t = _round(1)
    t.draws("7S", "9S", "7H", "8S")  # a pair of sevens; dealer 17
    assert t.decide(1, "split").ok
    t.draw("2C")
    for card in ("3D", "4H", "5S"):  # hand 1: five cards, 21
        assert t.decide(1, "hit", hand=1).ok
        t.draw(card)
    t.draw("6D")
    assert t.decide(1, "hit", hand=2).ok
    t.draw("8C")  # hand 2: 7-6-8 of mixed suits, 21
    five, mixed = _hands(t)
    assert (five["hand"], five["split"], five["outcome"]) == (1, True, "win")
    assert five["additional_payout_refused"]["name"] == "five_card_21"
    assert five["additional_payout_refused"]["refused_rule"] == cite("551.12(e)")
    assert five["additional_payout_refused"]["rule"] == cite("551.6(h)")
    assert mixed["additional_payout"]["name"] == "six_seven_eight"


def test_blackjack_and_insurance_pay_as_the_spanish21_layout_says_551_2_c() -> None:
    """§ 551.2(c): "The following must be inscribed on the Spanish 21 layout: (1)
    Blackjack pays 3 to 2. ... (3) Insurance pays 2 to 1."
    """
    t = _round(1, 2)
    t.draws("AC", "9S", "9D", "KD", "9H", "8S")  # box 1 Blackjack; dealer 9 up, 8: 17
    assert t.decide(2, "stand").ok
    blackjack, _ = _hands(t)
    assert (blackjack["outcome"], blackjack["odds"]) == ("blackjack", "3 to 2")
    assert blackjack["rule"] == cite("551.2(c)(1)") and "rule_note" not in blackjack

    t = _round(1)
    t.draws("9C", "AS", "8H", "QS")
    assert t.decide(1, "insurance").ok
    t.peek(True, "QS")
    assert t.dealer("dealer_turn").ok
    [result] = of_type(t.dealer("round_end").output, EventType.BLACKJACK_RESULT)
    [insurance] = result.data["insurance"]
    assert (insurance["outcome"], insurance["odds"]) == ("win", "2 to 1")
    assert insurance["rule"] == cite("551.2(c)(3)")


def test_without_a_pay_table_no_additional_payout_is_named() -> None:
    t = make_table("spanish21")
    t.ready()
    assert t.start(1).ok
    t.draws("6S", "9S", "7H", "8S")
    assert t.decide(1, "hit").ok
    t.draw("8D")
    [hand] = _hands(t)
    assert hand["outcome"] == "win"
    assert "additional_payout" not in hand and "additional_payout_refused" not in hand


def test_a_doubled_or_split_hand_loses_its_original_wager_only_551_12_d() -> None:
    """§ 551.12(d): "If the dealer obtains Blackjack after a player splits pairs, the
    dealer shall only collect the amount of the original wager of the player, and may not
    collect the additional amount wagered in splitting pairs." § 549.11(b): "If a dealer
    obtains Blackjack after a player makes a Double Down Wager, the dealer shall only
    collect the amount of the original wager of the player and shall not collect the
    additional Double Down Wager." (§ 549.12(d) is § 551.12(d)'s Blackjack twin.)

    With a peek before any decision the engine never reaches this in play, so the
    settlement function is asked directly.
    """
    dealer = count_hand(["AS", "KD"])
    hand = {"box": 1, "hand": 1, "cards": ["8S", "3D", "9C"], "surrendered": False,
            "not_counted": [], "doubled": False, "from_split": True}  # fmt: skip
    for game, split_rule in (("spanish21", "551.12(d)"), ("blackjack", "549.12(d)")):
        body = settle_hand(GameRules(game, decks=6), hand, dealer, True)
        assert body["outcome"] == "lose" and body["collect"] == "original wager only"
        assert body["collect_rule"] == cite(split_rule) and "collect_note" not in body
    doubled = {**hand, "doubled": True, "from_split": False}
    body = settle_hand(GameRules("spanish21", decks=6), doubled, dealer, True)
    assert body["collect_rule"] == cite("549.11(b)") and "chapter 551" in body["collect_note"]
    body = settle_hand(GameRules("blackjack", decks=6), doubled, dealer, True)
    assert body["collect_rule"] == cite("549.11(b)") and "collect_note" not in body
