"""What every byte transport is: the protocol the adapter and the tools hold, and its error.

Apart from the transports themselves (`transport.py` for serial and socket ports,
`usb_transport.py` for a USB keyboard wedge) so that each of them depends on this alone,
and `open_transport` may open either without the two importing each other.
"""

from __future__ import annotations

from typing import Protocol


class TransportError(ConnectionError):
    """The device cannot be reached or the link broke; the adapter reconnects."""


class Transport(Protocol):
    """A connected link to a device: bytes in, bytes out, closed once."""

    port: str

    async def read(self) -> bytes:
        """Up to 4 KiB as soon as any byte is there; b"" means the link closed."""
        ...

    async def write(self, data: bytes) -> None: ...

    async def close(self) -> None: ...
