"""The demo's Big Six dealer: calls "no more bets" (`spin`) before each spin.

A Big Six round opens on the dealer's call, which floord records before the wheel is
spun (58 Pa. Code § 533.2(a)). The wheel's script (`big_six_table`) leaves a pause after
every rest, so the dealer calls as soon as the table's state shows it open with no round
in play; a void spin (§ 533.2(b), the second § 533.2(c)) ends its round and the dealer
calls again for the re-spin. The call is a signed command, role dealer, like a person's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from floord.demo.seat import CommandSeat

ROUND_OVER = ("round.ended", "round.voided")


class BigSixSeat(CommandSeat):
    """One Big Six table's dealer, fed the table's state and events in order."""

    def __init__(self, table: str, send: Callable[[str, str, dict[str, Any]], Any]) -> None:
        super().__init__(table, send, "floord.demo.dealer")
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
