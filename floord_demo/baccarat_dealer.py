"""The demo's Baccarat dealer: starts each coup and ends it once its cards are out.

The shoe reads every card, so floord calls the coup itself (58 Pa. Code § 545.9 to
§ 545.11); the dealer only tells floord what no device sees: that a coup starts
(`round_start`, once the shoe is loaded and its burn complete, § 545.5(f)), that no
more bets are taken before the first card (`no_more_bets`, § 545.8(c)) and that it is
over (`round_end`). The dealer follows the tableau as the cards come out of the shoe
(`next_card`); when no further card is due it waits a moment before ending the coup,
so a card it draws in error (a third card the tableau forbids) falls inside the coup,
where floord records it as a `procedure.violation`.

Between coups the dealer keeps the next stack ready for the shoe: shuffled (`shuffle`,
§ 545.5(a)), offered to the players from the highest numbered position and cut by the
first who accepts (`cut`, § 545.5(b), (c)); at Mini- and Midibaccarat the floorperson
verifies the feathered stack first (§ 541.5(b), § 543.5(b)), which this demo's Baccarat
table (chapter 545) has not. A stack loaded uncut would not count.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import structlog

from floord.engine.baccarat.tableau import NEXT_NONE, next_card

CUTTER = 9  # the highest numbered position seated at the demo's Baccarat table
CUT_CARDS = 150  # the cover card's place from the top: well inside the eight decks


def coup_ready(state: dict[str, Any]) -> bool:
    """The table's state allows a coup: open, none in play, the shoe loaded and burned,
    no reshuffle or new decks due."""
    shoe = state.get("shoe") or {}
    burn = shoe.get("burn") or {}
    return (
        state.get("state") == "open"
        and state.get("round") is None
        and bool(shoe.get("loaded"))
        and bool(burn.get("done"))
        and not shoe.get("shuffle_required")
        and not shoe.get("new_decks_required")
    )


class BaccaratSeat:
    """One Baccarat table's dealer, fed the table's messages in order."""

    def __init__(
        self, table: str, send: Callable[[str, str, dict[str, Any]], Any], settle_s: float
    ) -> None:
        self.table = table
        self._send = send
        self.settle_s = settle_s
        self.state: dict[str, Any] = {}
        self.in_play = False
        self.round_id: str | None = None
        self.player: list[str] = []
        self.banker: list[str] = []
        self.extra: list[str] = []  # cards drawn when none was due
        self.end_at: float | None = None  # monotonic time to end the coup
        self.stack_ready = False  # a stack shuffled and cut waits for the shoe
        self.log = structlog.get_logger("floord.demo.baccarat_dealer").bind(table=table)

    async def command(self, name: str, args: dict[str, Any] | None = None) -> bool:
        reply = await self._send(self.table, name, args or {})
        if not reply.get("ok"):
            self.log.warning("command refused", name=name, error=reply.get("error"))
            return False
        return True

    def quiet_s(self) -> float | None:
        """Seconds until the dealer acts without a message (None: only on a message)."""
        return None if self.end_at is None else max(0.0, self.end_at - time.monotonic())

    async def on_quiet(self) -> None:
        if self.end_at is not None and time.monotonic() >= self.end_at:
            self.end_at = None
            if await self.command("round_end"):
                self._clear()

    async def on_state(self, state: dict[str, Any]) -> None:
        self.state = state
        if not self.in_play and state.get("round") is None and not self.stack_ready:
            await self.prepare_stack((state.get("cuts") or {}).get("stack"))
        if not self.in_play and coup_ready(state):
            self.in_play = True
            if not await self.command("round_start"):
                self.in_play = False
                return
            # § 545.8(c): "no more bets" is announced, on the record, before any card.
            await self.command("no_more_bets")

    async def prepare_stack(self, stack: Any) -> None:
        """Shuffle and cut the next stack: the player in the highest numbered position
        accepts the cut (§ 545.5(b)), the cover card well inside the stack (c)."""
        if not isinstance(stack, dict) and not await self.command("shuffle"):
            return
        cut = {"cards": CUT_CARDS, "by": "player", "box": CUTTER}
        already = isinstance(stack, dict) and stack.get("cut") is not None
        self.stack_ready = already or await self.command("cut", cut)

    async def on_event(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "shoe.loaded":
            self.stack_ready = False  # the stack went into the shoe: prepare the next
        if not self.in_play:
            return
        if kind == "round.started" and self.round_id is None:
            self.round_id = event.get("round")
        elif kind in ("round.voided", "round.ended") and event.get("round") == self.round_id:
            self._clear()
        elif kind == "shoe.card_drawn" and self.round_id is not None:
            card = (event.get("data") or {}).get("card")
            if not isinstance(card, str):
                return
            due = next_card(self.player, self.banker)
            if due == NEXT_NONE:
                self.extra.append(card)
            else:
                (self.player if due in ("player", "player_third") else self.banker).append(card)
            if next_card(self.player, self.banker) == NEXT_NONE:
                self.end_at = time.monotonic() + self.settle_s

    def _clear(self) -> None:
        self.in_play = False
        self.round_id = None
        self.player, self.banker, self.extra = [], [], []
        self.end_at = None
