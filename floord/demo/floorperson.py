"""The demo's virtual floorperson: inspects and opens tables, resumes them after a halt.

It commands the tables exactly as a person's client would (signed commands through the
broker), so the demo shows the operator path of the contract, refusals included.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import structlog

from floord.contract import Topics
from floord.operator_client import send_command

CHECKLIST = {
    "no_magnet_or_contrivance": True,
    "wheel_level_and_free": True,
    "parts_secure": True,
    "ball_nonmagnetic": True,
}


class VirtualFloorperson:
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
    ) -> None:
        self.url = url
        self.operator = operator
        self.key = key
        self.topics = topics
        self.wheels = wheels
        self.state_of = state_of
        self.resume_after_s = resume_after_s
        self.log = structlog.get_logger("floord.demo.floorperson")

    async def _send(self, table: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
        result = await send_command(
            url=self.url,
            username=None,
            password=None,
            topics=self.topics[table],
            name=name,
            by=self.operator,
            key=self.key,
            args=args,
            timeout_s=5.0,
        )
        self.log.debug("command", table=table, name=name, result=result)
        return result

    async def tend(self, table: str) -> None:
        """Keep one table open: inspect and open it, and resume it after each halt."""
        while True:
            await asyncio.sleep(1.0)
            state = self.state_of(table)
            if not state:
                continue
            if state.get("state") == "closed":
                checklist = dict(CHECKLIST)
                if self.wheels[table] == "double_zero_as_single":
                    checklist["layout_and_signage"] = True
                await self._send(table, "inspect", {"checklist": checklist, "note": "demo"})
                await self._send(table, "open", {})
            elif state.get("state") == "halted":
                await asyncio.sleep(self.resume_after_s)
                await self._send(
                    table, "resume", {"reason": "demo: wheel checked and back in service"}
                )
