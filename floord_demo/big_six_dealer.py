"""The demo's Big Six dealer: calls "no more bets" (`spin`) before each spin.

A Big Six round opens on the dealer's call, which floord records before the wheel is
spun (58 Pa. Code § 533.2(a)). The dealer calls when the table's state shows it open with
no round in play, and spins the wheel by hand (`hand`, `big_six_table.BigSixHand`) only
once the table has answered that it recorded the call; a void spin (§ 533.2(b), the
second § 533.2(c)) ends its round and the dealer calls again for the re-spin. The call is
a signed command, role dealer, like a person's.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from floord_demo.seat import CommandSeat

ROUND_OVER = ("round.ended", "round.voided")


class BigSixSeat(CommandSeat):
    """One Big Six table's dealer, fed the table's state and events in order."""

    def __init__(
        self,
        table: str,
        send: Callable[[str, str, dict[str, Any]], Any],
        hand: Callable[[], str] | None = None,
        gap_s: float = 0.0,
    ) -> None:
        super().__init__(table, send, "floord.demo.dealer")
        # The dealer's hand on the wheel (None: someone else spins it) and the pause
        # after a rest before the next call, so a watcher sees each result.
        self.hand = hand
        self.gap_s = gap_s
        self.state: dict[str, Any] = {}
        # A call of ours whose round has not ended yet: a state published before the call
        # was taken still shows no round, and must not make the dealer call twice.
        self.called = False

    async def on_state(self, state: dict[str, Any]) -> None:
        self.state = state
        await self.advance()

    async def on_event(self, event: dict[str, Any]) -> None:
        if event.get("type") in ROUND_OVER:
            self.called = False
            await asyncio.sleep(self.gap_s)
            await self.advance()

    def may_call(self) -> bool:
        """Open, no round in play, the wheel not turning on a spin nobody called."""
        state = self.state
        return (
            not self.called
            and state.get("state") == "open"
            and state.get("round") is None
            and state.get("unannounced") is None
        )

    async def advance(self) -> None:
        if not self.may_call():
            return
        self.called = True
        reply = await self._send(self.table, "spin", {})
        if not reply.get("ok"):
            self.called = False
            self.log.warning("spin refused", error=reply.get("error"))
            return
        if self.hand is not None:
            spun = self.hand()
            if not spun.startswith("ok"):
                self.log.warning("the wheel did not spin", reply=spun)
