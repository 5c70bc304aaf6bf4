"""The demo's dice crews (CR-01's dealer, stickperson and boxperson; PG-01's dealer), and
the `Crew` that also seats WR-01's (`war_dealer`).

Each seat acts only on the table's messages, in order, and throws the dice by hand
(`dice_tables.DeviceHand`) only once the table has recorded what the script expects
before the throw: a new shooter's Fire Bet and the shooter's acceptance of the dice
before the dice are selected, the selection before the come out, each decision (or
voided throw) before the next throw. Nothing depends on a device outrunning a command.

At Craps each call is signed by the person chapter 537 names (`CALLERS` of
`floord.engine.craps.roles`): the dealer brings in the Fire Bet (§ 537.12(a)(3)), the
stickperson offers the dice to the shooter (§ 537.11(c)), and the boxperson calls
"no roll" on a throw held because the dice left the hand apart (§ 537.9(b)(1), (d)(1))
and on the roll floord called for the throw he considers improper (`IMPROPER_THROW`,
§ 537.9(b)(6)), which reverses it.
At Pai Gow the dealer deals from the position the shake named (§ 535.2(d)) and ends the
hand, and the dealer shakes again once the hand has ended.
"""

from __future__ import annotations

import asyncio
from typing import Any

from floord_demo.dealer import Seat, VirtualDealer
from floord_demo.dice_tables import (
    FIRE_BET,
    GAP_S,
    IMPROPER_THROW,
    SHOOTER_SEATS,
    SHOOTER_THROWS,
    DeviceHand,
    select_step,
    shake_steps,
)
from floord_demo.hand_seat import ROUND_OVER, HandSeat, Send
from floord_demo.war_dealer import WarSeat


class CrapsSeat(HandSeat):
    """CR-01's crew: each shooter from the Fire Bet to the loser 7, `SHOOTER_THROWS`."""

    def __init__(self, table: str, send: Send, hand: DeviceHand | None, gap_s: float) -> None:
        super().__init__(table, send, hand, gap_s)
        self.shooting = False  # a shooter is being brought in or has the dice
        self.shooters = 0
        self.throw = 0  # the next of SHOOTER_THROWS

    async def on_state(self, state: dict[str, Any]) -> None:
        await super().on_state(state)
        if not self.shooting and self.is_open() and state.get("shooter") is None:
            await self.new_shooter()

    async def new_shooter(self) -> None:
        """§ 537.12(a)(1): the Fire Bet before the come out; then the dice offered."""
        self.shooting = True
        seat = SHOOTER_SEATS[self.shooters % len(SHOOTER_SEATS)]
        self.shooters += 1
        self.throw = 0
        if not await self.command("fire_bet", dict(FIRE_BET)):
            self.shooting = False
            return
        if not await self.command("shooter", {"seat": seat}):
            self.shooting = False
            return
        await self.give(select_step())  # the throws start once the table has the selection

    async def next_throw(self) -> None:
        await asyncio.sleep(self.gap_s)
        if self.throw < len(SHOOTER_THROWS):
            step = SHOOTER_THROWS[self.throw]
            self.throw += 1
            await self.give(step)

    async def on_event(self, event: dict[str, Any]) -> None:
        kind, data = event.get("type"), event.get("data") or {}
        if kind == "craps.dice" and data.get("action") == "selected" and self.shooting:
            await self.next_throw()
        elif kind == "craps.throw_held":
            # § 537.9(b)(1): the dice left the hand apart; the boxperson calls "no roll".
            await asyncio.sleep(self.gap_s)
            await self.command("no_roll", {"reason": "not_together"})
        elif kind == "craps.shooter" and data.get("action") == "passed":
            await asyncio.sleep(self.gap_s)
            await self.new_shooter()
        elif kind == "round.ended" and self.improper_called():
            # § 537.9(b)(6): the boxperson considers the throw improper; floord called it,
            # so his "no roll" reverses the roll (its round.voided brings the next throw).
            await asyncio.sleep(self.gap_s)
            await self.command(
                "no_roll", {"reason": "improper", "detail": "the dice were slid, not thrown"}
            )
        elif kind == "round.voided" or (kind == "round.ended" and data.get("outcome") != "loser_7"):
            await self.next_throw()

    def improper_called(self) -> bool:
        """The roll just called was of the throw the boxperson judges improper."""
        return self.throw > 0 and SHOOTER_THROWS[self.throw - 1] is IMPROPER_THROW


class PaiGowSeat(HandSeat):
    """PG-01's dealer: a shake before each hand, the deal from the position it named."""

    def __init__(self, table: str, send: Send, hand: DeviceHand | None, gap_s: float) -> None:
        super().__init__(table, send, hand, gap_s)
        self.shaken = False  # a shake whose hand has not ended yet
        self.hands = 0

    async def on_state(self, state: dict[str, Any]) -> None:
        await super().on_state(state)
        if not self.shaken and self.is_open() and state.get("round") is None:
            await self.shake()

    async def shake(self) -> None:
        self.shaken = True
        steps = shake_steps()
        step = steps[self.hands % len(steps)]
        self.hands += 1
        await self.give(step)

    async def on_event(self, event: dict[str, Any]) -> None:
        kind, data = event.get("type"), event.get("data") or {}
        if kind == "paigow.deal_position":
            await asyncio.sleep(self.gap_s)
            await self.command("deal", {"from": data.get("position")})
        elif kind == "paigow.dealt":
            await asyncio.sleep(self.gap_s)
            await self.command("round_end")
        elif kind in ROUND_OVER:
            await asyncio.sleep(self.gap_s)
            await self.shake()


# Who signs each call at CR-01 (the rest are the dealer's): chapter 537's persons.
CRAPS_SIGNERS = {"shooter": "stickperson", "no_roll": "boxperson"}


class Crew(VirtualDealer):
    """The crews of the dice tables and the War table (a seat per table, by its game),
    fed the tables' MQTT messages like the dealer; each call signed by the crew member
    whose call it is (`crew`: by role, beside the dealer)."""

    def __init__(
        self,
        *,
        url: str,
        dealer: tuple[str, bytes],
        crew: dict[str, tuple[str, bytes]],
        topics: dict[str, Any],
        games: dict[str, str],
        device_hands: dict[str, DeviceHand],
        gap_s: float = GAP_S,
    ) -> None:
        # The crew members beside the dealer, by role (stickperson, boxperson, floorperson).
        self.crew = crew
        self.device_hands = device_hands
        self.gap_s = gap_s
        super().__init__(
            url=url,
            operator=dealer[0],
            key=dealer[1],
            topics=topics,
            boxes=dict.fromkeys(topics, ()),
            games=games,
        )

    def _seat(self, table: str, game: str, boxes: tuple[int, ...], pace: float) -> Seat:
        hand = self.device_hands.get(table)
        if game == "craps":
            return CrapsSeat(table, self._send, hand, self.gap_s)
        if game == "pai_gow":
            return PaiGowSeat(table, self._send, hand, self.gap_s)
        if game == "war":
            return WarSeat(table, self._send, self.send_as, hand, self.gap_s)
        return super()._seat(table, game, boxes, pace)

    async def _send(
        self,
        table: str,
        name: str,
        args: dict[str, Any],
        signer: tuple[str, bytes] | None = None,
    ) -> dict[str, Any]:
        # At Craps a call that is the stickperson's or the boxperson's is signed by them.
        craps = isinstance(self.seats.get(table), CrapsSeat)
        role = CRAPS_SIGNERS.get(name) if craps else None
        if signer is None and role is not None:
            signer = self.crew[role]
        return await super()._send(table, name, args, signer)

    async def send_as(
        self, role: str, table: str, name: str, args: dict[str, Any]
    ) -> dict[str, Any]:
        """Send a command signed by the crew member of `role`."""
        return await self._send(table, name, args, self.crew[role])
