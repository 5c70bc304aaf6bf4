"""The commands waiting on one device's link, and how a reply finds its command.

A device answers a command by the reply's prefix, not by its position: status
broadcasts and replies to another host come in between, and a refusal (`NO`, `NAK`)
answers the oldest command still waiting. Every write to the link takes one lock, so a
command and the driver's own outgoing bytes never interleave on the wire. A link that
closes cancels what still waits on it: no command waits on a link that is gone.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from floord.events import DeviceReply, Request
from floord.transport.base import Transport
from floord.transport.stream import TransportError

# The prefixes drivers give a device's refusal of a command: the SS2's `*  NO` and the
# card families' `NAK`. A refusal answers the oldest command still waiting.
REFUSALS = frozenset({"NO", "NAK"})


class CommandChannel:
    """One device's link as commands use it: written under one lock, replies matched."""

    def __init__(self, log: Any) -> None:
        self._log = log
        self._transport: Transport | None = None
        self._write_lock = asyncio.Lock()
        self._pending: list[tuple[Request, asyncio.Future[DeviceReply]]] = []

    def attach(self, transport: Transport) -> None:
        """The link is open: commands go out on it."""
        self._transport = transport

    def detach(self) -> None:
        """The link is closed: what still waits for a reply is cancelled."""
        self._transport = None
        for _, future in self._pending:
            if not future.done():
                future.cancel()

    def write_now(self, transport: Transport, payload: bytes) -> bool:
        """Write the driver's bytes at once if no command is writing and the link takes
        them without waiting: an acknowledgement goes out before anything written after
        the frame it answers was read. False: they must be awaited with `write`."""
        if self._write_lock.locked():
            return False
        return transport.write_now(payload)

    async def write(self, transport: Transport, payload: bytes) -> None:
        """Write bytes the driver sends of its own accord, between commands' writes."""
        async with self._write_lock:
            await transport.write(payload)

    async def request(self, request: Request) -> DeviceReply | None:
        """Send one request and wait for its reply (None: no link, no reply in time, or
        the link broke)."""
        transport = self._transport
        if transport is None:
            return None
        future: asyncio.Future[DeviceReply] = asyncio.get_running_loop().create_future()
        entry = (request, future)
        self._pending.append(entry)
        try:
            async with self._write_lock:
                await transport.write(request.payload)
            async with asyncio.timeout(request.timeout_s):
                return await future
        except (TimeoutError, TransportError):
            return None
        finally:
            with contextlib.suppress(ValueError):
                self._pending.remove(entry)

    def match(self, reply: DeviceReply) -> None:
        """Hand a reply to the command it answers."""
        for request, future in self._pending:
            if future.done():
                continue
            if reply.prefix in REFUSALS or reply.text.startswith(request.reply_prefix):
                future.set_result(reply)
                return
        # An unsolicited reply (another host, or a late one) is only logged.
        self._log.debug("unmatched reply", text=reply.text)
