"""The remote adapter's path on a real nats-server (JetStream and MQTT, one node): the
adapter link's subscriptions (`cmd`, `replay/request`) and the daemon's follower's
(`events`, `replay`, `status`) are QoS 0, so NATS makes no JetStream consumer for any of
them (a cluster that lost a node refuses to create one until it has new leaders,
docs/deployment.md); the stream still reaches the daemon's bus in order, by replay and
live, the retained status still reaches the follower, and a device command still reaches
the adapter. The node's monitoring endpoint (`/jsz`) says which consumers exist.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from adapter_link_support import DEVICE, TOPICS, Pair, append_events
from mqtt_link_support import Subscriber, run, until
from nats_support import Node, requires_nats

from floord.contract import DEVICE_STATUS_FIELDS
from floord.events import DeviceCommand

pytestmark = [pytest.mark.system, requires_nats]


def test_the_remote_adapter_path_makes_no_jetstream_consumer(node: Node, tmp_path: Path) -> None:
    async def scenario() -> None:
        pair = Pair(tmp_path, node.url, node.url)
        append_events(pair.adapter_journal, 5)
        status = TOPICS.device_status(DEVICE)
        async with Subscriber(node.mqtt_port, [status]) as console, pair.running():
            assert pair.remote is not None
            # Journaled before either was up: the follower catches up by replay.
            await until("the stream on the bus", lambda: pair.stream_seqs() == [1, 2, 3, 4, 5])
            # And one journaled while both are up goes out live.
            await asyncio.to_thread(append_events, pair.adapter_journal, 1)
            pair.link.notify()
            await until("the live event", lambda: pair.stream_seqs() == [1, 2, 3, 4, 5, 6])
            await until("the adapter's status at the follower", lambda: pair.remote.adapter_up)
            await pair.remote.send(DeviceCommand(device=DEVICE, name="respin", args={}))
            await until("the command at the adapter", lambda: len(pair.commands) == 1)
            assert pair.commands[0].name == "respin"
            # The console's one QoS 1 subscription is a consumer; the link's two and the
            # follower's three are not (at QoS 1 they would be five more).
            assert node.consumers().get("$MQTT_msgs") == 1, node.consumers()
        body = json.loads(console.on(status)[0])
        assert body["online"] is True and set(body) == set(DEVICE_STATUS_FIELDS)

    run(scenario)
