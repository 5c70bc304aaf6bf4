"""The dealer's errors in a Blackjack deal, as the record shows them (§ 549.16(e), (g), (i)).

floord places each drawn card at the next place of the deal (`play.py`, `deal_order.py`);
a card-recognition shoe does not see the layout, so only the dealer or a floorperson
knows where a card really went. `card_to` says it for the last card drawn: the card is
moved, and the deal is derived again from there:

- in the initial deal, a place further on in the order of § 549.7(e) means the dealer
  passed the places between over: a box passed over is judged when the slots end
  (§ 549.16(g)); the dealer passing his own slot defers his cards to after every
  player's first two (§ 549.16(e));
- a place owed a card (a (g) second card, the dealer's missed cards, a hand that asked
  for one) takes it; the place the engine had chosen is owed its card again;
- a place owed nothing holds it as a card drawn in error, used as the next card
  (§ 549.16(b), (c), as `play.Play._hold`);
- a card drawn for a player's request and dealt to another box is the requested card
  not dealt (§ 549.16(i)): the player chooses (`hand_option`) to have it after all other
  players received theirs, before the dealer reveals his hole card, or to have the hand
  called dead and the original wager returned.

`hand_option` records a player's option under (g) or (i). What follows a player
declining the second card under (g) is not in the text: floord's policy (`DECLINE_POLICY`).
"""

from __future__ import annotations

from typing import Any

from floord.contract import EventType
from floord.engine.blackjack import deal_order
from floord.engine.blackjack.play import Play, Step
from floord.engine.core.rulings import policy_decision, ruled, violation
from floord.engine.core.types import Decision

OPTIONS = ("deal", "decline")
DECLINE_POLICY = (
    "floord policy, not a regulation: § 549.16(g) gives the player dealt one card the "
    "option of a second card after all other players received theirs and says nothing "
    "of a player who declines it; floord calls that hand dead and records its wager "
    "as returned, as the hand was never dealt"
)


def where(place: dict[str, Any] | None) -> str:
    if place is None:
        return "no place (held as drawn in error)"
    if place.get("dealer"):
        return "the dealer"
    return f"box {place['box']} hand {place['hand']}"


class Corrections(Play):
    """`card_to` and `hand_option` over a round in play."""

    # ----- card_to ----------------------------------------------------------------

    def card_to(self, to: dict[str, Any], by: str, role: str) -> Step:
        r = self.r
        if r["phase"] == "dealer":
            return Step(
                error="the dealer's turn has begun: card_to corrects the deal before it",
                rule=self.rules.cite("dealer_reveal"),
            )
        last = r.get("last")
        if last is None:
            return Step(error="no card of this round is there to correct: none has been drawn")
        hand = None
        if not to.get("dealer"):
            hand = self.hand(to["box"], to["hand"])
            if hand is None:
                return Step(error=f"box {to['box']} has no hand {to['hand']} in this round")
        target = deal_order.place_key(hand)
        if (last["at"] if last["pile"] == "cards" else last.get("lies_at")) == target:
            return Step(error=f"the last card drawn is already recorded at {where(target)}")
        if last["slot"] is not None and self._deal_went_on():
            return Step(
                error="the last card drawn was dealt in the initial deal and the round has "
                "gone on since (a decision or the peek): card_to corrects it before",
                rule=self.rules.cite("deal_order"),
            )
        pile = self._pile(last)
        if pile is None or last["card"] not in pile:
            return Step(error="the last card drawn was moved since it was dealt (a split)")
        card = pile.pop(len(pile) - 1 - pile[::-1].index(last["card"]))
        out: list[Decision] = []
        requester = self._give_back(last)
        if requester is not None and (hand is None or hand["box"] != requester["box"]):
            out += self._requested_card_not_dealt(requester)
        missed: list[dict[str, Any]] = []
        out += self._place_corrected(card, hand, missed)
        held = (r.get("last") or {}).get("pile") == "held"
        if held:
            r["last"]["lies_at"] = target  # held, but on this place of the layout
        event = ruled(
            self.rules,
            EventType.BLACKJACK_CARD_CORRECTED,
            "deal_order" if r["phase"] == "initial" else "player_cards",
            self.id,
            card=card,
            **{"from": last["at"]},
            to=target,
            by=by,
            role=role,
            missed=missed,
            held=held,
            next=self.next_place(),
        )
        return Step([event, *out])

    def _deal_went_on(self) -> bool:
        """A player decided or the hole card was checked after the initial deal."""
        r = self.r
        return r["peek"] is not None or any(h["decided"] for h in r["hands"])

    def _pile(self, last: dict[str, Any]) -> list[str | None] | None:
        """The cards the last card drawn was put with (None: that hand is gone)."""
        if last["pile"] == "held":
            held: list[str | None] = self.r.setdefault("held", [])
            return held
        at = last["at"]
        if at.get("dealer"):
            dealer: list[str | None] = self.r["dealer"]["cards"]
            return dealer
        hand = self.hand(at["box"], at["hand"])
        return hand["cards"] if hand is not None else None

    def _give_back(self, last: dict[str, Any]) -> dict[str, Any] | None:
        """The place the engine had given the card is owed it again; the hand whose
        request it was for, if any."""
        r = self.r
        if last["slot"] is not None:
            r["place"] = last["slot"]
            if r["phase"] == "players":
                r["phase"] = "initial"
            for hand in r["hands"]:  # judged again when the slots end (§ 549.16(g))
                if deal_order.option_pending(hand, "g"):
                    hand["option"] = None
                if (hand.get("dead") or {}).get("reason") == "no_cards":
                    hand["dead"] = None
        asked = last.get("hit_for")
        requester = self.hand(asked["box"], asked["hand"]) if asked else None
        if requester is not None:
            requester["owed"] += 1
        return requester

    def _place_corrected(
        self, card: str | None, hand: dict[str, Any] | None, missed: list[dict[str, Any]]
    ) -> list[Decision]:
        r = self.r
        if r["phase"] == "initial" and not deal_order.slots_done(r):
            ahead = self._slot_ahead(hand)
            if ahead is not None:
                passed = self.places[r["place"] : ahead]
                missed += [deal_order.place_key(p) for p in passed]
                out = []
                if any(kind == "dealer" for kind, _ in passed) and not r.get("dealer_missed"):
                    r["dealer_missed"] = True
                    out.append(self._dealer_missed())
                return out + self._initial(card, ("slot", ahead))
        if r["phase"] == "initial":
            owed = (
                deal_order.second_card_owed(hand)
                if hand is not None
                else deal_order.dealer_owed(r) > 0
            )
            if owed:
                return self._put(card, hand) + deal_order.close_initial(self.rules, r, self.id)
        elif hand is not None and hand["owed"] > 0 and not hand.get("deferred"):
            hand["owed"] -= 1
            return self._put(card, hand, hit_for=hand)
        return self._hold(card, [hand["box"], hand["hand"]] if hand is not None else None)

    def _slot_ahead(self, hand: dict[str, Any] | None) -> int | None:
        """The first slot from the cursor on that is this place's (the dealer's only
        while he has missed none)."""
        for index in range(self.r["place"], len(self.places)):
            kind, which = self.places[index]
            if kind == "dealer" and hand is None and not self.r.get("dealer_missed"):
                return index
            if kind == "box" and hand is not None and (hand["box"], hand["hand"]) == (which, 0):
                return index
        return None

    def _dealer_missed(self) -> Decision:
        return violation(
            self.rules,
            "dealer_missed",
            "dealer_missed_own_card",
            self.id,
            detail="the dealer missed dealing his own card: he continues dealing the first "
            "two cards to each player, then deals himself the appropriate number of cards",
        )

    def _requested_card_not_dealt(self, hand: dict[str, Any]) -> list[Decision]:
        hand["deferred"] = True
        hand["option"] = {"paragraph": "i", "choice": None}
        return [
            violation(
                self.rules,
                "card_not_dealt",
                "requested_card_not_dealt",
                self.id,
                box=hand["box"],
                hand=hand["hand"],
                detail="the card the player requested was dealt elsewhere: at the player's "
                "option it is dealt after all other players have received their additional "
                "cards, before the dealer reveals his hole card, or the hand is called dead "
                "and the original wager returned (hand_option)",
            )
        ]

    def next_place(self) -> dict[str, Any] | None:
        """Where the next card drawn goes, as the deal now stands (None: nowhere owed)."""
        r = self.r
        if r["phase"] == "initial":
            target = deal_order.initial_target(r)
            if target is None:
                return None
            kind, which = target
            if kind == "slot":
                return deal_order.place_key(self.places[which])
            return deal_order.place_key(which)
        owed = deal_order.owed_target(r)
        return deal_order.place_key(owed) if owed is not None else None

    # ----- hand_option ------------------------------------------------------------

    def hand_option(self, box: int, index: int, choice: str, by: str, role: str) -> Step:
        hand = self.hand(box, index)
        if hand is None:
            return Step(error=f"box {box} has no hand {index} in this round")
        if hand.get("dead"):
            return Step(error=f"box {box} hand {index} is dead")
        option = hand.get("option")
        out: list[Decision] = []
        if option is None and self.r["phase"] == "players" and hand["owed"] > 0:
            # The dealer says the requested card was not dealt (§ 549.16(i)).
            out += self._requested_card_not_dealt(hand)
            option = hand["option"]
        if option is None:
            return Step(
                error=f"box {box} hand {index} has no option to record: § 549.16(g) gives one "
                "to a hand dealt one card, § 549.16(i) to a hand whose requested card was "
                "not dealt"
            )
        if option["choice"] is not None:
            return Step(error=f"the player's option ({option['choice']}) is already recorded")
        option["choice"] = choice
        key = "no_card" if option["paragraph"] == "g" else "card_not_dealt"
        dead = choice == "decline"
        body = {"box": box, "hand": index, "option": choice, "by": by, "role": role}
        out.append(
            ruled(
                self.rules,
                EventType.BLACKJACK_HAND_OPTION,
                key,
                self.id,
                **body,
                outcome="dead" if dead else "dealt_later",
            )
        )
        if dead:
            out.append(self._dead(hand, option["paragraph"]))
        if self.r["phase"] == "initial":
            out += deal_order.close_initial(self.rules, self.r, self.id)
        else:
            out += self.serve_held()
        return Step(out)

    def _dead(self, hand: dict[str, Any], paragraph: str) -> Decision:
        """The hand called dead on the player's option: (i) returns the original wager;
        (g) says nothing of a player who declines, so that is floord's policy."""
        hand["owed"], hand["deferred"] = 0, False
        where = {"box": hand["box"], "hand": hand["hand"], "wager": "returned"}
        if paragraph == "i":
            hand["dead"] = {
                "reason": "requested_card_not_dealt",
                "wager": "returned",
                "rule": self.rules.cite("card_not_dealt"),
            }
            return ruled(
                self.rules,
                EventType.BLACKJACK_HAND_DEAD,
                "card_not_dealt",
                self.id,
                **where,
                reason="requested_card_not_dealt",
                detail="the player's hand is called dead and the original wager returned",
            )
        hand["dead"] = {
            "reason": "second_card_declined",
            "wager": "returned",
            "rule": None,
            "policy": DECLINE_POLICY,
        }
        return policy_decision(
            EventType.BLACKJACK_HAND_DEAD,
            DECLINE_POLICY,
            self.id,
            **where,
            reason="second_card_declined",
            detail="the player declined the second card: the hand is dead",
        )
