"""The dealer's commands in a Blackjack round: decisions, the dealer's turn, the end.

A decision the rules do not allow is refused with its citation (insurance on an up card
other than an ace, § 549.10(a), or after the peek, § 549.10(b); a double down after the
first two cards, § 549.11(a); a split of cards not identical in value, § 549.12(a), or
into a fourth hand, § 549.12(c)(1); a draw on 21, § 549.13(a)(1)). Cards are the
shoe's business (`blackjack_play`); here only what the dealer says is judged.
"""

from __future__ import annotations

from typing import Any

from floord.contract import EventType
from floord.engine.blackjack import deal_order
from floord.engine.blackjack.corrections import Corrections
from floord.engine.blackjack.play import MAX_HANDS_PER_BOX, Step, new_hand
from floord.engine.blackjack.settle import hand_count, is_live, settle_round
from floord.engine.cards.card import HandCount, count_hand, dealer_must_stand, is_ace, same_value
from floord.engine.core.rulings import ruled, violation
from floord.engine.core.types import Decision


class Round(Corrections):
    """A round in play with the dealer's commands."""

    # ----- the dealer's commands --------------------------------------------------

    def decision(self, box: int, index: int, action: str) -> Step:
        hand = self.hand(box, index)
        if hand is None:
            return Step(error=f"box {box} has no hand {index} in this round")
        if not self.initial_complete():
            return Step(
                error="the initial deal is not complete", rule=self.rules.cite("deal_order")
            )
        if self.r["phase"] == "dealer":
            return Step(error="the dealer's turn has begun", rule=self.rules.cite("dealer_reveal"))
        if action == "insurance":
            return self._insurance(hand)
        if self.peek_pending():
            return Step(
                error=f"the dealer's up card is {self.up_card}: the hole card is checked first",
                rule=self.rules.cite("peek"),
            )
        if self.r["peek"] and self.r["peek"]["blackjack"]:
            return Step(
                error="the dealer has Blackjack: no player decisions remain",
                rule=self.rules.cite("blackjack_pays"),
            )
        if (refused := self._option_refusal(hand)) is not None:
            return refused
        # § 549.12(b): a hand (split or not) waiting for its card is served first; a hand
        # whose requested card comes after the others' (§ 549.16(i)) does not hold them.
        upto = self.r["hands"][: self.r["hands"].index(hand) + 1]
        waiting = next((h for h in upto if h["owed"] > 0 and not h.get("deferred")), None)
        if waiting is not None:
            return Step(
                error=f"box {waiting['box']} hand {waiting['hand']} waits for its card",
                rule=self.rules.cite("split_order" if waiting["from_split"] else "player_cards"),
            )
        refused = self._refusal(hand, action)
        if refused is not None:
            return refused
        handler = getattr(self, f"_do_{action}")
        handler(hand)
        hand["decided"] = True
        self.r["last_named"] = [box, index]
        return Step(self.serve_held())

    def _option_refusal(self, hand: dict[str, Any]) -> Step | None:
        """A dead hand decides nothing; a hand waiting for its player's option or for
        its requested card (§ 549.16(g), (i)) decides nothing before it."""
        if hand.get("dead"):
            return Step(
                error=f"box {hand['box']} hand {hand['hand']} is dead",
                rule=hand["dead"]["rule"],
            )
        if deal_order.option_pending(hand):
            return Step(
                error=f"box {hand['box']} hand {hand['hand']}: the player's option is "
                "recorded first (hand_option)",
                rule=self._option_rule(hand),
            )
        if hand.get("deferred") and hand["owed"] > 0:
            return Step(
                error=f"box {hand['box']} hand {hand['hand']} waits for its requested card, "
                "dealt after all other players have received their additional cards",
                rule=self.rules.cite("card_not_dealt"),
            )
        return None

    def _option_rule(self, hand: dict[str, Any]) -> str:
        paragraph = (hand.get("option") or {}).get("paragraph")
        return self.rules.cite("no_card" if paragraph == "g" else "card_not_dealt")

    def _refusal(self, hand: dict[str, Any], action: str) -> Step | None:
        cite = self.rules.cite
        known = None not in hand["cards"]
        count = hand_count(hand) if known else None
        if hand["surrendered"] or hand["stood"]:
            return Step(error=f"box {hand['box']} hand {hand['hand']} has already finished")
        if action == "stand":
            return None
        if action == "surrender":
            if hand["decided"] or hand["from_split"] or len(hand["cards"]) != 2:
                return Step(
                    error="surrender is the first decision on the first two cards",
                    rule=cite("surrender"),
                )
            return None
        if hand["doubled"]:
            return Step(error="a doubled hand receives one card only", rule=cite("double"))
        if hand["split_aces"] and self.rules.applies("split_aces") and len(hand["cards"]) >= 2:
            return Step(error="a split ace receives one card only", rule=cite("split_aces"))
        if count is not None and (count.blackjack or count.total >= 21):
            return Step(
                error=f"the hand stands at {count.total}: it may not draw", rule=cite("player_draw")
            )
        if action == "double":
            if len(hand["cards"]) != 2:
                return Step(
                    error="a double down is made on the first two cards", rule=cite("double")
                )
            return None
        if action == "split":
            if len(hand["cards"]) != 2 or (known and not same_value(*hand["cards"])):
                return Step(
                    error="only two cards identical in value are split", rule=cite("split_pair")
                )
            hands = [h for h in self.r["hands"] if h["box"] == hand["box"]]
            if len(hands) >= MAX_HANDS_PER_BOX:
                return Step(
                    error="a box may be split into three hands at most",
                    rule=cite("split_three_hands"),
                )
        return None

    def _do_stand(self, hand: dict[str, Any]) -> None:
        hand["stood"] = True

    def _do_surrender(self, hand: dict[str, Any]) -> None:
        hand["surrendered"] = True

    def _do_hit(self, hand: dict[str, Any]) -> None:
        hand["owed"] = 1

    def _do_double(self, hand: dict[str, Any]) -> None:
        hand["doubled"] = True
        hand["owed"] = 1

    def _do_split(self, hand: dict[str, Any]) -> None:
        hands = self.r["hands"]
        box = hand["box"]
        first, second = hand["cards"]
        aces = first is not None and is_ace(first)
        taken = [h["hand"] for h in hands if h["box"] == box]
        if hand["hand"] == 0:
            a, b = new_hand(box, 1, from_split=True), new_hand(box, 2, from_split=True)
            a["cards"], b["cards"] = [first], [second]
            pos = hands.index(hand)
            hands[pos : pos + 1] = [a, b]
            pair = [a, b]
        else:
            hand["cards"] = [first]
            b = new_hand(box, max(taken) + 1, from_split=True)
            b["cards"] = [second]
            hands.insert(hands.index(hand) + 1, b)
            pair = [hand, b]
        self.r["last"] = None  # the split moved the cards: `card_to` has nothing to move
        for h in pair:
            h["owed"] = 1
            h["split_aces"] = aces
            h["decided"] = True

    def _insurance(self, hand: dict[str, Any]) -> Step:
        up = self.up_card
        if self.r["peek"] is not None or self.r["player_cards"] > 0:
            return Step(
                error="insurance is placed before the hole card is checked",
                rule=self.rules.cite("insurance_before_peek"),
            )
        if up is not None and not is_ace(up):
            return Step(
                error=f"insurance is offered on an ace only; the up card is {up}",
                rule=self.rules.cite("insurance_ace"),
            )
        if hand["hand"] != 0 or hand["box"] in self.r["insurance"]:
            return Step(error=f"box {hand['box']} cannot insure again")
        self.r["insurance"].append(hand["box"])
        return Step()

    def dealer_turn(self) -> Step:
        if not self.initial_complete() or self.r["phase"] == "dealer":
            return Step(
                error="the dealer's turn follows the initial deal, once",
                rule=self.rules.cite("dealer_reveal"),
            )
        if self.peek_pending():
            return Step(error="the hole card must be checked first", rule=self.rules.cite("peek"))
        pending = next((h for h in self.r["hands"] if deal_order.option_pending(h)), None)
        if pending is not None:
            return Step(
                error=f"box {pending['box']} hand {pending['hand']}: the player's option is "
                "recorded first (hand_option)",
                rule=self._option_rule(pending),
            )
        waiting = next((h for h in self.r["hands"] if h["owed"] > 0), None)
        if waiting is not None:
            # § 549.16(i): the requested card is dealt "prior to the dealer revealing his
            # hole card".
            key = "card_not_dealt" if waiting.get("deferred") else "player_cards"
            return Step(
                error=f"box {waiting['box']} hand {waiting['hand']} waits for its card",
                rule=self.rules.cite(key),
            )
        self.r["phase"] = "dealer"
        for hand in self.r["hands"]:
            hand["stood"] = hand["stood"] or not hand["surrendered"]
        out = []
        if self.recognition and None not in self.r["dealer"]["cards"]:
            out.append(self._dealer_event(revealed=True))
        return Step(out + self._held_to_dealer())

    def _held_to_dealer(self) -> list[Decision]:
        """§ 549.16(c): a card drawn in error that no player took goes to the dealer as
        the next card when the dealer must draw; "If the card is refused by the players and
        the dealer cannot use the card, the card shall be placed in the discard rack." A
        dealer whose cards are not known (a manual shoe) is not given it."""
        out: list[Decision] = []
        held = self.r.get("held") or []
        while held:
            card = held.pop(0)
            dealer = self.r["dealer"]["cards"]
            known = card is not None and None not in dealer
            if known and self._dealer_draws(count_hand(dealer)):
                dealer.append(card)
                out.append(self._dealer_event(revealed=True))
                continue
            self.r["dealer"]["not_counted"].append(card)
            out.append(
                violation(
                    self.rules,
                    "drawn_in_error_exposed",
                    "card_drawn_in_error_discarded",
                    self.id,
                    card=card,
                    detail="no player took the card drawn in error and the dealer cannot use "
                    "it: it is placed in the discard rack",
                )
            )
        return out

    def _dealer_draws(self, count: HandCount) -> bool:
        """The dealer must draw: under 17 (§ 549.13(b)) with a hand the draw can change."""
        live = any(is_live(h) for h in self.r["hands"])
        return live and not self.dealer_blackjack() and not dealer_must_stand(count)

    def finish(self) -> Step:
        """`round_end`: the result of each hand, once the dealer's turn is done."""
        if self.r["phase"] != "dealer":
            return Step(
                error="round_end follows the dealer's turn (dealer_turn)",
                rule=self.rules.cite("dealer_reveal"),
            )
        step = Step()
        dealer = self.r["dealer"]["cards"]
        known = (
            self.recognition
            and None not in dealer
            and all(None not in h["cards"] for h in self.r["hands"])
        )
        if not known:
            return step
        count = count_hand(dealer)
        bj = self.dealer_blackjack()
        if not bj and count.total < 17 and any(is_live(h) for h in self.r["hands"]):
            step.decisions.append(
                violation(
                    self.rules,
                    "dealer_draw",
                    "dealer_stood_below_17",
                    self.id,
                    dealer=count.to_dict(),
                )
            )
        body = settle_round(self.rules, self.r["hands"], dealer, self.r["insurance"], bj)
        step.decisions.append(
            ruled(self.rules, EventType.BLACKJACK_RESULT, "wagers_win", self.id, **body)
        )
        return step
