"""The demo's virtual floorperson: inspects and opens tables, resumes them after a halt.

It commands the tables exactly as a person's client would (signed commands through the
broker), so the demo shows the operator path of the contract, refusals included. On a
card table it inspects the card reader (58 Pa. Code § 549.2(e), § 551.2(e); and that the
tens are out of a Spanish 21 deck), or the cards (Baccarat § 545.4, Mississippi Stud
§ 571.4(a), (b)), records the decks opened for use once the table is open (§ 549.3(e),
§ 571.3(c)), verifies the dealer's inspection of new decks (§ 551.4(b), § 571.4(b); at
Blackjack floord's policy, § 549.5(a) naming only the dealer), and after a
halt tries `resume` every second until the devices allow it (a reader that failed must
first be replaced: the refusals show why). On the Big Six
wheel it checks the characteristics of § 533.1 before opening (`big_six_inspection`); on
the Craps table the inspection of `craps_inspection`, once the tracker has reported the
dice at the table (an opening before would be refused, § 537.7(a)); on the Pai Gow table
the § 535.2 characteristics of `pai_gow_inspection`; on the War table § 567.4's
(`war_inspection`; its decks are the War crew's, `war_dealer`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import structlog

from floord.contract import Topics
from floord.engine.big_six.engine import big_six_inspection
from floord.engine.craps.engine import craps_inspection
from floord.engine.pai_gow.rules import PaiGowRules, pai_gow_inspection
from floord.engine.war.rules import WarRules, war_inspection
from floord_demo.dice_tables import COUNT_ORDER, DICE_SET
from floord_demo.seat import SignedOperator
from floord_demo.war_table import DECKS

CHECKLIST = {
    "no_magnet_or_contrivance": True,
    "wheel_level_and_free": True,
    "parts_secure": True,
    "ball_nonmagnetic": True,
    "ball_nonmetallic_and_size": True,
}
CARD_CHECKLIST = {
    "card_reader_untampered": True,
    "card_reader_working": True,
    "cards_inspected": True,
}
# The engines' inspection specs: `baccarat_inspection` (§ 545.4), `stud_inspection`
# (the dealer inspects, the floorperson verifies, § 571.4(a), (b)).
GAME_CHECKLISTS = {
    "baccarat": {"cards_inspected": True},
    "mississippi_stud": {"cards_inspected": True, "cards_verified": True},
}
CARD_GAMES = ("blackjack", "spanish21", *GAME_CHECKLISTS)
# A Big Six wheel: the § 533.1 characteristics its engine asks to be checked.
BIG_SIX_CHECKLIST = dict.fromkeys(big_six_inspection().items, True)
# The crewed tables' inspections: the layout and the tables' own (docs/rules.md); War's
# of § 567.4 (the decks, shuffled by hand).
CREW_CHECKLISTS = {
    "war": dict.fromkeys(war_inspection(WarRules(decks=DECKS)).items, True),
    "craps": dict.fromkeys(craps_inspection().items, True),
    "pai_gow": dict.fromkeys(
        pai_gow_inspection(PaiGowRules(count_order=tuple(COUNT_ORDER))).items, True
    ),
}


def devices_ready(state: dict[str, Any]) -> bool:
    """Every device of the table online and identified: opening would be refused before."""
    devices = (state.get("devices") or {}).values()
    return bool(devices) and all(d.get("online") and d.get("identity") for d in devices)


def may_open(state: dict[str, Any], game: str | None) -> bool:
    """The devices ready, and at Craps the dice at the table on record (§ 537.7(a))."""
    if game == "craps" and len(state.get("dice_set") or []) < len(DICE_SET):
        return False
    return devices_ready(state)


class VirtualFloorperson(SignedOperator):
    def __init__(
        self,
        *,
        url: str,
        operator: str,
        key: bytes,
        topics: dict[str, Topics],
        wheels: dict[str, str],
        state_of: Callable[[str], dict[str, Any] | None],
        resume_after_s: float = 4.0,
        games: dict[str, str] | None = None,
    ) -> None:
        super().__init__(url=url, operator=operator, key=key, topics=topics)
        self.wheels = wheels
        self.state_of = state_of
        self.resume_after_s = resume_after_s
        self.games = dict(games or {})
        # change_decks accepted (a repeat would void the shoe); receipts verified.
        self.decks_recorded: set[str] = set()
        self.verified: set[tuple[str, str]] = set()
        self.log = structlog.get_logger("floord.demo.floorperson")

    async def _send(
        self,
        table: str,
        name: str,
        args: dict[str, Any],
        signer: tuple[str, bytes] | None = None,
    ) -> dict[str, Any]:
        result = await super()._send(table, name, args, signer)
        self.log.debug("command", table=table, name=name, result=result)
        return result

    def checklist(self, table: str) -> dict[str, bool]:
        game = self.games.get(table, "roulette")
        if game == "big_six":
            return dict(BIG_SIX_CHECKLIST)
        if game in CREW_CHECKLISTS:
            return dict(CREW_CHECKLISTS[game])
        if game in GAME_CHECKLISTS:
            return dict(GAME_CHECKLISTS[game])
        if game in CARD_GAMES:
            checklist = dict(CARD_CHECKLIST)
            if game == "spanish21":
                checklist["tens_removed"] = True
            return checklist
        checklist = dict(CHECKLIST)
        if self.wheels.get(table) == "double_zero_as_single":
            checklist["layout_and_signage"] = True
        return checklist

    async def tend(self, table: str) -> None:
        """Keep one table open: inspect and open it, and resume it after each halt."""
        if self.games.get(table) in CARD_GAMES:
            await self.tend_card_table(table)
            return
        while True:
            # An in-process wheel (B6-01, RL-03) waits for its floorperson: look often.
            await asyncio.sleep(0.25 if table in self.games else 1.0)
            state = self.state_of(table)
            if not state:
                continue
            # A wheel whose simulator powers on with the demo (B6-01, RL-03) is opened
            # once its device identified: before, `open` would only be refused.
            closed = state.get("state") == "closed"
            if closed and (table not in self.games or may_open(state, self.games.get(table))):
                await self._open(table)
            elif state.get("state") == "halted":
                await asyncio.sleep(self.resume_after_s)
                await self._send(
                    table, "resume", {"reason": "demo: wheel checked and back in service"}
                )

    async def tend_card_table(self, table: str, poll_s: float = 0.25) -> None:
        """A card table: open it, record its decks, and try to resume it every second."""
        while True:
            await asyncio.sleep(poll_s)
            state = self.state_of(table)
            if not state:
                continue
            # Decks on record: a Blackjack shoe's or a Mississippi Stud table's; a
            # Baccarat table records new decks only when its cover card calls for them.
            game = self.games.get(table)
            decks = state.get("decks" if game == "mississippi_stud" else "shoe") or {}
            needs_decks = game != "baccarat" and not decks.get("decks_opened_at")
            if state.get("state") == "closed" and devices_ready(state):
                await self._open(table)
            elif state.get("state") == "open" and needs_decks and table not in self.decks_recorded:
                if (await self._send(table, "change_decks", {})).get("ok"):
                    self.decks_recorded.add(table)
            elif (receipt := self._to_verify(table, decks.get("receipt"))) is not None:
                # § 551.4(b), § 571.4(b): the floorperson verifies the dealer's inspection.
                self.verified.add((table, receipt))
                await self._send(table, "decks_inspected", {"defects_found": False})
            elif state.get("state") == "halted":
                reply = await self._send(
                    table, "resume", {"reason": "demo: card reader replaced and tested"}
                )
                if not reply.get("ok"):
                    await asyncio.sleep(1.0)

    def _to_verify(self, table: str, receipt: Any) -> str | None:
        """The time of a receipt the dealer inspected that awaits this verification."""
        if not isinstance(receipt, dict) or receipt.get("rejected"):
            return None
        at = receipt.get("received_at")
        waiting = receipt.get("inspected_by") and not receipt.get("verified_by")
        return at if waiting and isinstance(at, str) and (table, at) not in self.verified else None

    async def _open(self, table: str) -> None:
        note = {"checklist": self.checklist(table), "note": "demo"}
        if (await self._send(table, "inspect", note)).get("ok"):
            await self._send(table, "open", {})
