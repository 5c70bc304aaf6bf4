"""The broker's socket read in chunks (floord.mqtt.paho_hooks.ReadAhead), on a real Mosquitto: a
batch's PUBACKs in far fewer system calls than three each, nothing left in the buffer
when the reader returns (more packets than paho reads in one call included), and what
else the client receives (its subscriptions' messages) still delivered, in order."""

from __future__ import annotations

import asyncio

import aiomqtt
import pytest
from mqtt_link_support import no_tasks_left, until
from support import Broker

from floord.mqtt.confirm import Message, publish_batch
from floord.mqtt.paho_hooks import ReadAhead, hooks

pytestmark = pytest.mark.system


def client_of(broker: Broker) -> aiomqtt.Client:
    client = aiomqtt.Client("127.0.0.1", broker.port, max_inflight_messages=0)
    client.pending_calls_threshold = 10**6
    return client


def test_a_batchs_pubacks_are_read_in_a_few_calls_and_none_is_left(broker: Broker) -> None:
    async def scenario() -> None:
        async with client_of(broker) as client:
            made = hooks(client)  # the batch's hooks: the read-ahead among them
            assert made is not None and hooks(client) is made
            reads = made.reads
            assert isinstance(reads, ReadAhead)
            calls = 0
            real = reads._recv

            def counted(bufsize: int) -> bytes:
                nonlocal calls
                calls += 1
                return real(bufsize)

            reads._recv = counted
            acked, refused = await publish_batch(
                client, [Message("ra/t", str(i)) for i in range(600)], ack_timeout=10
            )
            assert acked == [True] * 600 and refused is None
            # paho alone makes three for each PUBACK (1,800 and more); in chunks, however
            # the broker's PUBACKs trickle in, fewer than two each (often a few dozen).
            assert calls < 1200, f"{calls} reads of the socket for 600 PUBACKs"
            assert reads.pending() == 0
        await no_tasks_left()

    asyncio.run(scenario())


def test_more_packets_than_paho_reads_in_one_call_are_all_delivered(broker: Broker) -> None:
    """At QoS 0 nothing is in flight, so paho reads one packet a call: the reader must go
    on while the buffer holds more, as no readiness of the socket will come for them."""

    async def scenario() -> None:
        async with client_of(broker) as client, client_of(broker) as sender:
            await client.subscribe("ra/in", qos=0)
            made = hooks(client)
            assert made is not None and made.reads is not None
            got: list[str] = []

            async def collect() -> None:
                async for message in client.messages:
                    got.append(bytes(message.payload).decode())
                    if len(got) == 300:
                        return

            collecting = asyncio.create_task(collect())
            acked, _ = await publish_batch(
                sender, [Message("ra/in", str(i)) for i in range(300)], ack_timeout=10
            )
            assert acked == [True] * 300
            await asyncio.wait_for(collecting, 10)
            assert got == [str(i) for i in range(300)]
            reads = made.reads
            await until("the buffer empty", lambda: reads.pending() == 0)
            # And the client's own QoS 1 publish is still acknowledged through it.
            await client.publish("ra/own", "own", qos=1, timeout=5)
        await no_tasks_left()

    asyncio.run(scenario())
