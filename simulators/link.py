"""How a simulated device reaches its host: a pseudo-terminal or one TCP client.

A simulator speaks to a `Link`. Both links behave like a serial line: the device keeps
talking whether or not anyone listens (bytes nobody can take are lost, as on a real
RS-232 line), and `read` waits for the host's bytes.

`drop(seconds)` is a cut cable:
- TCP: the current client is closed, clients arriving in the next `seconds` are closed at
  once, then the next client is accepted.
- pty: a pseudo-terminal cannot be unplugged without the host's port vanishing, so the
  line goes dead instead: for `seconds` nothing is sent (writes are discarded) and
  everything the host sends is ignored.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import tty
from typing import Any, Protocol

_READ_CHUNK = 4096
_TCP_BUFFER_LIMIT = 64 * 1024  # a client this far behind is not reading: drop, as a line would


class Link(Protocol):
    """A serial-like line to the host, as a simulator sees it."""

    async def read(self) -> bytes:
        """The host's next bytes; b"" when the line was reset (a client left or came)."""
        ...

    async def write(self, data: bytes) -> None:
        """Send bytes; lost without error when nobody can take them."""
        ...

    async def drop(self, seconds: float) -> None:
        """Cut the line for `seconds` (see the module docstring), then restore it."""
        ...


class PtyLink:
    """The master side of a pseudo-terminal; the host opens the slave path like a port.

    The link keeps its own slave descriptor open so the pty never hangs up while no host
    has it open (a hung-up master makes every read fail with EIO).
    """

    def __init__(self, master: int, slave: int, path: str) -> None:
        self.path = path
        self._master = master
        self._slave = slave
        self._loop = asyncio.get_running_loop()
        self._incoming: asyncio.Queue[bytes] = asyncio.Queue()
        self._dead = False
        self._closed = False
        self.bytes_lost = 0
        self._loop.add_reader(master, self._on_readable)

    def _on_readable(self) -> None:
        try:
            data = os.read(self._master, _READ_CHUNK)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            return  # EIO while the slave side is being reopened: nothing to read
        if data and not self._dead:
            self._incoming.put_nowait(data)

    async def read(self) -> bytes:
        return await self._incoming.get()

    async def write(self, data: bytes) -> None:
        if self._dead or self._closed:
            return
        try:
            written = os.write(self._master, data)
        except (BlockingIOError, InterruptedError):
            written = 0
        except OSError:
            written = 0
        self.bytes_lost += len(data) - written

    async def drop(self, seconds: float) -> None:
        self._dead = True
        try:
            await asyncio.sleep(seconds)
        finally:
            self._dead = False
            while not self._incoming.empty():
                self._incoming.get_nowait()
        self._incoming.put_nowait(b"")  # whatever half line the reader held is gone

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._loop.remove_reader(self._master)
        for fd in (self._master, self._slave):
            with contextlib.suppress(OSError):
                os.close(fd)


async def open_pty_link() -> tuple[PtyLink, str]:
    """A new pty in raw mode; returns the link and the slave path for the host to open."""
    master, slave = os.openpty()
    try:
        tty.setraw(slave)
        os.set_blocking(master, False)
        path = os.ttyname(slave)
        return PtyLink(master, slave, path), path
    except BaseException:
        os.close(master)
        os.close(slave)
        raise


class TcpLink:
    """A TCP listener serving one client at a time, like a serial device server."""

    def __init__(self) -> None:
        self._server: asyncio.Server | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._incoming: asyncio.Queue[bytes] = asyncio.Queue()
        self._refusing = False
        self._handlers: set[asyncio.Task[Any]] = set()
        self.host = ""
        self.port = 0

    async def listen(self, host: str, port: int) -> None:
        """Start listening on host:port (0: a free port, then in `.port`)."""
        self._server = await asyncio.start_server(self._on_client, host, port)
        self.host, self.port = self._server.sockets[0].getsockname()[:2]

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    async def _on_client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._handlers.add(task)
        try:
            if self._refusing or self._writer is not None:
                return  # busy or unplugged: the newcomer is closed at once (finally)
            self._writer = writer
            self._incoming.put_nowait(b"")
            while True:
                try:
                    data = await reader.read(_READ_CHUNK)
                except ConnectionError:
                    break
                if not data:
                    break
                if self._writer is writer:
                    self._incoming.put_nowait(data)
        finally:
            if self._writer is writer:
                self._writer = None
                self._incoming.put_nowait(b"")
            writer.close()
            with contextlib.suppress(ConnectionError, OSError, asyncio.CancelledError):
                await writer.wait_closed()
            if task is not None:
                self._handlers.discard(task)

    @property
    def connected(self) -> bool:
        return self._writer is not None

    async def read(self) -> bytes:
        return await self._incoming.get()

    async def write(self, data: bytes) -> None:
        writer = self._writer
        if writer is None or writer.is_closing():
            return
        if writer.transport.get_write_buffer_size() > _TCP_BUFFER_LIMIT:
            return
        writer.write(data)

    async def drop(self, seconds: float) -> None:
        self._refusing = True
        writer, self._writer = self._writer, None
        if writer is not None:
            writer.close()
            self._incoming.put_nowait(b"")
        try:
            await asyncio.sleep(seconds)
        finally:
            self._refusing = False

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        for task in list(self._handlers):
            task.cancel()
        if self._handlers:
            await asyncio.gather(*self._handlers, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()
            self._server = None


async def serve_tcp(host: str, port: int) -> TcpLink:
    """Listen on host:port (0 picks a free port; see `.port`) for one client at a time."""
    link = TcpLink()
    await link.listen(host, port)
    return link
