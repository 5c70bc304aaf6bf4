"""A demo operator whose command's connection the broker drops carries on and tries again.

The embedded amqtt broker (the demo's broker where Mosquitto is not installed) drops a
client that connects while another subscribes: its session handler fails with
"dictionary changed size during iteration" and the connection is closed after CONNACK.
A floorperson whose `inspect` met that used to end its table's task, and the table
stayed closed for the whole demo. Here a loopback server plays that broker: it answers
CONNECT with CONNACK and closes the connection at the next packet (the SUBSCRIBE for the
command's reply), every time.
"""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from floord.contract import DEFAULT_TOPIC_PREFIX, Topics
from floord_demo.floorperson import VirtualFloorperson

pytestmark = pytest.mark.system

CONNACK = bytes([0x20, 0x02, 0x00, 0x00])  # MQTT 3.1.1/5 CONNACK: session absent, accepted
CONNACK_V5 = bytes([0x20, 0x03, 0x00, 0x00, 0x00])  # MQTT 5: no properties


class DroppingBroker:
    """Accepts, answers CONNECT, and closes the connection at the next packet."""

    def __init__(self) -> None:
        self.connections = 0
        self.server: asyncio.Server | None = None

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return int(self.server.sockets[0].getsockname()[1])

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


def test_a_floorperson_whose_command_is_dropped_tries_again() -> None:
    asyncio.run(_tend_against_a_dropping_broker())


async def _tend_against_a_dropping_broker() -> None:
    broker = DroppingBroker()
    port = await broker.start()
    table = "RL-01"
    ready = {"state": "closed", "devices": {"wheel": {"online": True, "identity": {"m": 1}}}}
    floorperson = VirtualFloorperson(
        url=f"mqtt://127.0.0.1:{port}",
        operator="FP-TEST",
        key=b"k" * 32,
        topics={table: Topics(DEFAULT_TOPIC_PREFIX, "test", table)},
        wheels={table: "single_zero"},
        games={table: "roulette"},  # an in-process wheel's table: looked at every 0.25 s
        state_of=lambda _: ready,
    )
    floorperson.answer_s = 0.5
    tending = asyncio.create_task(floorperson.tend(table))
    try:
        async with asyncio.timeout(20):
            while broker.connections < 3:
                assert not tending.done(), tending.exception()
                await asyncio.sleep(0.05)
        assert not tending.done()
    finally:
        tending.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await tending
        assert broker.server is not None
        broker.server.close()
        await broker.server.wait_closed()
