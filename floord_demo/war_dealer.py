"""The demo's War crew: WR-01's dealer, and its floorperson's part in the decks.

New decks are a receipt the floorperson records (`decks_received`, not preinspected,
§ 567.4(e)); the dealer sorts and inspects each deck separately, the floorperson
verifies (§ 567.4(a)); the dealer shuffles by hand (§ 567.5(a)) and the first player
cuts (§ 567.5(b)(1), (d)); only then does the hand place the stack in the shoe
(§ 567.5(e)). Each round: `round_start`, the hand draws the round's cards once the table
has recorded the start, and `round_end` once the table has recorded every card. Each
step waits for the table's answer, so no card is dealt before its round is on record.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from floord_demo.dice_tables import DeviceHand
from floord_demo.hand_seat import HandSeat, Send
from floord_demo.war_table import (
    BOXES,
    COVER_BOX,
    CUT_CARDS,
    DECKS,
    ROUNDS_PER_SHOE,
    cover_card_step,
    draw_step,
    load_step,
)

SendAs = Callable[[str, str, str, dict[str, Any]], Any]  # role, table, name, args


class WarSeat(HandSeat):
    """WR-01: the decks, the shuffle, the cut, the stack in the shoe, then rounds."""

    def __init__(
        self, table: str, send: Send, send_as: SendAs, hand: DeviceHand | None, gap_s: float
    ) -> None:
        super().__init__(table, send, hand, gap_s)
        self.send_as = send_as
        self.preparing = False  # the decks are on their way into the shoe
        self.loaded = False
        self.drawn = 0  # the cards of the round in play seen
        self.rounds = 0  # rounds started from the stack in the shoe
        self.cover = False  # the cover card came out in the round in play

    async def on_state(self, state: dict[str, Any]) -> None:
        await super().on_state(state)
        if not self.preparing and self.is_open():
            await self.prepare()

    async def as_floorperson(self, name: str, args: dict[str, Any]) -> bool:
        reply = await self.send_as("floorperson", self.table, name, args)
        if not reply.get("ok"):
            self.log.warning("command refused", name=name, error=reply.get("error"))
            return False
        return True

    async def prepare(self) -> None:
        """§ 567.4(a), § 567.5(a)-(e): new decks into the shoe."""
        self.preparing = True
        received = {"preinspected_preshuffled": False, "decks": DECKS}
        steps = [
            self.as_floorperson("decks_received", received),
            self.command("decks_inspected", {"defects_found": False, "decks": DECKS}),
            self.as_floorperson("decks_inspected", {"defects_found": False}),
            self.command("shuffle"),
        ]
        for step in steps:
            if not await step:
                for rest in steps:
                    rest.close()  # the steps not awaited: never sent
                return
        await self.cut_and_load(BOXES[0])

    async def cut_and_load(self, box: int) -> None:
        """§ 567.5(b), (d), (e): the player offered the cut cuts; the stack goes in the shoe."""
        self.loaded = False
        if await self.command("cut", {"cards": CUT_CARDS, "by": "player", "box": box}):
            await self.give(load_step())  # the rounds start once the table has the stack

    async def start_round(self) -> None:
        await asyncio.sleep(self.gap_s)
        self.drawn, self.cover = 0, False
        self.rounds += 1
        if await self.command("round_start", {"boxes": list(BOXES)}):
            await self.give(draw_step())

    async def end_round(self) -> None:
        await asyncio.sleep(self.gap_s)
        if self.cover:
            # § 567.5(b)(2): the end names where the cover card appeared; (g): reshuffle.
            if await self.command("round_end", {"cover_card_at": COVER_BOX}):
                await self.command("shuffle")
                await self.cut_and_load(COVER_BOX)
            return
        await self.command("round_end")

    async def on_event(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "shoe.loaded" and not self.loaded:
            self.loaded = True
            await self.start_round()
        elif kind == "shoe.card_drawn" and self.loaded:
            self.drawn += 1
            if self.drawn < len(BOXES) + 1:
                return
            if self.rounds % ROUNDS_PER_SHOE == 0:
                await self.give(cover_card_step())  # the round ends once it is recorded
            else:
                await self.end_round()
        elif kind == "shoe.cutting_card" and self.loaded:
            self.cover = True
            await self.end_round()
        elif kind == "round.ended" and self.loaded and not self.cover:
            await self.start_round()
