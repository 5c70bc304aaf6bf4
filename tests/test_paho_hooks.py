"""The one module that reaches inside aiomqtt and paho-mqtt (floord.mqtt.paho_hooks): with
other versions than it was written for (test_paho_hooks_versions), the publish path
keeps its promises through the libraries' public interfaces, on a real Mosquitto."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal

import aiomqtt
import pytest
from mqtt_link_support import Subscriber, no_tasks_left, public_interfaces_only, until
from support import Broker

from floord.mqtt import paho_hooks
from floord.mqtt.confirm import Message, for_client, publish_batch, refusal
from floord.mqtt.paho_hooks import hooks

pytestmark = pytest.mark.system


def client_of(broker: Broker) -> aiomqtt.Client:
    client = aiomqtt.Client("127.0.0.1", broker.port, max_inflight_messages=0)
    client.pending_calls_threshold = 10**6
    return client


def test_other_versions_touch_nothing_and_a_batch_keeps_its_order(
    broker: Broker, monkeypatch: pytest.MonkeyPatch
) -> None:
    public_interfaces_only(monkeypatch)
    monkeypatch.setattr(paho_hooks, "_said", False)

    async def scenario() -> None:
        async with Subscriber(broker.port, ["p/#"]) as sub, client_of(broker) as client:
            theirs = client._client.on_publish
            assert hooks(client) is None and for_client(client) is None
            messages = [Message(f"p/{i % 3}", str(i)) for i in range(250)]
            messages.append(Message("p/state", "kept", retain=True))
            acked, refused = await publish_batch(client, messages, ack_timeout=10)
            assert acked == [True] * 251 and refused is None
            await until("all at the subscriber", lambda: len(sub.got) == 251)
            for topic in ("p/0", "p/1", "p/2"):
                assert sub.on(topic) == [m.payload for m in messages if m.topic == topic]
            # Nothing of the client's was replaced: aiomqtt's callback, no hooks kept.
            assert client._client.on_publish == theirs
            assert not hasattr(client, "_floord_hooks")
        async with Subscriber(broker.port, ["p/state"]) as late:
            await until("the retained body", lambda: bool(late.got))
            assert late.got == [("p/state", "kept", True)]
        await no_tasks_left()

    asyncio.run(scenario())


def test_other_versions_time_a_stalled_batch_out_and_refuse_on_a_lost_connection(
    broker: Broker, monkeypatch: pytest.MonkeyPatch
) -> None:
    public_interfaces_only(monkeypatch)
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
                assert 0.3 <= waited < 2.0
                error = refusal(acked, refused)
                assert isinstance(error, aiomqtt.MqttError) and "timed out" in str(error)
                # Cancelled while waiting: its tasks end with it.
                task = asyncio.create_task(
                    publish_batch(client, [Message("c/1", "a")], ack_timeout=30)
                )
                await asyncio.sleep(0.1)
                task.cancel()
                await asyncio.wait([task])
                assert task.cancelled()
            finally:
                os.kill(pid, signal.SIGCONT)
            acked, _ = await publish_batch(client, [Message("s/4", "d")], ack_timeout=5)
            assert acked == [True]
        lost = client_of(broker)
        await lost.__aenter__()
        broker.kill()
        await until("the client to see the broker gone", lambda: not lost._client.is_connected())
        acked, refused = await publish_batch(lost, [Message("x/1", "a")], ack_timeout=5)
        assert acked == [False] and refused is not None
        assert isinstance(refusal(acked, refused), aiomqtt.MqttCodeError)
        with contextlib.suppress(aiomqtt.MqttError):
            await lost.__aexit__(None, None, None)
        paho_hooks.take_disconnect_error(lost)
        await no_tasks_left()

    asyncio.run(scenario())


def test_other_versions_raise_what_paho_cannot_make() -> None:
    async def scenario() -> None:
        client = aiomqtt.Client("127.0.0.1", 1)  # never connected: the topic is checked first
        with pytest.raises(ValueError):
            await publish_batch(client, [Message("bad/+/topic", "x")], ack_timeout=1)

    with pytest.MonkeyPatch.context() as monkeypatch:
        public_interfaces_only(monkeypatch)
        asyncio.run(scenario())
