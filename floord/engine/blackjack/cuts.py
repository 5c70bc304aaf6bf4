"""The cut of each stack before it goes into the shoe (Blackjack § 549.6(b)-(d), (f);
Spanish 21 § 551.5(b)-(d), (f)).

After the shuffle the dealer offers the stack to the player (b) designates: the first
player to the table when the game begins (b)(1), the player on whose box the cutting
card appeared in the last round (b)(2), the farthest right player when it appeared on
the dealer's hand (b)(3) or when a floorperson ordered the reshuffle (b)(4); then each
other player clockwise; if none accepts, the dealer cuts (c), the cutting card at least
10 cards from the top or the bottom (d). The dealer's `cut` records it, per side of a
double shoe; `round_end {cutting_card_at}` says where the cutting card appeared. A
floorperson's `recut` strikes a cut before any card of it is dealt (f): at Blackjack by
the player who last cut or the (b)(4) player, the certificate holder's option; at
Spanish 21 by the next player entitled under (c). A stack loaded with no cut on record
is a violation and does not count. The order and the size are `cut_offer`'s; the
commands are `cut_commands`'.
"""

from __future__ import annotations

from typing import Any

from floord.engine.blackjack.rules import GameRules
from floord.engine.cards.cut_offer import counted_problem, offer
from floord.engine.core.rulings import violation
from floord.engine.core.snapshots import restore_fields, snapshot_fields
from floord.engine.core.types import Decision

FARTHEST_RIGHT = "the player at the farthest point to the right of the dealer"
# Why the next cut is offered to whom -> (the key of its paragraph, the player in words).
OFFERS = {
    "first_player": ("offer_first", "the first player to the table"),
    "cutting_card_box": ("offer_box", "the player on whose box the cutting card appeared"),
    "cutting_card_dealer": ("offer_dealer", FARTHEST_RIGHT),
    "reshuffle": ("offer_reshuffle", FARTHEST_RIGHT),
}


def next_offer(rules: GameRules, why: str, box: int | None = None) -> dict[str, Any]:
    key, to = OFFERS[why]
    return offer(why, to, rules.cite(key), box)


class CutBook:
    """Whom the next cut is offered to, the cut of each side's next stack, the last cut."""

    FIELDS = ("offer", "pending", "last")

    def __init__(self, rules: GameRules, sides: tuple[str, ...]) -> None:
        self.rules = rules
        self.offer: dict[str, Any] = next_offer(rules, "first_player")
        self.pending: dict[str, dict[str, Any] | None] = {side: None for side in sides}
        self.last: dict[str, Any] | None = None

    def load(self, side: str, cards: object, round_id: str | None) -> tuple[bool, list[Decision]]:
        """A stack placed in `side`: (whether it counts, decisions). It counts only with a
        cut on record; a shoe that counts it checks the cut again (d)."""
        cut = self.pending.get(side)
        where = None if side == "shoe" else side
        if cut is None:
            detail = "the stack is offered to the players and cut before it goes into the shoe"
            return False, [
                violation(
                    self.rules,
                    "offer",
                    "stack_not_cut",
                    round_id,
                    side=where,
                    detail=f"{detail}: the load does not count",
                )
            ]
        self.pending[side] = None
        self.last = {**cut, "side": side, "drawn": False}
        if (problem := counted_problem(cut, cards)) is None:
            return True, []
        what = problem.pop("what")
        return True, [violation(self.rules, "cut_cards", what, round_id, side=where, **problem)]

    def reset(self, why: str, box: int | None = None) -> None:
        """New decks, a floorperson's reshuffle: the cuts on record go; the offer is `why`'s."""
        self.offer = next_offer(self.rules, why, box)
        self.pending = dict.fromkeys(self.pending)

    def snapshot(self) -> dict[str, Any]:
        return snapshot_fields(self, self.FIELDS)

    def restore(self, body: object) -> None:
        if not isinstance(body, dict):
            return  # a snapshot from before cuts were recorded: the defaults stand
        restore_fields(self, self.FIELDS, body)
