"""Where the next card of a Blackjack round goes, the dealer's errors included.

The initial deal is the slots of § 549.7(e): a card to each box in play, left to right,
the dealer's up card, a second card to each box, the hole card; the round's `place` is
the cursor over them. A `card_to` correction (`corrections.py`) can show that the
dealer passed slots over; this module says what is owed after that, from the round's
dict alone (so a restored snapshot derives the same):

- a dealer slot passed over: "the dealer shall continue dealing the first two cards to
  each player, and then deal the appropriate number of cards to himself" (§ 549.16(e)):
  `dealer_missed` set, the dealer's remaining slots are skipped and his cards are owed
  after every player's first two;
- a box that ends the slots with no card is dead; with one card its player chooses
  whether the second is dealt "after all other players have received a second card"
  (§ 549.16(g)): the hand's `option`, and the second card of each hand whose player chose
  it comes after the slots, in box order, before the dealer's missed cards;
- a hand whose requested card was not dealt and whose player chose to have it (§ 549.16(i))
  is `deferred`: it is served once every other hand has finished, and before the dealer's
  turn (the dealer's commands refuse `dealer_turn` while it waits).
"""

from __future__ import annotations

from typing import Any

from floord.contract import EventType
from floord.engine.blackjack.rules import GameRules
from floord.engine.blackjack.settle import hand_count
from floord.engine.core.rulings import ruled, violation
from floord.engine.core.types import Decision

Round = dict[str, Any]
Hand = dict[str, Any]


def slots(r: Round) -> list[tuple[str, int]]:
    """The places of § 549.7(e) in deal order: ("box", n) or ("dealer", 0 | 1)."""
    boxes = r["boxes"]
    return (
        [("box", b) for b in boxes]
        + [("dealer", 0)]
        + [("box", b) for b in boxes]
        + [("dealer", 1)]
    )


def skip_deferred(r: Round) -> None:
    """Move the cursor past the dealer's slots once he missed one (§ 549.16(e))."""
    order = slots(r)
    while r["place"] < len(order) and order[r["place"]][0] == "dealer" and r.get("dealer_missed"):
        r["place"] += 1


def slots_done(r: Round) -> bool:
    return bool(r["place"] >= len(slots(r)))


def option_pending(hand: Hand, paragraph: str | None = None) -> bool:
    """The hand waits for its player's option (§ 549.16(g) or (i))."""
    option = hand.get("option")
    return bool(
        option
        and option.get("choice") is None
        and (paragraph is None or option["paragraph"] == paragraph)
    )


def second_card_owed(hand: Hand) -> bool:
    """§ 549.16(g): a hand dealt one card whose player chose the second card."""
    option = hand.get("option") or {}
    return (
        option.get("paragraph") == "g"
        and option.get("choice") == "deal"
        and not hand.get("dead")
        and len(hand["cards"]) < 2
    )


def dealer_owed(r: Round) -> int:
    """The cards the dealer still deals himself after missing one (§ 549.16(e))."""
    if not r.get("dealer_missed"):
        return 0
    return max(0, 2 - len(r["dealer"]["cards"]))


def initial_target(r: Round) -> tuple[str, Any] | None:
    """Where the next card of the initial deal goes: ("slot", index), ("hand", hand),
    ("dealer", None); None when nothing is owed now (a player's option is awaited)."""
    if not slots_done(r):
        return ("slot", r["place"])
    for hand in r["hands"]:
        if second_card_owed(hand):
            return ("hand", hand)
    if any(option_pending(h, "g") for h in r["hands"]):
        return None
    if dealer_owed(r):
        return ("dealer", None)
    return None


def initial_finished(r: Round) -> bool:
    """Every slot passed, every (g) option taken and served, the dealer's cards dealt."""
    return (
        slots_done(r)
        and not any(option_pending(h, "g") or second_card_owed(h) for h in r["hands"])
        and not dealer_owed(r)
    )


def finished(hand: Hand) -> bool:
    """A hand that takes no more cards this round: the others of a (i) hand's wait."""
    if hand.get("dead") or hand["surrendered"] or hand["stood"]:
        return True
    if hand["owed"] > 0 or option_pending(hand):
        return False
    if hand["doubled"]:
        return True
    if None in hand["cards"]:
        return False
    return hand_count(hand).total >= 21


def owed_target(r: Round) -> Hand | None:
    """The hand the next card after the initial deal goes to (§ 549.7(h)): the first
    hand owed one, a (i) hand that chose its card last, once every other hand finished."""
    hands: list[Hand] = r["hands"]
    first = next((h for h in hands if h["owed"] > 0 and not h.get("deferred")), None)
    if first is not None:
        return first
    for hand in hands:
        ready = hand.get("deferred") and hand["owed"] > 0 and not option_pending(hand)
        if ready and all(finished(h) for h in hands if h is not hand):
            return hand
    return None


def place_key(place: tuple[str, int] | Hand | None) -> dict[str, Any]:
    """A place as the record writes it: {"box", "hand"} or {"dealer": true}."""
    if place is None or (isinstance(place, tuple) and place[0] == "dealer"):
        return {"dealer": True}
    if isinstance(place, tuple):
        return {"box": place[1], "hand": 0}
    return {"box": place["box"], "hand": place["hand"]}


def close_initial(rules: GameRules, r: Round, round_id: str) -> list[Decision]:
    """Once the slots are dealt: judge each box dealt fewer than two cards (§ 549.16(g)),
    and end the initial deal when nothing more is owed."""
    out: list[Decision] = []
    if r["phase"] != "initial" or not slots_done(r):
        return out
    for hand in r["hands"]:
        if hand["from_split"] or hand.get("dead") or hand.get("option") or len(hand["cards"]) > 1:
            continue
        where = {"box": hand["box"], "hand": hand["hand"]}
        if not hand["cards"]:
            # "If no cards are dealt to a player's hand, the hand is dead and the player
            # shall be included in the next deal." Nothing is said of the wager.
            hand["dead"] = {"reason": "no_cards", "wager": None, "rule": rules.cite("no_card")}
            out.append(
                ruled(
                    rules,
                    EventType.BLACKJACK_HAND_DEAD,
                    "no_card",
                    round_id,
                    **where,
                    reason="no_cards",
                    wager=None,
                    next_deal=True,
                    detail="no card was dealt to the hand: it is dead and the player is "
                    "included in the next deal; the paragraph does not say what becomes "
                    "of the wager, so floord settles nothing for this hand",
                )
            )
            continue
        hand["option"] = {"paragraph": "g", "choice": None}
        out.append(
            violation(
                rules,
                "no_card",
                "one_card_dealt",
                round_id,
                **where,
                detail="only one card was dealt to the hand: at the player's option the "
                "dealer deals the second after all other players have received a second "
                "card (the option is recorded with hand_option)",
            )
        )
    if initial_finished(r):
        r["phase"] = "players"
    return out
