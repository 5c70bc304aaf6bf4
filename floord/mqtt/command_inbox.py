"""The commands a table's link has heard and its runner has not yet taken, bounded.

Whoever can publish on `P/cmd` can publish faster than a table takes commands (each is
verified, recorded and answered), and a payload of any size the broker lets through. So
the inbox keeps at most `COMMAND_MAX_BYTES + 1` bytes of a payload (a larger one is
refused unread all the same: `malformed`, over 64 KiB), and at most `INBOX_SIZE`
payloads waiting: a command that comes to a full inbox is dropped, unanswered, and
counted, in one warning line a spell. Without the bounds, 3,000 payloads of 1 MB held a
daemon at 2.8 GB. Operators' commands come one at a time; only a flood fills it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import structlog

from floord.contract import COMMAND_MAX_BYTES

INBOX_SIZE = 256  # payloads waiting: at most 16 MiB of them
DROPPED_LINE_EVERY_S = 10.0  # a spell of drops says so once, then its count this often


class CommandInbox:
    """(payload, replay_only) from `P/cmd` or `P/replay/request`, first come first taken."""

    def __init__(
        self, table: str, *, size: int = INBOX_SIZE, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._queue: asyncio.Queue[tuple[bytes, bool]] = asyncio.Queue(maxsize=size)
        self._table = table
        self._clock = clock
        self._dropped = 0  # since the last line
        self._said_at: float | None = None
        self._log = structlog.get_logger("floord.mqtt")

    def put(self, payload: bytes | bytearray | str, replay_only: bool) -> None:
        """Keep a payload heard (its first bytes only, past the limit), or drop it when
        the inbox is full."""
        if isinstance(payload, str):
            payload = payload.encode("utf-8")
        kept = bytes(memoryview(payload)[: COMMAND_MAX_BYTES + 1])
        try:
            self._queue.put_nowait((kept, replay_only))
        except asyncio.QueueFull:
            self._drop()

    async def get(self) -> tuple[bytes, bool]:
        return await self._queue.get()

    def _drop(self) -> None:
        self._dropped += 1
        now = self._clock()
        if self._said_at is not None and now - self._said_at < DROPPED_LINE_EVERY_S:
            return
        self._log.warning(
            "commands dropped: the table's inbox is full",
            table=self._table,
            dropped=self._dropped,
            waiting=self._queue.qsize(),
        )
        self._said_at, self._dropped = now, 0
