"""What every demo participant does the same way: send signed commands as its operator.

The dealers' seats and the floorperson reach the tables exactly as a person's client
would (signed commands through the broker, no broker login, five seconds to answer), and
a seat logs a refusal the same way whatever its game. A command whose connection the
broker dropped comes back as a failed reply, like a refusal, so the participant carries
on and tries again instead of ending. Kept here once so the seats differ only in how
they play. A card table's dealer also inspects the decks received at the table before
they are used (58 Pa. Code § 549.5(a), § 551.4(a), § 571.4(a)); the floorperson then
verifies them.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

import aiomqtt
import structlog

from floord.contract import Topics
from floord.operator.client import send_command


class SignedOperator:
    """One demo operator (the dealer, the floorperson) commanding the tables of `topics`."""

    def __init__(self, *, url: str, operator: str, key: bytes, topics: dict[str, Topics]) -> None:
        self.url = url
        self.operator = operator
        self.key = key
        self.topics = topics
        self.answer_s = 5.0  # how long a command waits for its broker and its table
        # The demo's stop: no new command leaves once `leave` is called, and the commands
        # already sent are answered first, so none reaches a daemon that is stopping.
        self._leaving = asyncio.Event()
        self._in_flight = 0
        self._idle = asyncio.Event()
        self._idle.set()

    async def leave(self, timeout_s: float) -> None:
        """Send nothing more; wait (at most `timeout_s`) for the answers still due."""
        self._leaving.set()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout_s):
                await self._idle.wait()

    async def _send(
        self,
        table: str,
        name: str,
        args: dict[str, Any],
        signer: tuple[str, bytes] | None = None,
    ) -> dict[str, Any]:
        """Send one signed command to `table` and return its result body, signed by the
        operator or by `signer` (id, key: a crew member beside it); once the operator is
        leaving, wait to be cancelled instead of sending."""
        if self._leaving.is_set():
            await asyncio.Future()  # never done: the demo cancels its operators next
        self._in_flight += 1
        self._idle.clear()
        try:
            return await send_command(
                url=self.url,
                username=None,
                password=None,
                topics=self.topics[table],
                name=name,
                by=signer[0] if signer else self.operator,
                key=signer[1] if signer else self.key,
                args=args,
                timeout_s=self.answer_s,
            )
        except (aiomqtt.MqttError, ConnectionError) as exc:
            # The broker dropped the command's connection: the operator sees the
            # failure and tries again, as a person at a client would. The embedded amqtt
            # broker drops a client that connects while another subscribes.
            return {"ok": False, "error": f"the command did not reach {table}: {exc}"}
        finally:
            self._in_flight -= 1
            if not self._in_flight:
                self._idle.set()


def receipt_in(state: dict[str, Any], where: str) -> dict[str, Any] | None:
    """The decks received at the table and their inspection, as the state shows them
    (`where`: the state's "shoe" at Blackjack, "decks" at Mississippi Stud)."""
    receipt = (state.get(where) or {}).get("receipt")
    return receipt if isinstance(receipt, dict) else None


def receipt_cleared(receipt: dict[str, Any] | None) -> bool:
    """No receipt, or its decks may be used (as `floord.engine.cards.deck_receipt`)."""
    if receipt is None:
        return True
    if receipt.get("rejected"):
        return False
    if receipt.get("preinspected_preshuffled"):
        return True
    return bool(receipt.get("verified_by")) and not parts_to_spread(receipt)


def parts_to_spread(receipt: dict[str, Any]) -> list[dict[str, Any]]:
    """The parts of the decks received the dealer still spreads for the first player
    (`decks_spread`), as the table's state shows them."""
    spread = receipt.get("spread")
    if receipt.get("preinspected_preshuffled") or not isinstance(spread, list):
        return []
    return [dict(e.get("part") or {}) for e in spread if isinstance(e, dict) and not e.get("by")]


class CommandSeat:
    """One table's seat that acts only on the table's messages: `command` sends through
    `send(table, name, args)` and logs a refusal; there is nothing to do when quiet."""

    def __init__(
        self, table: str, send: Callable[[str, str, dict[str, Any]], Any], logger: str
    ) -> None:
        self.table = table
        self._send = send
        self.log = structlog.get_logger(logger).bind(table=table)
        self.inspected: str | None = None  # the receipt (its time) this dealer inspected
        self.spread: str | None = None  # the receipt (its time) this dealer spread

    async def command(self, name: str, args: dict[str, Any] | None = None) -> bool:
        reply = await self._send(self.table, name, args or {})
        if not reply.get("ok"):
            self.log.warning("command refused", name=name, args=args, error=reply.get("error"))
            return False
        return True

    async def inspect_received(self, receipt: dict[str, Any] | None) -> bool:
        """As the dealer, inspect decks received that wait for it, then, once the table
        allows it (after the floorperson's verification where the text says so), spread
        each part for the first player, washed and stacked; once per receipt. True when a
        step was sent."""
        if receipt is None or receipt.get("rejected"):
            return False
        at = receipt.get("received_at")
        if receipt.get("preinspected_preshuffled"):
            return False
        if not receipt.get("inspected_by"):
            if at == self.inspected:
                return False
            self.inspected = at
            await self.command("decks_inspected", {"defects_found": False})
            return True
        owed = parts_to_spread(receipt)
        after = receipt.get("spread_after_verification")
        if not owed or at == self.spread or (after and not receipt.get("verified_by")):
            return False
        self.spread = at
        for part in owed:
            await self.command("decks_spread", {"defects_found": False, "washed": True, **part})
        return True

    def quiet_s(self) -> float | None:
        """A seat that acts only on the table's messages asks for no quiet callback."""
        return None

    async def on_quiet(self) -> None:
        return None
