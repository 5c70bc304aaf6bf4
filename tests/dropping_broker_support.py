"""A loopback peer that plays a broker dropping its clients before the SUBACK.

The embedded amqtt broker (the demo's, where Mosquitto is not installed) drops a client
that connects while another subscribes: its session handler fails ("dictionary changed
size during iteration") and the connection is closed after CONNACK. `DroppingBroker`
does that to every client: it answers CONNECT with CONNACK and closes the connection at
the next packet (the SUBSCRIBE of a command's reply topic). With `reset`, it closes with a
TCP reset (SO_LINGER 0), as a broker that crashes or restarts under its clients does, so the
client's next read fails with ECONNRESET.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
import threading
from collections.abc import Iterator

CONNACK = bytes([0x20, 0x02, 0x00, 0x00])  # MQTT 3.1.1: no session, accepted
CONNACK_V5 = bytes([0x20, 0x03, 0x00, 0x00, 0x00])  # MQTT 5: the same, no properties


class DroppingBroker:
    """Accepts, answers CONNECT, and closes the connection at the next packet."""

    def __init__(self, *, reset: bool = False) -> None:
        self.reset = reset
        self.connections = 0
        self.server: asyncio.Server | None = None

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return int(self.server.sockets[0].getsockname()[1])

    async def stop(self) -> None:
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            connect = await _packet(reader)
            # The protocol level is the byte after the protocol name "MQTT" (2 + 4).
            writer.write(CONNACK_V5 if connect[6] == 5 else CONNACK)
            await writer.drain()
            await _packet(reader)  # the SUBSCRIBE: dropped, as amqtt's failed handler does
        except (asyncio.IncompleteReadError, ConnectionError, IndexError):
            pass
        finally:
            if self.reset:
                # Linger on, for 0 s: the close sends RST, not FIN.
                linger = struct.pack("ii", 1, 0)
                writer.get_extra_info("socket").setsockopt(
                    socket.SOL_SOCKET, socket.SO_LINGER, linger
                )
                writer.transport.abort()
            else:
                writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()


async def _packet(reader: asyncio.StreamReader) -> bytes:
    """One MQTT control packet's variable header and payload (its fixed header read)."""
    await reader.readexactly(1)
    length, shift = 0, 0
    while True:
        byte = (await reader.readexactly(1))[0]
        length |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return await reader.readexactly(length)


@contextlib.contextmanager
def dropping_broker_in_a_thread() -> Iterator[tuple[DroppingBroker, int]]:
    """A `DroppingBroker` on its own event loop in a thread, for a child process to meet:
    (the broker, its port)."""
    loop = asyncio.new_event_loop()
    broker = DroppingBroker()
    thread = threading.Thread(target=loop.run_forever, name="dropping broker", daemon=True)
    thread.start()
    try:
        port = asyncio.run_coroutine_threadsafe(broker.start(), loop).result(timeout=10)
        yield broker, port
    finally:
        asyncio.run_coroutine_threadsafe(broker.stop(), loop).result(timeout=10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        loop.close()
