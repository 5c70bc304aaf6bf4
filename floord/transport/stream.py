"""Byte transports to a device: a serial port (real tty or pty) or a `socket://` address.

A transport only moves bytes; what they mean is the driver's job and when to give up
is the adapter's. Serial ports go through pyserial-asyncio 0.6 (not -fast 0.16, which
can spin a core after a large write); `socket://HOST:PORT` uses asyncio streams, for
simulators and terminal servers on a rig.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from dataclasses import dataclass

import serial
import serial_asyncio

from floord.profiles import SerialSettings
from floord.transport.base import Transport, TransportError
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


@dataclass
class StreamTransport:
    """A connected link, as an asyncio reader and writer pair."""

    port: str
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter

    async def read(self) -> bytes:
        """Up to 4 KiB as soon as any byte is there; b"" means the link closed."""
        try:
            return await self.reader.read(4096)
        except (OSError, serial.SerialException) as exc:
            raise TransportError(f"{self.port}: read failed: {exc}") from exc

    async def write(self, data: bytes) -> None:
        try:
            self.writer.write(data)
            await self.writer.drain()
        except (OSError, serial.SerialException, RuntimeError) as exc:
            raise TransportError(f"{self.port}: write failed: {exc}") from exc

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            self.writer.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.writer.wait_closed(), 1.0)


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
    try:
        if address.kind == "socket":
            reader, writer = await asyncio.wait_for(
                asyncio.open_connection(address.host, address.number), timeout_s
            )
        else:
            reader, writer = await asyncio.wait_for(
                serial_asyncio.open_serial_connection(
                    url=port,
                    baudrate=settings.baudrate,
                    bytesize=settings.bytesize,
                    parity=_PARITY[settings.parity],
                    stopbits=_STOPBITS[settings.stopbits],
                    rtscts=settings.flow_control == "rtscts",
                    xonxoff=settings.flow_control == "xonxoff",
                    exclusive=True,
                ),
                timeout_s,
            )
    except TimeoutError as exc:
        raise TransportError(f"{port}: not opened within {timeout_s} s") from exc
    except (OSError, serial.SerialException, ValueError, OverflowError) as exc:
        raise TransportError(f"{port}: {why_not_opened(exc)}") from exc
    return StreamTransport(port=port, reader=reader, writer=writer)


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
