"""A batch of QoS 1 publishes with one waiter for its PUBACKs (floord.mqtt.confirm), on a
real Mosquitto: in order, each acknowledgement counted once, the client's own publishes
untouched, one timeout for the batch, and nothing left behind."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal

import aiomqtt
import pytest
from mqtt_link_support import Subscriber, no_tasks_left, until
from support import Broker

from floord.mqtt.confirm import Message, for_client, publish_batch, refusal
from floord.mqtt.outbox import publish_in_order
from floord.mqtt.paho_hooks import take_disconnect_error

pytestmark = pytest.mark.system


def client_of(broker: Broker, window: int = 20) -> aiomqtt.Client:
    client = aiomqtt.Client("127.0.0.1", broker.port, max_inflight_messages=window)
    client.pending_calls_threshold = 10**6
    return client


def test_a_batch_goes_out_in_order_and_every_message_is_acknowledged(broker: Broker) -> None:
    async def scenario() -> None:
        async with Subscriber(broker.port, ["t/#"]) as sub, client_of(broker) as client:
            # More than paho's window of 20 in flight: the rest wait in paho's queue.
            messages = [Message(f"t/{i % 3}", str(i)) for i in range(250)]
            acked, refused = await publish_batch(client, messages, ack_timeout=10)
            assert acked == [True] * 250 and refused is None
            await until("all 250 at the subscriber", lambda: len(sub.got) == 250)
            for topic in ("t/0", "t/1", "t/2"):
                assert sub.on(topic) == [m.payload for m in messages if m.topic == topic]
            # The client's own publish still works beside the batches (its PUBACKs are
            # handed to aiomqtt's callback), and the next batch reuses the same waiter.
            both = asyncio.gather(
                client.publish("t/own", "own", qos=1, timeout=5),
                publish_batch(client, [Message("t/0", "again")], ack_timeout=5),
            )
            _, (acked, _) = await asyncio.wait_for(both, 10)
            assert acked == [True]
            assert len({id(for_client(client)) for _ in range(3)}) == 1
        await no_tasks_left()

    asyncio.run(scenario())


def test_a_retained_message_of_a_batch_is_kept_by_the_broker(broker: Broker) -> None:
    async def scenario() -> None:
        async with client_of(broker) as client:
            batch = [Message("r/state", "kept", retain=True), Message("r/event", "not kept")]
            acked, _ = await publish_batch(client, batch, ack_timeout=5)
            assert acked == [True, True]
        async with Subscriber(broker.port, ["r/#"]) as late:
            await until("the retained body", lambda: bool(late.got))
            await asyncio.sleep(0.2)
            assert late.got == [("r/state", "kept", True)]
        await no_tasks_left()

    asyncio.run(scenario())


def test_a_batch_the_broker_does_not_acknowledge_in_time_counts_as_unacknowledged(
    broker: Broker,
) -> None:
    """The batch has one timeout; what is not acknowledged by then is reported (and
    `publish_in_order` raises), and a late PUBACK afterwards changes nothing."""
    assert broker.proc is not None
    pid = broker.proc.pid

    async def scenario() -> None:
        async with client_of(broker) as client:
            os.kill(pid, signal.SIGSTOP)  # the broker takes the bytes, answers nothing
            try:
                started = asyncio.get_running_loop().time()
                acked, refused = await publish_batch(
                    client, [Message("s/1", "a"), Message("s/2", "b")], ack_timeout=0.3
                )
                waited = asyncio.get_running_loop().time() - started
                assert acked == [False, False] and refused is None
                assert 0.3 <= waited < 2.0  # the batch's one timeout, not one a message
                error = refusal(acked, refused)
                assert isinstance(error, aiomqtt.MqttError) and "timed out" in str(error)
                with pytest.raises(aiomqtt.MqttError, match="timed out"):
                    await publish_in_order(client, [("s/3", "c")], ack_timeout=0.2)
            finally:
                os.kill(pid, signal.SIGCONT)
            # The broker answers the three late: nothing waits for them any more.
            acked, _ = await publish_batch(client, [Message("s/4", "d")], ack_timeout=5)
            assert acked == [True]
        await no_tasks_left()

    asyncio.run(scenario())


def test_a_batch_on_a_lost_connection_is_refused_at_once(broker: Broker) -> None:
    async def scenario() -> None:
        client = client_of(broker)
        await client.__aenter__()
        broker.kill()
        await until("the client to see the broker gone", lambda: not client._client.is_connected())
        acked, refused = await publish_batch(client, [Message("x/1", "a")], ack_timeout=5)
        assert acked == [False] and refused is not None
        assert isinstance(refusal(acked, refused), aiomqtt.MqttCodeError)
        with contextlib.suppress(aiomqtt.MqttError):
            await client.__aexit__(None, None, None)
        take_disconnect_error(client)  # seen, not logged during a later test
        await no_tasks_left()

    asyncio.run(scenario())


def test_a_cancelled_batch_stops_waiting_and_leaves_no_waiter(broker: Broker) -> None:
    async def scenario() -> None:
        async with client_of(broker) as client:
            assert broker.proc is not None
            os.kill(broker.proc.pid, signal.SIGSTOP)
            try:
                task = asyncio.create_task(
                    publish_batch(client, [Message("c/1", "a")], ack_timeout=30)
                )
                await asyncio.sleep(0.1)
                task.cancel()
                await asyncio.wait([task])
                assert task.cancelled()
                assert not for_client(client)._waiting
            finally:
                os.kill(broker.proc.pid, signal.SIGCONT)
        await no_tasks_left()

    asyncio.run(scenario())


def test_a_message_paho_cannot_make_raises() -> None:
    async def scenario() -> None:
        client = aiomqtt.Client("127.0.0.1", 1)  # never connected: the topic is checked first
        with pytest.raises(ValueError):
            await publish_batch(client, [Message("bad/+/topic", "x")], ack_timeout=1)
        assert not for_client(client)._waiting

    asyncio.run(scenario())


def test_a_client_done_with_is_not_kept_alive_by_its_confirmations(broker: Broker) -> None:
    """A link makes a client for each connection: its confirmations (which reach the
    client through paho's callbacks) must not keep it, or every reconnection leaks one."""
    import gc
    import weakref

    async def scenario() -> None:
        gone: list[weakref.ref[aiomqtt.Client]] = []
        for _ in range(3):
            async with client_of(broker) as client:
                acked, _ = await publish_batch(client, [Message("g/1", "a")], ack_timeout=5)
                assert acked == [True]
                gone.append(weakref.ref(client))
            del client
        await asyncio.sleep(0.2)  # the last client's own callbacks run out
        gc.collect()
        assert [ref() for ref in gone] == [None, None, None]
        await no_tasks_left()

    asyncio.run(scenario())


def test_batches_share_one_timer_and_each_keeps_its_own_deadline(broker: Broker) -> None:
    """One timer serves every batch of a client: a batch with a shorter timeout than the
    one the timer is armed for expires first, the longer one goes on waiting, and a batch
    acknowledged in time is not expired by the timer left armed behind it."""
    assert broker.proc is not None
    pid = broker.proc.pid

    async def scenario() -> None:
        async with client_of(broker) as client:
            acked, _ = await publish_batch(client, [Message("d/0", "z")], ack_timeout=30)
            assert acked == [True]  # its deadline's timer stays armed, for no batch
            os.kill(pid, signal.SIGSTOP)
            try:
                slow = asyncio.create_task(
                    publish_batch(client, [Message("d/1", "a")], ack_timeout=30)
                )
                await asyncio.sleep(0)
                acked, refused = await publish_batch(client, [Message("d/2", "b")], ack_timeout=0.2)
                assert acked == [False] and refused is None
                assert not slow.done()  # its own deadline is far off
                slow.cancel()
                await asyncio.wait([slow])
                assert not for_client(client)._waiting
            finally:
                os.kill(pid, signal.SIGCONT)
            acked, _ = await publish_batch(client, [Message("d/3", "c")], ack_timeout=5)
            assert acked == [True]
        await no_tasks_left()

    asyncio.run(scenario())
