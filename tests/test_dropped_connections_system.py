"""A broker that resets an MQTT connection: paho's line about it is a warning, not an error.

paho (through aiomqtt, on the `mqtt` logger) logs the socket error that ended a connection
at error level: `failed to receive on socket: [Errno 104] Connection reset by peer`, each
time a broker restarts under the daemon. The daemon's own line for that loss is a warning
(`broker connection lost`), so floord's pipeline writes paho's at the same level
(`floord.system.dropped_connections`), keeping its words. The peer here resets every
connection at the client's first packet after CONNACK (tests/dropping_broker_support.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import json

import aiomqtt
import pytest
from dropping_broker_support import DroppingBroker

from floord.system.logs import configure_logging

pytestmark = pytest.mark.system


async def _meet_a_resetting_broker() -> int:
    broker = DroppingBroker(reset=True)
    port = await broker.start()
    try:
        with contextlib.suppress(aiomqtt.MqttError):
            async with aiomqtt.Client("127.0.0.1", port, timeout=5) as client:
                with contextlib.suppress(aiomqtt.MqttError):
                    await client.subscribe("floord/test", timeout=1)
                async with asyncio.timeout(5):
                    async for _ in client.messages:  # ends with the lost connection
                        pass
    finally:
        await broker.stop()
    return broker.connections


def test_pahos_reset_line_is_a_warning(capsys: pytest.CaptureFixture[str]) -> None:
    configure_logging("info", fmt="json")
    try:
        assert asyncio.run(_meet_a_resetting_broker()) == 1
    finally:
        configure_logging()
    lines = [json.loads(line) for line in capsys.readouterr().err.splitlines() if line]
    paho = [line for line in lines if line["logger"] == "mqtt"]
    assert [(line["level"], line["event"]) for line in paho] == [
        ("warning", "failed to receive on socket: [Errno 104] Connection reset by peer")
    ]
