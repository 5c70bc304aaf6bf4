"""What every byte transport is: the protocol the adapter and the tools hold, and its error.

Apart from the transports themselves (`stream.py` for serial and socket ports, `usb.py`
for a USB keyboard wedge) so that each of them depends on this alone, and
`open_transport` may open either without the two importing each other.

Bytes reach their reader one of two ways. A tool that reads now and then (`floord
capture`) awaits `read()`. The daemon's adapter hands the transport a `Receiver` instead
(`deliver`), which is given each chunk in the callback that read it: a wheel repeats its
status frame several times a second, and a task woken for every frame would cost the
daemon a turn of its loop each time.
"""

from __future__ import annotations

from typing import Protocol


class TransportError(ConnectionError):
    """The device cannot be reached or the link broke; the adapter reconnects."""


class Receiver(Protocol):
    """Where a transport hands what it reads, once `deliver` named it."""

    def received(self, data: bytes) -> None:
        """Bytes read, in order; never empty."""
        ...

    def lost(self, error: TransportError | None) -> None:
        """The link ended: `error` if it broke, None if the other side closed it. Called
        once, after every byte read before the end was received."""
        ...


class Transport(Protocol):
    """A connected link to a device: bytes in, bytes out, closed once."""

    port: str

    async def read(self) -> bytes:
        """Up to 4 KiB as soon as any byte is there; b"" means the link closed."""
        ...

    def deliver(self, receiver: Receiver) -> None:
        """From now on every byte read goes to `receiver`, none to `read()`: what was
        read before is handed to it at once, then the link's end if it came already."""
        ...

    def write_now(self, data: bytes) -> bool:
        """Write `data` at once if the link takes it without waiting: True if written,
        False if it must be awaited with `write` (the link's buffer is full); a link that
        ended raises TransportError."""
        ...

    async def write(self, data: bytes) -> None: ...

    async def close(self) -> None: ...
