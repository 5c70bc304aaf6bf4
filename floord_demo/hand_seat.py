"""A demo seat that plays a table's device by hand (`dice_tables.DeviceHand`): the dice
tables' crews (`dice_dealer`) and the War dealer (`war_dealer`) build on it.

A step for the device waits while the table is not open (halted, say) and is played
once it is open again, so a hand never acts on a table that would not take it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from floord_demo.dice_tables import DeviceHand
from floord_demo.seat import CommandSeat

Send = Callable[[str, str, dict[str, Any]], Any]
ROUND_OVER = ("round.ended", "round.voided")


class HandSeat(CommandSeat):
    """A seat that plays its device by hand, and only while its table is open."""

    def __init__(self, table: str, send: Send, hand: DeviceHand | None, gap_s: float) -> None:
        super().__init__(table, send, "floord.demo.dealer")
        self.hand = hand
        self.gap_s = gap_s
        self.state: dict[str, Any] = {}
        # A throw the script is ready for, kept while the table is not open (halted).
        self.due: dict[str, Any] | None = None

    def is_open(self) -> bool:
        return self.state.get("state") == "open"

    async def give(self, step: dict[str, Any]) -> None:
        """Play `step` on the dice now if the table is open, else once it is again."""
        if not self.is_open():
            self.due = step
            return
        self.due = None
        if self.hand is None:
            return
        reply = self.hand.give(step)
        if not reply.startswith("ok"):
            self.log.warning("the dice did not go", step=step, reply=reply)

    async def on_state(self, state: dict[str, Any]) -> None:
        self.state = state
        if self.due is not None and self.is_open():
            await self.give(self.due)
