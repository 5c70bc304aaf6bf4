"""The demo's dealer at the manual wheel (RL-03): signs in, then spins.

A manual wheel's dealer is who the dealer signature test (`docs/analytics.md`) groups
release-to-result distances by, so the dealer tells floord they came in with the signed
command `dealer_in` (role dealer). The engine takes it between spins only; the wheel's
scenario (`sensor_wheel`) stands still while the table opens, so the dealer signs in as
soon as the table's state shows it open with no round in play. A refusal (a spin had
started by the time the command arrived) is tried again on a later state.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from floord_demo.seat import CommandSeat


class WheelDealerSeat(CommandSeat):
    """One manual wheel's dealer, fed the table's state and events in order."""

    def __init__(self, table: str, send: Callable[[str, str, dict[str, Any]], Any]) -> None:
        super().__init__(table, send, "floord.demo.dealer")
        self.signed_in = False

    async def on_state(self, state: dict[str, Any]) -> None:
        if self.signed_in or state.get("state") != "open" or state.get("round") is not None:
            return
        reply = await self._send(self.table, "dealer_in", {})
        if reply.get("ok"):
            self.signed_in = True
        else:
            self.log.info("dealer_in refused, trying again", error=reply.get("error"))

    async def on_event(self, event: dict[str, Any]) -> None:
        return None
