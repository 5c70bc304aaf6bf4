"""A remote adapter whose NATS node is killed, on the three-node cluster of
examples/nats-cluster/: the node takes the adapter's last will with it, so the adapter's
`lost` on its next status (from another node) is the only word of that loss; the
daemon's follower, on another node, logs it, and the events the adapter journaled
meanwhile reach the daemon's bus in order, by replay (its subscriptions are QoS 0: no
JetStream consumer to wait for, docs/deployment.md).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import structlog
from adapter_link_support import DEVICE, TOPICS, Pair, append_events
from mqtt_link_support import Subscriber, run
from nats_support import NatsCluster, requires_nats

from floord.contract import STATUS_LOST

pytestmark = [pytest.mark.system, requires_nats]

LINE = "remote adapter lost its broker connection"
# Only a guard against a hang: a cluster electing new leaders on 2 shared cores.
DEADLINE_S = 120.0


async def until(what: str, check: Callable[[], bool]) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + DEADLINE_S
    while not check():
        if loop.time() > end:
            raise AssertionError(f"gave up waiting for: {what}")
        await asyncio.sleep(0.05)


def test_an_adapter_whose_node_dies_says_lost_from_another_node(tmp_path: Path) -> None:
    cluster = NatsCluster(tmp_path)
    status = TOPICS.device_status(DEVICE)
    seen: list[dict[str, Any]] = []

    async def scenario() -> None:
        for i in range(3):
            cluster.start(i)
        for i in range(3):
            await cluster.ready(i)
        # The adapter on node 1, the daemon's follower on node 2.
        pair = Pair(tmp_path, cluster.urls(0, 1, 2), cluster.urls(1, 2, 0), heartbeat_s=0.5)
        append_events(pair.adapter_journal, 3)
        # What a subscriber on node 3, which lives, sees of the adapter's status.
        async with Subscriber(cluster.ports[2]["mqtt"], [status], qos=0) as on_3, pair.running():
            await until("the stream on the bus", lambda: pair.stream_seqs() == [1, 2, 3])
            await asyncio.to_thread(cluster.kill, 0)
            await asyncio.to_thread(append_events, pair.adapter_journal, 2)
            pair.link.notify()
            await until("the follower's line", lambda: any(e["event"] == LINE for e in logs))
            await until("the stream after", lambda: pair.stream_seqs() == [1, 2, 3, 4, 5])
            seen.extend(json.loads(p) for p in on_3.on(status))

    with structlog.testing.capture_logs() as logs:
        try:
            run(scenario)
        finally:
            cluster.close()
    # One line (a status said again, its acknowledgement lost, would name the same loss).
    [line] = [e for e in logs if e["event"] == LINE]
    assert line["broker"] == cluster.where(0)
    assert line["back_on"] in (cluster.where(1), cluster.where(2))
    assert line["since"] <= line["lost_ts"] <= line["back_ts"]
    # The dead node sent no will for the connection it held: the status's `lost` is the
    # only word of that loss. (A living node may close a later attempt while the cluster
    # elects its leaders, and send that connection's will, naming that node.)
    wills = [(s["reason"], s["broker"]) for s in seen if s["online"] is False]
    assert ("connection lost", cluster.where(0)) not in wills, wills
    back = [s for s in seen if STATUS_LOST in s]
    assert back and all(s["reason"] == "connected" for s in back)
    assert {s[STATUS_LOST]["lost_ts"] for s in back} == {line["lost_ts"]}
    assert back[0][STATUS_LOST]["broker"] == cluster.where(0)
