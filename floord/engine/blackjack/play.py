"""One Blackjack round in play: the deal order, the peek, the players' and dealer's cards.

The round is a plain JSON-able dict kept in `RoundBook.current` (so it is snapshotted
as it is); `Play` is a view over it. Each `shoe.card_drawn` goes to the next place of
the deal: the determinant card of a double shoe (§ 549.7(d)), then the order of
§ 549.7(e) (a card to each box in play, left to right, the dealer's up card, a second
card to each box, the hole card), then the cards the dealer's `decision` commands call
for (§ 549.7(h)), then, after `dealer_turn`, the dealer's draws (§ 549.7(i), § 549.13(b)).
With a recognition shoe each card is known and the round is called card by card; with
a manual shoe only the count is known, and only the count is checked. Where the dealer
dealt a card elsewhere, `card_to` moves it and the deal is derived again
(`corrections.py`; what is owed next, the dealer's errors included, is `deal_order.py`:
§ 549.16(e), (g), (i)).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from floord.contract import EventType
from floord.engine.blackjack import deal_order
from floord.engine.blackjack.rules import GameRules
from floord.engine.blackjack.settle import hand_count, is_live
from floord.engine.cards.card import count_hand, dealer_must_stand, needs_peek, suit_side
from floord.engine.core.rulings import ruled, violation
from floord.engine.core.types import Decision

ACTIONS = ("hit", "stand", "double", "split", "surrender", "insurance")
MAX_HANDS_PER_BOX = 3  # § 549.12(c)(1)


@dataclass
class Step:
    """What one input did to the round: decisions, or a refusal (error and its rule)."""

    decisions: list[Decision] = field(default_factory=list)
    error: str | None = None
    rule: str | None = None
    action: str | None = None  # "void" (§ 549.16(j)(1)) or "halt" (the reader is wrong)


def new_round(boxes: list[int], *, recognition: bool, double: bool) -> dict[str, Any]:
    """The fields of a new round: boxes in deal order (box 1 is on the dealer's left)."""
    return {
        "boxes": sorted(boxes),
        "recognition": recognition,
        "phase": "determinant" if double else "initial",
        "place": 0,
        "slack": 0,
        "side": None,
        "determinant": None,
        "wrong_side": False,
        "hands": [new_hand(b, 0) for b in sorted(boxes)],
        "dealer": {"cards": [], "not_counted": []},
        "peek": None,
        "peek_late": False,
        "player_cards": 0,
        "last_named": None,
        "insurance": [],
        "reload": False,
        "unassigned": [],
        "held": [],  # cards drawn in error, used as the next cards (§ 549.16(b), (c))
        "dealer_missed": False,  # the dealer passed his own slot over (§ 549.16(e))
        "last": None,  # where the last card drawn was put, for `card_to`
    }


def new_hand(box: int, index: int, *, from_split: bool = False) -> dict[str, Any]:
    return {
        "box": box,
        "hand": index,
        "cards": [],
        "not_counted": [],
        "owed": 0,
        "doubled": False,
        "split_aces": False,
        "from_split": from_split,
        "surrendered": False,
        "stood": False,
        "decided": False,
        "dead": None,  # {reason, wager, rule, policy?} (§ 549.16(g), (i))
        "option": None,  # {paragraph: "g" | "i", choice: None | "deal" | "decline"}
        "deferred": False,  # its requested card comes after the others' (§ 549.16(i))
    }


class Play:
    """The rules of a round in play, over the round's dict."""

    def __init__(
        self, rules: GameRules, rnd: dict[str, Any], *, exposes_value: bool, hd_side: str
    ) -> None:
        self.rules = rules
        self.r = rnd
        self.id: str = rnd["id"]
        self.exposes = exposes_value
        self.hd_side = hd_side

    # ----- where things stand -----------------------------------------------------

    @property
    def places(self) -> list[tuple[str, int]]:
        return deal_order.slots(self.r)

    @property
    def recognition(self) -> bool:
        return bool(self.r["recognition"])

    @property
    def up_card(self) -> str | None:
        cards = self.r["dealer"]["cards"]
        return cards[0] if cards else None

    def initial_complete(self) -> bool:
        if self.r["phase"] in ("players", "dealer"):
            return True
        slack = self.r["slack"]
        return (
            self.r["phase"] == "initial"
            and self.r["place"] >= len(self.places) - slack
            and (bool(slack) or deal_order.initial_finished(self.r))
        )

    def peek_needed(self) -> bool | None:
        up = self.up_card
        return needs_peek(up) if up is not None else None

    def peek_pending(self) -> bool:
        return self.peek_needed() is True and self.r["peek"] is None

    def dealer_blackjack(self) -> bool:
        cards = self.r["dealer"]["cards"][:2]
        if None not in cards and len(cards) == 2:
            return count_hand(cards).blackjack
        return bool(self.r["peek"] and self.r["peek"]["blackjack"])

    def hand(self, box: int, index: int) -> dict[str, Any] | None:
        return next((h for h in self.r["hands"] if h["box"] == box and h["hand"] == index), None)

    # ----- cards ------------------------------------------------------------------

    def card(self, card: str | None, side: str | None) -> list[Decision]:
        """Place one drawn card (already past burn and face-up checks)."""
        out: list[Decision] = []
        if card is not None and self.rules.spanish21 and card[0] == "T":
            out.append(
                violation(
                    self.rules,
                    "no_tens",
                    "ten_in_spanish21",
                    self.id,
                    card=card,
                    detail="Spanish 21 decks hold no tens",
                )
            )
        phase = self.r["phase"]
        if phase == "determinant":
            return out + self._determinant(card, side)
        if self.r["side"] is not None and side != self.r["side"] and not self.r["wrong_side"]:
            self.r["wrong_side"] = True
            out.append(
                violation(
                    self.rules,
                    "wrong_side",
                    "dealt_from_wrong_side",
                    self.id,
                    dealt_from=side,
                    round_side=self.r["side"],
                    detail="the round is treated as dealt from the right side and concluded",
                )
            )
        if phase == "initial":
            target = deal_order.initial_target(self.r)
            if target is None:  # a player's option under § 549.16(g) is awaited
                return out + self._hold(card, None)
            return out + self._initial(card, target)
        if phase == "dealer":
            return out + self._dealer_card(card)
        self.r["phase"] = "players"
        if self.peek_pending() and not self.r["peek_late"]:
            self.r["peek_late"] = True
            out.append(
                violation(
                    self.rules,
                    "peek",
                    "card_before_peek",
                    self.id,
                    up_card=self.up_card,
                    detail="the dealer checks the hole card before dealing any additional card",
                )
            )
        self.r["player_cards"] += 1
        return out + self._player_card(card)

    def _determinant(self, card: str | None, side: str | None) -> list[Decision]:
        self.r["phase"] = "initial"
        if card is None:
            self.r["slack"] = 1
            self.r["determinant"] = {"card": None, "drawn_from": side, "used_as": "unknown"}
            return []
        round_side = suit_side(card, self.hd_side)
        self.r["side"] = round_side
        used = side == round_side
        self.r["determinant"] = {
            "card": card,
            "drawn_from": side,
            "side": round_side,
            "used_as": "first_card" if used else "segregated",
        }
        return self._initial(card, ("slot", 0)) if used else []

    def _initial(self, card: str | None, target: tuple[str, Any]) -> list[Decision]:
        """A card of the initial deal: its slot of § 549.7(e), else a card owed after
        the slots (a (g) second card, the dealer's missed cards, `deal_order`)."""
        kind, which = target
        slot = None
        if kind == "slot":
            slot, (kind, which) = which, self.places[which]
            self.r["place"] = slot + 1
            if kind == "box":
                which = self.hand(which, 0)
        out = self._put(card, which if kind != "dealer" else None, slot=slot)
        deal_order.skip_deferred(self.r)
        return out + deal_order.close_initial(self.rules, self.r, self.id)

    def _put(
        self,
        card: str | None,
        hand: dict[str, Any] | None,
        *,
        slot: int | None = None,
        hit_for: dict[str, Any] | None = None,
    ) -> list[Decision]:
        """Put a card on a hand (None: the dealer's) and remember where, for `card_to`."""
        self.r["last"] = {
            "card": card,
            "at": deal_order.place_key(hand),
            "pile": "cards",
            "slot": slot,
            "hit_for": deal_order.place_key(hit_for) if hit_for is not None else None,
        }
        if hand is None:
            dealer = self.r["dealer"]["cards"]
            dealer.append(card)
            if len(dealer) == 1 and card is not None:
                return [self._dealer_event(revealed=False)]
            return []
        hand["cards"].append(card)
        return self._hand_event(hand)

    def _player_card(self, card: str | None) -> list[Decision]:
        target = deal_order.owed_target(self.r)
        if target is not None:
            target["owed"] -= 1
            target["deferred"] = False
            return self._put(card, target, hit_for=target)
        return self._hold(card, self.r["last_named"])

    def _hold(self, card: str | None, named: list[int] | None) -> list[Decision]:
        """A card no place is owed: drawn in error, used as the next card (§ 549.16(b))."""
        hand = self.hand(*named) if named else None
        key, why = self._why_no_card(hand)
        # § 549.16(b), (c): a card drawn in error is used as though it were the next card
        # from the shoe: held for the next hand that draws, else the dealer, else the
        # discard rack (`serve_held`, `Round.dealer_turn`).
        self.r.setdefault("held", []).append(card)
        self.r["last"] = {"card": card, "at": None, "pile": "held", "slot": None, "hit_for": None}
        where = {"box": hand["box"], "hand": hand["hand"]} if hand else {}
        return [
            violation(
                self.rules,
                key,
                "card_not_called_for",
                self.id,
                card=card,
                **where,
                detail=f"{why}: the card is drawn in error and used as the next card",
                counted=False,
                used_as="next_card",
                used_as_rule=self.rules.cite("drawn_in_error"),
            )
        ]

    def serve_held(self) -> list[Decision]:
        """Give the cards drawn in error, oldest first, to the hands now owed a card, as
        though each were the next card from the shoe (§ 549.16(b), (c))."""
        out: list[Decision] = []
        held = self.r.get("held") or []
        last = self.r.get("last") or {}
        while held:
            target = deal_order.owed_target(self.r)
            if target is None:
                break
            target["owed"] -= 1
            target["deferred"] = False
            card = held.pop(0)
            if held or last.get("pile") != "held":
                target["cards"].append(card)
                out += self._hand_event(target)
            else:  # the last card drawn: `card_to` may still move it
                out += self._put(card, target, hit_for=target)
        return out

    def _why_no_card(self, hand: dict[str, Any] | None) -> tuple[str, str]:
        if hand is None:
            return "player_cards", "no player's decision called for this card"
        if hand["doubled"]:
            return "double", "a doubled hand receives one additional card only"
        if hand["split_aces"] and self.rules.applies("split_aces"):
            return "split_aces", "a split ace receives one card only"
        if None not in hand["cards"]:
            count = hand_count(hand)
            if count.blackjack or count.total == 21:
                return "player_draw", "a hand of 21 or Blackjack may not draw"
        return "player_cards", "no player's decision called for this card"

    def _dealer_card(self, card: str | None) -> list[Decision]:
        dealer = self.r["dealer"]
        if card is not None and None not in dealer["cards"]:
            count = count_hand(dealer["cards"])
            reason = None
            if dealer_must_stand(count):
                reason = ("dealer_draw", "dealer_drew_at_17_or_more")
            elif not any(is_live(h) for h in self.r["hands"]):
                reason = ("dealer_no_effect", "dealer_drew_without_effect")
            if reason:
                dealer["not_counted"].append(card)
                return [
                    violation(
                        self.rules,
                        reason[0],
                        reason[1],
                        self.id,
                        card=card,
                        dealer=count.to_dict(),
                        counted=False,
                        not_counted_rule=self.rules.cite("dealer_17_card"),
                    )
                ]
        dealer["cards"].append(card)
        return [self._dealer_event(revealed=True)] if card is not None else []

    def _hand_event(self, hand: dict[str, Any]) -> list[Decision]:
        if not self.recognition or None in hand["cards"]:
            return []
        body = {"box": hand["box"], "hand": hand["hand"], **hand_count(hand).to_dict()}
        return [ruled(self.rules, EventType.BLACKJACK_HAND, "values", self.id, **body)]

    def _dealer_event(self, *, revealed: bool) -> Decision:
        cards = self.r["dealer"]["cards"] if revealed else self.r["dealer"]["cards"][:1]
        body = {**count_hand(cards).to_dict(), "hole_card": "revealed" if revealed else "down"}
        return ruled(self.rules, EventType.BLACKJACK_DEALER_HAND, "values", self.id, **body)

    # ----- the card reader --------------------------------------------------------

    def peek(self, data: dict[str, Any]) -> Step:
        step = Step()
        blackjack = data.get("blackjack")
        if self.r["peek"] is not None:
            step.decisions.append(violation(self.rules, "peek", "second_peek", self.id))
            return step
        if not self.initial_complete():
            step.decisions.append(
                violation(
                    self.rules,
                    "peek",
                    "peek_before_hole_card",
                    self.id,
                    detail="the hole card is checked after the initial deal",
                )
            )
        elif self.r["player_cards"] > 0 or self.r["phase"] == "dealer":
            step.decisions.append(
                violation(
                    self.rules,
                    "peek",
                    "peek_after_player_cards",
                    self.id,
                    detail="the hole card is checked before any additional card is dealt",
                )
            )
        self.r["peek"] = {"blackjack": blackjack is True}
        if self.r["phase"] == "initial" and self.r["slack"]:
            self.r["phase"] = "players"
        up = self.up_card
        body = {"blackjack": blackjack is True, "up_card": up, "needed": self.peek_needed()}
        if blackjack is True:
            body["hole_card"] = data.get("hole_card")
        step.decisions.append(ruled(self.rules, EventType.BLACKJACK_PEEK, "peek", self.id, **body))
        if up is not None and not needs_peek(up):
            if self.exposes:
                step.action = "void"
                return step
            step.decisions.append(
                violation(
                    self.rules,
                    "peek_hidden",
                    "peek_on_other_card",
                    self.id,
                    up_card=up,
                    notify="floorperson",
                    detail="the reader does not expose the hole card: play continues",
                )
            )
            return step
        dealer = self.r["dealer"]["cards"]
        if len(dealer) == 2 and None not in dealer:
            actual = count_hand(dealer).blackjack
            if actual != (blackjack is True):
                step.action = "halt"
        return step
