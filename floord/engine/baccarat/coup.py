"""A coup in play, called card by card as the shoe deals it.

The round in play is a plain dict (kept by `RoundBook`, so it is in the snapshot); this
module reads and updates it. Each card read by a card-recognition shoe goes to the hand
the rules name next: the initial four alternately Player, Banker (§ 54x.9(c)), then a
third card to the Player's Hand, then to the Banker's (§ 54x.10(c)), as the drawing
rules require (§ 54x.11, `baccarat_tableau`). A card the rules forbid is a
`procedure.violation` the moment it leaves the shoe, and is not counted; a card the
rules require and that never came is one when the dealer ends the coup, which then has
no result (the chapters' irregularity rules are not in floord's sources: surveillance
and the floorperson settle it). A shoe that does not read cards (or a card it could not
read) leaves the coup uncalled: floord counts its cards, at most six.
"""

from __future__ import annotations

from typing import Any

from floord.contract import EventType
from floord.engine.baccarat.rules import BaccaratRules
from floord.engine.baccarat.settle import settle
from floord.engine.baccarat.tableau import (
    BANKER,
    NEXT_BANKER_THIRD,
    NEXT_NONE,
    NEXT_PLAYER_THIRD,
    PLAYER,
    is_natural,
    next_card,
    player_draws,
    point_count,
    why_no_card,
)
from floord.engine.core.rulings import STRICT_POLICY, policy_decision, ruled, violation
from floord.engine.core.types import Decision

MAX_CARDS = 6  # two hands of at most three cards (§ 54x.10(d))


def new_coup(*, recognition: bool) -> dict[str, Any]:
    """The round fields of a new coup."""
    return {
        "player": [],
        "banker": [],
        "called": recognition,
        "dealt": 0,
        "not_counted": [],
        "violations": [],
        "cover_card": False,
        "last_hand": False,
        "no_more_bets": None,
    }


def draw_status(player: list[Any], banker: list[Any]) -> dict[str, str]:
    """Each hand's third card: "undecided", "due", "stands" or "drew"."""
    if len(player) + len(banker) < 4:
        return {PLAYER: "undecided", BANKER: "undecided"}
    if is_natural(player[:2]) or is_natural(banker[:2]):
        return {PLAYER: "stands", BANKER: "stands"}
    status = {PLAYER: "drew" if len(player) == 3 else "stands", BANKER: "stands"}
    if len(player) == 2 and player_draws(point_count(player)):
        status[PLAYER] = "due"
    if len(banker) == 3:
        status[BANKER] = "drew"
    elif status[PLAYER] == "due":
        status[BANKER] = "undecided"
    elif next_card(player, banker) == NEXT_BANKER_THIRD:
        status[BANKER] = "due"
    return status


class Coup:
    """The round in play `r` with the rules of its table."""

    def __init__(self, rules: BaccaratRules, r: dict[str, Any]) -> None:
        self.rules = rules
        self.r = r

    @property
    def id(self) -> str:
        return str(self.r["id"])

    def no_more_bets(self, by: str, at: str) -> str | None:
        """The dealer's "no more bets": None when taken, else why it is refused."""
        if self.r.get("no_more_bets") is not None:
            return "no more bets was already announced for this coup"
        if self._cards_seen():
            return "no more bets is announced prior to dealing any cards"
        self.r["no_more_bets"] = {"by": by, "at": at}
        return None

    def _cards_seen(self) -> int:
        return int(self.r["dealt"]) + len(self.r["not_counted"])

    def _unannounced(self, card: str | None) -> list[Decision]:
        """The first card of a coup dealt before "no more bets" (§ 543.9(b), § 545.8(c))."""
        if self.r.get("no_more_bets", True) is not None or self._cards_seen():
            return []
        return [
            self._violation(
                "no_more_bets",
                "card_before_no_more_bets",
                card,
                detail='the first card of the coup was dealt before "no more bets" was on '
                "the record (the dealer's no_more_bets)",
            )
        ]

    def card(self, card: str | None) -> list[Decision]:
        """A card dealt from the shoe during the coup."""
        return [*self._unannounced(card), *self._card(card)]

    def _card(self, card: str | None) -> list[Decision]:
        if card is not None and self.r["called"]:
            return self._called_card(card)
        out: list[Decision] = []
        if card is None and self.r["called"]:
            self.r["called"] = False
            out.append(
                policy_decision(
                    EventType.TABLE_WARNING,
                    STRICT_POLICY,
                    self.id,
                    what="card_not_read",
                    detail="the shoe dealt a card it did not read: floord counts this coup's "
                    "cards but cannot call it",
                )
            )
        if self.r["dealt"] >= MAX_CARDS:
            self.r["not_counted"].append(card)
            return [*out, self._violation("one_more_card", "seventh_card", card)]
        self.r["dealt"] += 1
        return out

    def _called_card(self, card: str) -> list[Decision]:
        player, banker = self.r["player"], self.r["banker"]
        nxt = next_card(player, banker)
        if nxt == NEXT_NONE:
            self.r["not_counted"].append(card)
            key = "one_more_card" if len(player) == 3 and len(banker) == 3 else "drawing_rules"
            return [
                self._violation(
                    key,
                    "third_card_not_allowed",
                    card,
                    detail=f"{why_no_card(player, banker)}: the card is not counted",
                    player=list(player),
                    banker=list(banker),
                )
            ]
        hand = PLAYER if nxt in (PLAYER, NEXT_PLAYER_THIRD) else BANKER
        cards = player if hand == PLAYER else banker
        cards.append(card)
        self.r["dealt"] += 1
        key = "deal_order" if self.r["dealt"] <= 4 else "drawing_rules"
        body: dict[str, Any] = {
            "hand": hand,
            "card": card,
            "position": len(cards),
            "cards": list(cards),
            "total": point_count(cards),
            "natural": is_natural(cards),
            "third_card": draw_status(player, banker),
            "next": next_card(player, banker),
        }
        return [ruled(self.rules, EventType.BACCARAT_HAND, key, self.id, **body)]

    def _violation(self, key: str, what: str, card: str | None, **data: Any) -> Decision:
        self.r["violations"].append(what)
        return violation(self.rules, key, what, self.id, card=card, **data)

    def finish(self) -> tuple[str, list[Decision]]:
        """`round_end`: (outcome, decisions): "result", "irregular" or "not_called"."""
        player, banker = self.r["player"], self.r["banker"]
        if not self.r["called"]:
            if self.r["dealt"] >= 4:
                return "not_called", []
            missing = self._missing("deal_order", 4 - self.r["dealt"], "initial four cards")
            return "not_called", [missing]
        nxt = next_card(player, banker)
        if nxt in (PLAYER, BANKER):
            missing = self._missing("deal_order", 4 - self.r["dealt"], "initial four cards")
            return "irregular", [missing]
        if nxt != NEXT_NONE:
            hand = "Player's" if nxt == NEXT_PLAYER_THIRD else "Banker's"
            return "irregular", [
                self._missing("drawing_rules", 1, f"third card of the {hand} Hand", due=nxt)
            ]
        body = settle(self.rules, player, banker)
        body["irregularities"] = list(self.r["violations"])
        return "result", [ruled(self.rules, EventType.BACCARAT_RESULT, "wagers", self.id, **body)]

    def _missing(self, key: str, count: int, what: str, **data: Any) -> Decision:
        self.r["violations"].append("card_missing")
        return violation(
            self.rules,
            key,
            "card_missing",
            self.id,
            missing=count,
            detail=f"the coup was ended without the {what} the rules require: no result is "
            "called; the floorperson settles the coup",
            player=list(self.r["player"]),
            banker=list(self.r["banker"]),
            **data,
        )
