"""Settling a Mississippi Stud round: each box's best hand, its § 571.12 class and payout.

A box that folded lost its Ante Wager and the Street Wagers placed before the fold
(§ 571.11(a), (c), (e)). A box still in play is evaluated with its two cards and the
three community cards (§ 571.11(g)): every one of its wagers wins at the hand's odds, or
pushes on a pair of sixes to tens, or loses (§ 571.12(a)). Wagers are counted in units
of the ante; when the dealer gave the antes in dollars, the payout is in dollars too and
never more than the aggregate payout limit for a hand (§ 571.12(b)).

When a box's cards are not all known (no card recognition, or a community card dealt
from the hand that the dealer did not name), floord does not call that hand.
"""

from __future__ import annotations

from typing import Any

from floord.contract import EventType, cite
from floord.engine.cards.card import CardError
from floord.engine.cards.poker_hands import best_hand
from floord.engine.core.rulings import decision
from floord.engine.core.types import Decision
from floord.engine.stud.rules import StudRules, payout

STREET_NAMES = {"3": "3rd_street", "4": "4th_street", "5": "5th_street"}


def _wagers(hand: dict[str, Any]) -> dict[str, int]:
    body = {"ante": 1}
    for street, units in sorted(hand["wagers"].items()):
        body[STREET_NAMES[street]] = units
    return body


def settle(rules: StudRules, r: dict[str, Any]) -> tuple[list[Decision], bool]:
    """The round's `stud.hand` and `stud.result` decisions; True when every box was called."""
    out: list[Decision] = []
    boxes: list[dict[str, Any]] = []
    called = True
    community = r["community"]
    for hand in r["hands"]:
        wagers = _wagers(hand)
        units = sum(wagers.values())
        entry: dict[str, Any] = {"box": hand["box"], "wagers": wagers, "units": units}
        ante = (r.get("antes") or {}).get(str(hand["box"]))
        if ante is not None:
            entry["ante_amount"] = ante
        if hand["folded_at"] is not None:
            entry.update(outcome="fold", folded_at=hand["folded_at"], lost_units=units)
            entry["rule"] = cite(
                {3: "571.11(a)", 4: "571.11(c)", 5: "571.11(e)"}[hand["folded_at"]]
            )
            boxes.append(entry)
            continue
        cards = [*hand["cards"], *community]
        if len(cards) != 5 or any(c is None for c in cards):
            called = False
            entry.update(outcome="not_called", detail="not every card of the hand is known")
            boxes.append(entry)
            continue
        try:
            best = best_hand(cards)
        except CardError as exc:
            called = False
            entry.update(outcome="not_called", detail=str(exc))
            boxes.append(entry)
            continue
        outcome, odds, cls = payout(best)
        out.append(
            decision(
                EventType.STUD_HAND,
                cite("571.6(b)"),
                r["id"],
                hand="player",
                box=hand["box"],
                cards=list(hand["cards"]),
                community=list(community),
                best=best.to_dict(),
                payout_class=cls,
            )
        )
        entry.update(outcome=outcome, hand_class=best.cls, payout_class=cls, odds=odds)
        entry["rule"] = cite("571.11(g)(2)") if outcome == "push" else cite("571.12(a)")
        if outcome == "win":
            assert odds is not None
            entry["won_units"] = odds * units
            if ante is not None:
                due = odds * units * ante
                paid = min(due, rules.aggregate_payout_limit)
                entry.update(payout_due=due, payout=paid, capped=paid < due)
                if paid < due:
                    entry["cap_rule"] = cite("571.12(b)")
        elif outcome == "lose":
            entry["lost_units"] = units
        boxes.append(entry)
    body = {
        "boxes": boxes,
        "community": list(community),
        "aggregate_payout_limit": rules.aggregate_payout_limit,
        "limit_rule": cite("571.12(b)"),
    }
    out.append(decision(EventType.STUD_RESULT, cite("571.12(a)"), r["id"], **body))
    return out, called
