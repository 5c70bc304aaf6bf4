"""The demo's Mississippi Stud dealer: runs each round through signed commands.

At a table with an automated shoe (58 Pa. Code § 571.10) the shoe dispenses each box's
two cards and the dealer deals the three community cards from the hand (§ 571.10(c)),
so the dealer tells floord: the boxes with an Ante (`round_start`), "no more bets"
before the shoe deals (§ 571.10(a)(2)), each player's 3rd, 4th and 5th Street decision
(§ 571.11(a), (c), (e)) with "no more bets" after each, the community card turned with
its face (`reveal`, § 571.11(b), (d), (f)), and the end of the round. The demo's players
always play 1x. A round floord voids (the shoe stopped dealing, § 571.13(f)) ends there.
New decks the floorperson records are inspected by this dealer first (`decks_inspected`,
§ 571.4(a)); the floorperson then verifies them (b), and this dealer spreads them for the
first player, washed and stacked (`decks_spread`, § 571.4(b)-(d)).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from floord_demo.card_script import SUITS
from floord_demo.game_scripts import RANKS
from floord_demo.seat import CommandSeat, receipt_cleared, receipt_in


def stud_ready(state: dict[str, Any]) -> bool:
    """The table's state allows a round: open, none in play, decks on record, inspected
    and verified, the shoe loaded with a deck that was shuffled and counted, none jammed
    or removed."""
    decks = state.get("decks") or {}
    states = list((decks.get("decks") or {}).values())
    return (
        receipt_cleared(receipt_in(state, "decks"))
        and state.get("state") == "open"
        and state.get("round") is None
        and bool(decks.get("decks_opened_at"))
        and bool(decks.get("shoe_loaded"))
        and "ready" in states
        and not {"jammed", "removed", "shuffling"} & set(states)
    )


class StudSeat(CommandSeat):
    """One Mississippi Stud table's dealer, fed the table's messages in order."""

    def __init__(
        self,
        table: str,
        boxes: tuple[int, ...],
        send: Callable[[str, str, dict[str, Any]], Any],
        seed: int = 0,
    ) -> None:
        super().__init__(table, send, "floord.demo.stud_dealer")
        self.boxes = list(boxes)
        self.rng = random.Random(seed)
        self.in_play = False
        self.round_id: str | None = None
        self.seen: list[str] = []

    async def on_state(self, state: dict[str, Any]) -> None:
        if await self.inspect_received(receipt_in(state, "decks")):
            return
        if self.in_play or not stud_ready(state):
            return
        self.in_play = True
        if not await self.command("round_start", {"boxes": self.boxes}):
            self.in_play = False
            return
        if not await self.command("no_more_bets"):
            await self.command("round_end")

    async def on_event(self, event: dict[str, Any]) -> None:
        if not self.in_play:
            return
        kind = event.get("type")
        if kind == "round.started" and self.round_id is None:
            self.round_id = event.get("round")
        elif kind in ("round.voided", "round.ended") and event.get("round") == self.round_id:
            self.in_play, self.round_id, self.seen = False, None, []
        elif kind == "shoe.card_drawn" and self.round_id is not None:
            card = (event.get("data") or {}).get("card")
            if isinstance(card, str):
                self.seen.append(card)
            if len(self.seen) == 2 * len(self.boxes):
                await self.play_streets()

    def community(self) -> list[str]:
        """Three cards from the hand, none of them already dealt from the shoe."""
        rest = [r + s for r in RANKS for s in SUITS if r + s not in self.seen]
        return self.rng.sample(rest, 3)

    async def play_streets(self) -> None:
        """3rd, 4th and 5th Street: decisions, no more bets, a community card turned."""
        for n, face in enumerate(self.community(), start=1):
            for box in self.boxes:
                if not await self.command("decision", {"box": box, "action": "play1"}):
                    break
            if not await self.command("no_more_bets"):
                break
            if not await self.command("reveal", {"card": n, "face": face}):
                break
        await self.command("round_end")
