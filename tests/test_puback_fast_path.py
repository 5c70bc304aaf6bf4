"""A two-byte PUBACK read by floord's fast path (floord.mqtt.paho_hooks.fast_pubacks),
anything else by paho's own handler: on paho clients themselves, and end to end on a real
Mosquitto."""

from __future__ import annotations

import asyncio

import aiomqtt
import paho.mqtt.client as paho
import pytest
from mqtt_link_support import Subscriber, no_tasks_left, until
from support import Broker

from floord.mqtt.confirm import Message, publish_batch
from floord.mqtt.paho_hooks import fast_pubacks

pytestmark = pytest.mark.system


def _client(protocol: paho.MQTTProtocolVersion) -> tuple[paho.Client, list[tuple[int, int]]]:
    """A paho client (not connected) whose acknowledgements are noted as (mid, reason)."""
    client = paho.Client(paho.CallbackAPIVersion.VERSION2, protocol=protocol)
    seen: list[tuple[int, int]] = []
    client.on_publish = lambda _c, _u, mid, reason, _p: seen.append((mid, reason.value))
    return client, seen


def _receive(client: paho.Client, packet: bytes) -> paho.MQTTErrorCode:
    """`packet` (what follows a PUBACK's fixed header) as paho's reader hands it on."""
    client._in_packet["packet"] = packet
    return client._handle_pubackcomp("PUBACK")


def test_a_two_byte_puback_is_acknowledged_once_as_paho_would() -> None:
    client, seen = _client(paho.MQTTv311)
    assert fast_pubacks(client) is True
    assert fast_pubacks(client) is False  # once a client
    # Not connected: paho keeps QoS 1 messages until acknowledged, as when in flight.
    first = client.publish("t/a", b"1", qos=1)
    second = client.publish("t/b", b"2", qos=1)
    assert _receive(client, bytes([0, second.mid])) == paho.MQTT_ERR_SUCCESS
    assert seen == [(second.mid, 0)]
    assert list(client._out_messages) == [first.mid]  # paho let the acknowledged one go
    # The same id again, or one never sent: nothing more (paho's rule).
    assert _receive(client, bytes([0, second.mid])) == paho.MQTT_ERR_SUCCESS
    assert _receive(client, bytes([1, 7])) == paho.MQTT_ERR_SUCCESS
    assert seen == [(second.mid, 0)]
    # An id above 255: both bytes, big-endian.
    client._out_messages[0x0102] = client._out_messages.pop(first.mid)
    client._out_messages[0x0102].mid = 0x0102
    _receive(client, bytes([1, 2]))
    assert seen[-1] == (0x0102, 0) and not client._out_messages


def test_a_puback_with_a_reason_code_goes_to_paho_s_own_handler() -> None:
    """MQTT 5: a PUBACK that carries its reason code (here 0x10, no matching subscribers)
    is paho's to decode; on 3.1.1 anything but two bytes is malformed, as paho says."""
    client, seen = _client(paho.MQTTv5)
    fast_pubacks(client)
    info = client.publish("t/none", b"1", qos=1)
    _receive(client, bytes([0, info.mid, 0x10]))
    assert seen == [(info.mid, 0x10)]

    old, _ = _client(paho.MQTTv311)
    fast_pubacks(old)
    old.publish("t/a", b"1", qos=1)
    try:
        _receive(old, bytes([0, 1, 0]))
    except paho.MalformedPacket:  # type: ignore[attr-defined]
        pass
    else:
        raise AssertionError("a three-byte PUBACK on MQTT 3.1.1 must be refused by paho")


def test_a_batch_on_mqtt_5_is_acknowledged_by_both_paths(broker: Broker) -> None:
    """End to end: Mosquitto answers a message someone subscribes to with two bytes (the
    fast path) and one no one does with its reason code (paho's path); both count."""

    async def scenario() -> None:
        async with (
            Subscriber(broker.port, ["v5/with"]) as sub,
            aiomqtt.Client("127.0.0.1", broker.port, protocol=aiomqtt.ProtocolVersion.V5) as client,
        ):
            batch = [Message("v5/with", "1"), Message("v5/none", "2"), Message("v5/with", "3")]
            acked, refused = await publish_batch(client, batch, ack_timeout=5)
            assert acked == [True, True, True] and refused is None
            assert client._client._floord_fast_pubacks is True
            await until("both at the subscriber", lambda: len(sub.got) == 2)
            assert sub.on("v5/with") == ["1", "3"]
        await no_tasks_left()

    asyncio.run(scenario())
