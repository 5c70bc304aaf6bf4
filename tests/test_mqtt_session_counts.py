"""What the session loop counts for the metrics, against two real Mosquittos as the
nodes of one cluster: a connection that was up and was lost (`connections_lost`), and a
connection made on another node than the one before (`failovers`); a node that never
answers is neither."""

from __future__ import annotations

import asyncio

import aiomqtt
import pytest
from mqtt_link_support import DEADLINE_S, no_tasks_left, until
from support import Broker, free_port

from floord.mqtt.backoff import Backoff
from floord.mqtt.client import Broker as BrokerAddress
from floord.mqtt.jobs import run_session
from floord.mqtt.session import SessionLoop

pytestmark = pytest.mark.system


class Quick(Backoff):
    def next(self) -> float:
        return 0.05


def test_losses_and_failovers_are_counted(broker: Broker) -> None:
    second = Broker()
    second.start()
    nowhere = f"mqtt://127.0.0.1:{free_port()}"  # a node that does not answer

    async def scenario() -> None:
        where = BrokerAddress.from_url(
            [broker.url, second.url, nowhere],
            username=None,
            password=None,
            identifier=None,
            keepalive=5,
            timeout=2.0,
        )
        served: list[str] = []

        async def serve(client: aiomqtt.Client) -> None:
            served.append(where.nodes.where)
            if len(served) < 3:
                raise aiomqtt.MqttError("dropped by the test")
            # The third stays up until stopped.
            await run_session({asyncio.create_task(loop.until_stopped())})

        loop = SessionLoop(
            make_client=where.client, serve=serve, nodes=where.nodes, backoff=Quick()
        )
        task = asyncio.create_task(loop.run())
        await until("three connections", lambda: len(served) == 3)
        # First node, lost; second node (a failover), lost; the third does not answer, so
        # the fourth attempt is the first node again (a failover from the second).
        assert served == [
            f"127.0.0.1:{broker.port}",
            f"127.0.0.1:{second.port}",
            f"127.0.0.1:{broker.port}",
        ]
        assert (loop.connections_lost, loop.failovers) == (2, 2)
        loop.stop()
        await asyncio.wait_for(task, DEADLINE_S)
        await no_tasks_left()

    try:
        asyncio.run(scenario())
    finally:
        second.close()
