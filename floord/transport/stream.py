"""Byte transports to a device: a serial port (real tty or pty) or a `socket://` address.

A transport only moves bytes; what they mean is the driver's job and when to give up
is the adapter's. Serial ports go through pyserial-asyncio 0.6 (not -fast 0.16, which
can spin a core after a large write); `socket://HOST:PORT` uses asyncio's own socket
transport, for simulators and terminal servers on a rig. Both speak to one asyncio
protocol (`_Link`), which hands each chunk it reads to the adapter's receiver in the
callback that read it (`floord.transport.base`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from dataclasses import dataclass
from typing import cast

import serial
import serial_asyncio

from floord.profiles import SerialSettings
from floord.transport.base import Receiver, Transport, TransportError
from floord.transport.ports import (
    PORT_KINDS,
    SIM_PREFIX,
    PortAddress,
    PortError,
    parse_host,
    parse_port,
    parse_port_number,
)

__all__ = [
    "PORT_KINDS",
    "SIM_PREFIX",
    "PortAddress",
    "PortError",
    "StreamTransport",
    "Transport",
    "TransportError",
    "open_transport",
    "parse_host",
    "parse_port",
    "parse_port_number",
]


_PARITY = {
    "N": serial.PARITY_NONE,
    "E": serial.PARITY_EVEN,
    "O": serial.PARITY_ODD,
    "M": serial.PARITY_MARK,
    "S": serial.PARITY_SPACE,
}
_STOPBITS = {1: serial.STOPBITS_ONE, 1.5: serial.STOPBITS_ONE_POINT_FIVE, 2: serial.STOPBITS_TWO}


# What a reader may leave unread before the link stops reading (the kernel's buffer and
# the device's flow control hold the rest): far more than any device sends between reads.
READ_HIGH_WATER = 64 * 1024


class _Link(asyncio.Protocol):
    """The asyncio protocol of a serial or socket link: each chunk it reads goes to the
    receiver at once when one is named, else waits for `read()`; the link's end goes the
    same way; writers wait while the transport's buffer is full."""

    def __init__(self, port: str) -> None:
        self.port = port
        self.transport: asyncio.Transport | None = None
        self.ended = False
        self.error: TransportError | None = None
        loop = asyncio.get_running_loop()
        # `made`: connection_made has run. pyserial-asyncio's create_serial_connection
        # returns before it does (it is scheduled, not awaited), so a port opened for a
        # write at once (`floord capture --send`) waits for it.
        self.made: asyncio.Future[None] = loop.create_future()
        self.closed: asyncio.Future[None] = loop.create_future()
        self._receiver: Receiver | None = None
        self._unread = bytearray()
        self._paused_reading = False
        self._reader: asyncio.Future[None] | None = None
        self._writers: list[asyncio.Future[None]] = []
        self.write_paused = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)
        if not self.made.done():
            self.made.set_result(None)

    def data_received(self, data: bytes) -> None:
        if self._receiver is not None:
            self._receiver.received(data)
            return
        self._unread += data
        if len(self._unread) > READ_HIGH_WATER and self.transport is not None:
            self._paused_reading = True
            self.transport.pause_reading()
        self._wake_reader()

    def eof_received(self) -> bool:
        return False  # the transport closes; connection_lost says the link ended

    def connection_lost(self, exc: Exception | None) -> None:
        self.ended = True
        if exc is not None:
            self.error = TransportError(f"{self.port}: read failed: {exc}")
        if not self.closed.done():
            self.closed.set_result(None)
        self._wake_writers()
        if self._receiver is not None:
            self._receiver.lost(self.error)
        else:
            self._wake_reader()

    def pause_writing(self) -> None:
        self.write_paused = True

    def resume_writing(self) -> None:
        self.write_paused = False
        self._wake_writers()

    def deliver(self, receiver: Receiver) -> None:
        self._receiver = receiver
        if self._unread:
            data, self._unread = bytes(self._unread), bytearray()
            receiver.received(data)
        if self._paused_reading and self.transport is not None:
            self._paused_reading = False
            self.transport.resume_reading()
        if self.ended:
            receiver.lost(self.error)

    async def read(self) -> bytes:
        while not self._unread:
            if self.ended:
                if self.error is not None:
                    raise self.error
                return b""
            self._reader = asyncio.get_running_loop().create_future()
            try:
                await self._reader
            finally:
                self._reader = None
        data = bytes(self._unread[:4096])
        del self._unread[:4096]
        if self._paused_reading and len(self._unread) <= READ_HIGH_WATER // 2:
            self._paused_reading = False
            if self.transport is not None:
                self.transport.resume_reading()
        return data

    async def drained(self) -> None:
        """Return once the transport takes more, or raise if the link ended."""
        while self.write_paused and not self.ended:
            waiter = asyncio.get_running_loop().create_future()
            self._writers.append(waiter)
            await waiter
        if self.ended:
            raise TransportError(f"{self.port}: write failed: {self.error or 'link closed'}")

    def _wake_reader(self) -> None:
        if self._reader is not None and not self._reader.done():
            self._reader.set_result(None)

    def _wake_writers(self) -> None:
        writers, self._writers = self._writers, []
        for waiter in writers:
            if not waiter.done():
                waiter.set_result(None)


@dataclass
class StreamTransport:
    """A connected serial or socket link (`_Link`, the asyncio protocol behind it)."""

    port: str
    link: _Link

    async def read(self) -> bytes:
        """Up to 4 KiB as soon as any byte is there; b"" means the link closed."""
        return await self.link.read()

    def deliver(self, receiver: Receiver) -> None:
        self.link.deliver(receiver)

    def write_now(self, data: bytes) -> bool:
        if self.link.write_paused and not self.link.ended:
            return False
        self._write(data)
        return True

    async def write(self, data: bytes) -> None:
        self._write(data)
        await self.link.drained()

    def _write(self, data: bytes) -> None:
        transport = self.link.transport
        if transport is None or self.link.ended:
            raise TransportError(f"{self.port}: write failed: {self.link.error or 'link closed'}")
        try:
            transport.write(data)
        except (OSError, serial.SerialException, RuntimeError) as exc:
            raise TransportError(f"{self.port}: write failed: {exc}") from exc

    async def close(self) -> None:
        if self.link.transport is not None:
            with contextlib.suppress(Exception):
                self.link.transport.close()
        with contextlib.suppress(Exception):
            async with asyncio.timeout(1.0):
                await asyncio.shield(self.link.closed)


async def open_transport(port: str, settings: SerialSettings, timeout_s: float) -> Transport:
    """Open `port` (a device path, socket://HOST:PORT or usb://VID:PID[/SERIAL]).

    A `usb://` port is a HID keyboard wedge (`floord/transport/usb.py`); serial settings
    do not apply to it. Every failure is a TransportError (a PortError for a port
    written wrong), whatever the layer below raised.
    """
    address = parse_port(port)
    if address.kind in ("usb", "usb-sim"):
        from floord.transport.usb import open_usb_port  # pyusb only where a port needs it

        return await open_usb_port(port, timeout_s)
    loop = asyncio.get_running_loop()
    link = _Link(port)
    try:
        async with asyncio.timeout(timeout_s):
            if address.kind == "socket":
                if address.host is None or address.number is None:  # parse_port sets both
                    raise PortError(port, "socket://HOST:PORT", repr(port))
                await loop.create_connection(lambda: link, address.host, address.number)
            else:
                await serial_asyncio.create_serial_connection(
                    loop,
                    lambda: link,
                    url=port,
                    baudrate=settings.baudrate,
                    bytesize=settings.bytesize,
                    parity=_PARITY[settings.parity],
                    stopbits=_STOPBITS[settings.stopbits],
                    rtscts=settings.flow_control == "rtscts",
                    xonxoff=settings.flow_control == "xonxoff",
                    exclusive=True,
                )
            await link.made
    except TimeoutError as exc:
        raise TransportError(f"{port}: not opened within {timeout_s} s") from exc
    except (OSError, serial.SerialException, ValueError, OverflowError) as exc:
        raise TransportError(f"{port}: {why_not_opened(exc)}") from exc
    return StreamTransport(port=port, link=link)


def why_not_opened(exc: BaseException) -> str:
    """Why a port would not open, without naming the port again: the system's words for
    an OS error (pyserial's text is `could not open port /dev/x: [Errno 2] No such file
    or directory: '/dev/x'`), else the exception's own text."""
    errno = exc.errno if isinstance(exc, OSError) else None
    if not isinstance(errno, int) or errno <= 0:
        return str(exc)
    if "exclusively lock" in str(exc):  # pyserial's `exclusive=True` lock, held elsewhere
        return f"held by another program ({os.strerror(errno)})"
    return os.strerror(errno)
