"""The table link on a real nats-server (JetStream and its MQTT listener, one node): its
subscriptions to `P/cmd` and `P/replay/request` are QoS 0, so NATS makes no JetStream
consumer for them (a cluster that lost a node refuses to create one until it has new
leaders, and the link publishes nothing until it is subscribed, docs/deployment.md);
commands still reach it, and its QoS 1 events and retained status go out as before. The
node's monitoring endpoint (`/jsz`) says which consumers exist.
"""

from __future__ import annotations

import json
import subprocess
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiomqtt
import pytest
from mqtt_link_support import TOPICS, Harness, Subscriber, append, run, until
from nats_support import nats_binary
from support import free_port, wait_port

pytestmark = pytest.mark.skipif(
    nats_binary() is None,
    reason="nats-server is not installed (scripts/ensure-test-tools.sh installs Debian's "
    "nats-server with apt-get when run as root)",
)


class Node:
    """One nats-server with JetStream, MQTT and its HTTP monitoring, killed at the end."""

    def __init__(self, tmp: Path) -> None:
        self.client_port, self.mqtt_port, self.http_port = free_port(), free_port(), free_port()
        config = tmp / "node.conf"
        config.write_text(
            "server_name: link-test\n"
            f"listen: 127.0.0.1:{self.client_port}\n"
            f"http: 127.0.0.1:{self.http_port}\n"
            f'jetstream {{ store_dir: "{tmp / "store"}" }}\n'
            f"mqtt {{ listen: 127.0.0.1:{self.mqtt_port} }}\n"
        )
        binary = nats_binary()
        assert binary is not None
        self.proc = subprocess.Popen(
            [binary, "-c", str(config), "-l", str(tmp / "node.log")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_port(self.mqtt_port, up=True, timeout=20)

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.mqtt_port}"

    def consumers(self) -> dict[str, int]:
        """How many JetStream consumers each of the node's streams has."""
        address = f"http://127.0.0.1:{self.http_port}/jsz?accounts=true&streams=true&consumers=true"
        with urllib.request.urlopen(address, timeout=5) as answer:
            body: dict[str, Any] = json.load(answer)
        found: dict[str, int] = {}
        for account in body.get("account_details") or []:
            for stream in account.get("stream_detail") or []:
                found[stream["name"]] = len(stream.get("consumer_detail") or [])
        return found

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)


@pytest.fixture
def node(tmp_path: Path) -> Iterator[Node]:
    made = Node(tmp_path)
    try:
        yield made
    finally:
        made.close()


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
