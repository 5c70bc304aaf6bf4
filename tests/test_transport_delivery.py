"""A serial or socket link hands what it reads to a receiver in the callback that read it
(`floord.transport.stream`, `Transport.deliver`), or keeps it for `read()`: on real
sockets and a real pseudo-terminal."""

from __future__ import annotations

import asyncio
import contextlib
import os
import tty
from collections.abc import AsyncIterator, Callable

import pytest

from floord.profiles import SerialSettings
from floord.transport.base import Transport, TransportError
from floord.transport.stream import READ_HIGH_WATER, open_transport

pytestmark = pytest.mark.system

SETTINGS = SerialSettings(baudrate=9600, bytesize=8, parity="N", stopbits=1, flow_control="none")


class Heard:
    """A receiver that notes everything, and whether it was told inside `deliver`."""

    def __init__(self) -> None:
        self.chunks: list[bytes] = []
        self.ends: list[TransportError | None] = []
        self.changed = asyncio.Event()

    def received(self, data: bytes) -> None:
        self.chunks.append(data)
        self.changed.set()

    def lost(self, error: TransportError | None) -> None:
        self.ends.append(error)
        self.changed.set()

    async def until(self, condition: Callable[[], bool], timeout: float = 10.0) -> None:
        async with asyncio.timeout(timeout):
            while not condition():
                self.changed.clear()
                await self.changed.wait()


@contextlib.asynccontextmanager
async def _device_link(first: bytes, then: bytes, go_on: asyncio.Event) -> AsyncIterator[Transport]:
    """A socket transport to a device that sends `first`, waits for `go_on`, sends
    `then` and closes the link."""

    async def serve(_: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(first)
        await writer.drain()
        await go_on.wait()
        writer.write(then)
        await writer.drain()
        writer.close()
        await writer.wait_closed()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    async with server:
        port = server.sockets[0].getsockname()[1]
        transport = await open_transport(f"socket://127.0.0.1:{port}", SETTINGS, 5.0)
        try:
            yield transport
        finally:
            await transport.close()


def test_a_socket_hands_what_came_before_and_after_delivery_then_its_end() -> None:
    async def main() -> tuple[list[bytes], list[bytes], list[TransportError | None]]:
        go_on = asyncio.Event()
        async with _device_link(b"early", b"late", go_on) as transport:
            await asyncio.sleep(0.2)  # "early" is read before anyone is told
            heard = Heard()
            transport.deliver(heard)
            at_delivery = list(heard.chunks)
            go_on.set()
            await heard.until(lambda: bool(heard.ends))
            return at_delivery, heard.chunks, heard.ends

    at_delivery, chunks, ends = asyncio.run(main())
    assert at_delivery == [b"early"]
    assert b"".join(chunks) == b"earlylate"
    assert ends == [None]


def test_a_pty_whose_device_side_closes_is_a_broken_link() -> None:
    async def main() -> tuple[bytes, list[TransportError | None]]:
        master, slave = os.openpty()
        tty.setraw(slave)
        try:
            transport = await open_transport(os.ttyname(slave), SETTINGS, 5.0)
        finally:
            os.close(slave)
        try:
            heard = Heard()
            transport.deliver(heard)
            os.write(master, b"*X;1;011;23;0;154;0\r\n")
            await heard.until(lambda: len(b"".join(heard.chunks)) == 21)
            os.close(master)
            master = -1
            await heard.until(lambda: bool(heard.ends))
            with pytest.raises(TransportError, match="write failed"):
                await transport.write(b"*V\r\n")
            return b"".join(heard.chunks), heard.ends
        finally:
            if master >= 0:
                os.close(master)
            await transport.close()

    data, ends = asyncio.run(main())
    assert data == b"*X;1;011;23;0;154;0\r\n"
    assert len(ends) == 1 and isinstance(ends[0], TransportError)
    assert "read failed" in str(ends[0])


def test_a_pty_opened_takes_a_write_at_once() -> None:
    # `floord capture --send` writes as soon as the port is open: the serial link's
    # connection is made by then.
    async def main() -> bytes:
        master, slave = os.openpty()
        tty.setraw(slave)
        try:
            os.set_blocking(master, False)
            transport = await open_transport(os.ttyname(slave), SETTINGS, 5.0)
            heard = b""
            try:
                await transport.write(b"*V\r\n")
                async with asyncio.timeout(10):
                    while not heard.endswith(b"\r\n"):
                        await asyncio.sleep(0.01)
                        with contextlib.suppress(BlockingIOError):
                            heard += os.read(master, 64)
            finally:
                await transport.close()
            return heard
        finally:
            os.close(slave)
            os.close(master)

    assert asyncio.run(main()) == b"*V\r\n"


def test_read_takes_every_byte_of_more_than_the_link_holds_unread() -> None:
    size = 5 * READ_HIGH_WATER + 123
    sent = bytes(i % 251 for i in range(size))

    async def main() -> bytes:
        go_on = asyncio.Event()
        go_on.set()
        async with _device_link(sent, b"", go_on) as transport:
            await asyncio.sleep(0.3)  # it all arrives before the first read
            got = bytearray()
            while chunk := await transport.read():
                assert len(chunk) <= 4096
                got += chunk
            return bytes(got)

    assert asyncio.run(main()) == sent


def test_a_read_cancelled_loses_nothing() -> None:
    async def main() -> bytes:
        go_on = asyncio.Event()
        async with _device_link(b"", b"kept", go_on) as transport:
            waiting = asyncio.ensure_future(transport.read())
            await asyncio.sleep(0.05)
            waiting.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await waiting
            go_on.set()
            return await transport.read()

    assert asyncio.run(main()) == b"kept"
