"""What every demo participant does the same way: send a signed command as its operator.

The dealers' seats and the floorperson reach the tables exactly as a person's client
would (signed commands through the broker, no broker login, five seconds to answer), and
a seat logs a refusal the same way whatever its game. Kept here once so the seats differ
only in how they play.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import structlog

from floord.contract import Topics
from floord.operator.client import send_command


async def send_signed(
    *, url: str, operator: str, key: bytes, topics: Topics, name: str, args: dict[str, Any]
) -> dict[str, Any]:
    """Send one signed command to the table of `topics` and return its result body."""
    return await send_command(
        url=url,
        username=None,
        password=None,
        topics=topics,
        name=name,
        by=operator,
        key=key,
        args=args,
        timeout_s=5.0,
    )


class CommandSeat:
    """One table's seat that acts only on the table's messages: `command` sends through
    `send(table, name, args)` and logs a refusal; there is nothing to do when quiet."""

    def __init__(
        self, table: str, send: Callable[[str, str, dict[str, Any]], Any], logger: str
    ) -> None:
        self.table = table
        self._send = send
        self.log = structlog.get_logger(logger).bind(table=table)

    async def command(self, name: str, args: dict[str, Any] | None = None) -> bool:
        reply = await self._send(self.table, name, args or {})
        if not reply.get("ok"):
            self.log.warning("command refused", name=name, args=args, error=reply.get("error"))
            return False
        return True

    def quiet_s(self) -> float | None:
        """A seat that acts only on the table's messages asks for no quiet callback."""
        return None

    async def on_quiet(self) -> None:
        return None
