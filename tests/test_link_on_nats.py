"""The table link on a real nats-server (JetStream and its MQTT listener, one node): its
subscriptions to `P/cmd` and `P/replay/request` are QoS 0, so NATS makes no JetStream
consumer for them (a cluster that lost a node refuses to create one until it has new
leaders, and the link publishes nothing until it is subscribed, docs/deployment.md);
commands still reach it, and its QoS 1 events and retained status go out as on Mosquitto. The
node's monitoring endpoint (`/jsz`) says which consumers exist.
"""

from __future__ import annotations

import json
from pathlib import Path

import aiomqtt
import pytest
from mqtt_link_support import TOPICS, Harness, Subscriber, append, run, until
from nats_support import Node, requires_nats

pytestmark = [pytest.mark.system, requires_nats]


def test_the_links_command_subscriptions_are_no_jetstream_consumers(
    node: Node, tmp_path: Path
) -> None:
    async def scenario() -> None:
        h = Harness(tmp_path, node.url)
        append(h.journal, "t1", 5)
        async with (
            Subscriber(node.mqtt_port, [TOPICS.events, TOPICS.status]) as console,
            h.running(),
        ):
            await until("the link's events", lambda: len(console.on(TOPICS.events)) >= 5)
            assert console.seqs(TOPICS.events) == [1, 2, 3, 4, 5]
            async with aiomqtt.Client("127.0.0.1", node.mqtt_port) as operator:
                await operator.publish(TOPICS.cmd, b'{"id": "c1"}', qos=1)
                await operator.publish(TOPICS.replay_request, b'{"id": "r1"}', qos=1)
                await until("both commands", lambda: len(h.commands) == 2)
            assert h.replay_only == [False, True]
            # The console's two QoS 1 subscriptions are consumers; the link's two
            # are not (at QoS 1 they would be two more).
            assert node.consumers().get("$MQTT_msgs") == 2, node.consumers()
        assert json.loads(console.on(TOPICS.status)[0])["online"] is True

    run(scenario)
