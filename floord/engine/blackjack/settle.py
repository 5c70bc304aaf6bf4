"""Settling a Blackjack round: each hand against the dealer's (58 Pa. Code § 549.4-549.12).

A hand wins, loses, pushes, wins a Blackjack (3 to 2, § 549.8) or was surrendered
(§ 549.9). Against a dealer's Blackjack a player's Blackjack is a push (§ 549.8(b)) and
a doubled or split hand loses its original wager only (§ 549.11(b), § 549.12(d), § 551.12(d)); an
Insurance Wager wins 2 to 1 on a dealer's Blackjack and loses otherwise (§ 549.10).
A hand formed by a split is not a Blackjack: Blackjack is the *initial* two cards
dealt to a player (§ 549.1), which is floord's reading of the definition.
"""

from __future__ import annotations

from typing import Any

from floord.engine.blackjack.rules import GameRules
from floord.engine.blackjack.spanish21 import additional_payout
from floord.engine.cards.card import HandCount, count_hand


def hand_count(hand: dict[str, Any]) -> HandCount:
    return count_hand(hand["cards"], may_be_blackjack=not hand["from_split"])


def is_live(hand: dict[str, Any]) -> bool:
    """A hand whose outcome still depends on the dealer's total (§ 549.13(c))."""
    if hand["surrendered"] or hand.get("dead"):
        return False
    if None in hand["cards"]:
        return True
    count = hand_count(hand)
    return not (count.bust or count.blackjack)


def settle_hand(
    rules: GameRules, hand: dict[str, Any], dealer: HandCount, dealer_blackjack: bool
) -> dict[str, Any]:
    count = hand_count(hand)
    if (dead := hand.get("dead")) is not None:
        return dead_hand(hand, count, dead)
    outcome, odds, key = _outcome(hand, count, dealer, dealer_blackjack)
    result: dict[str, Any] = {
        "box": hand["box"],
        "hand": hand["hand"],
        **count.to_dict(),
        "doubled": hand["doubled"],
        "split": hand["from_split"],
        "outcome": outcome,
        "odds": odds,
        "rule": rules.cite(key),
        **rules.note(key),
    }
    if rules.spanish21:
        result.update(additional_payout(rules.pay_table, hand, count.total, outcome))
    if hand["not_counted"]:
        result["not_counted"] = list(hand["not_counted"])
    if outcome == "lose" and dealer_blackjack and (hand["doubled"] or hand["from_split"]):
        result["collect"] = "original wager only"
        collect = "double_collect" if hand["doubled"] else "split_collect"
        result["collect_rule"] = rules.cite(collect)
        if note := rules.note(collect):
            result["collect_note"] = note["rule_note"]
    return result


def dead_hand(hand: dict[str, Any], count: HandCount, dead: dict[str, Any]) -> dict[str, Any]:
    """A hand called dead (§ 549.16(g), (i)): no outcome against the dealer; `wager` is
    "returned" where the paragraph (or floord's policy) says so, null where it is silent."""
    result: dict[str, Any] = {
        "box": hand["box"],
        "hand": hand["hand"],
        **count.to_dict(),
        "doubled": hand["doubled"],
        "split": hand["from_split"],
        "outcome": "dead",
        "odds": None,
        "rule": dead["rule"],
        "dead": dead["reason"],
        "wager": dead["wager"],
    }
    if dead.get("policy"):
        result["policy"] = dead["policy"]
    return result


def _outcome(
    hand: dict[str, Any], count: HandCount, dealer: HandCount, dealer_blackjack: bool
) -> tuple[str, str | None, str]:
    if hand["surrendered"]:
        if dealer_blackjack:
            return "lose", None, "surrender"  # § 549.9(a)(2): the entire wager
        return "surrender", "half the wager returned", "surrender"
    if dealer_blackjack:
        if count.blackjack:
            return "push", None, "blackjack_pays"
        return "lose", None, "wagers_push"
    if count.bust:
        return "lose", None, "wagers_win"
    if count.blackjack:
        return "blackjack", "3 to 2", "blackjack_3_to_2"
    if dealer.bust:
        return "win", "1 to 1", "wagers_win"
    if count.total > dealer.total:
        return "win", "1 to 1", "wagers_win"
    if count.total == dealer.total:
        return "push", None, "wagers_push"
    return "lose", None, "wagers_win"


def settle_round(
    rules: GameRules,
    hands: list[dict[str, Any]],
    dealer_cards: list[str],
    insurance: list[int],
    dealer_blackjack: bool,
) -> dict[str, Any]:
    """The `blackjack.result` body of a round dealt from a recognition shoe."""
    dealer = count_hand(dealer_cards)
    return {
        "dealer": dealer.to_dict(),
        "dealer_blackjack": dealer_blackjack,
        "hands": [settle_hand(rules, h, dealer, dealer_blackjack) for h in hands],
        "insurance": [
            {
                "box": box,
                "outcome": "win" if dealer_blackjack else "lose",
                "odds": "2 to 1" if dealer_blackjack else None,
                "rule": rules.cite("insurance_pays" if dealer_blackjack else "insurance_ace"),
            }
            for box in insurance
        ],
    }
