"""One device's command channel: replies matched to their commands, timeouts, and a
requester cancelled in the same turn of the loop as its reply arrives.

The last is an adapter's session ending (its identification task cancelled) just as
the device answers: the request must end cancelled, not return the reply and go on
asking a device whose session is over.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from floord.adapters.command_channel import CommandChannel
from floord.events import DeviceReply, Request
from floord.transport.base import Receiver

pytestmark = pytest.mark.unit


class _Log:
    def debug(self, *args: Any, **kwargs: Any) -> None:
        pass


class _Wire:
    """A transport that keeps what is written to it."""

    def __init__(self) -> None:
        self.written: list[bytes] = []

    async def read(self) -> bytes:
        raise AssertionError("a command channel never reads")

    def deliver(self, receiver: Receiver) -> None:
        raise AssertionError("a command channel never reads")

    def write_now(self, data: bytes) -> bool:
        self.written.append(data)
        return True

    async def write(self, data: bytes) -> None:
        self.written.append(data)

    async def close(self) -> None:
        pass


VERSION = Request("version", b"*V\r\n", "*V", timeout_s=5.0)


def _channel() -> tuple[CommandChannel, _Wire]:
    channel, wire = CommandChannel(_Log()), _Wire()
    channel.attach(wire)
    return channel, wire


def test_a_reply_answers_its_command_and_an_unanswered_one_times_out() -> None:
    async def scenario() -> tuple[DeviceReply | None, DeviceReply | None, list[bytes]]:
        channel, wire = _channel()
        asking = asyncio.create_task(channel.request(VERSION))
        await asyncio.sleep(0)
        channel.match(DeviceReply("X", "*X;6;001;  ;0;167;0"))  # a broadcast, not the answer
        channel.match(DeviceReply("V", "*V V2.50"))
        answered = await asking
        unanswered = await channel.request(Request("pockets", b"*N\r\n", "*N", timeout_s=0.01))
        return answered, unanswered, wire.written

    answered, unanswered, written = asyncio.run(scenario())
    assert answered == DeviceReply("V", "*V V2.50")
    assert unanswered is None
    assert written == [b"*V\r\n", b"*N\r\n"]


def test_a_request_cancelled_as_its_reply_arrives_ends_cancelled() -> None:
    async def scenario() -> bool:
        channel, _ = _channel()
        asking = asyncio.create_task(channel.request(VERSION))
        for _ in range(3):
            await asyncio.sleep(0)  # written, and waiting for the reply
        channel.match(DeviceReply("V", "*V V2.50"))
        asking.cancel()  # in the same turn of the loop as the reply
        await asyncio.wait({asking})
        return asking.cancelled()

    assert asyncio.run(scenario())
