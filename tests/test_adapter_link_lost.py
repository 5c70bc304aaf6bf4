"""A remote adapter whose broker connection is cut uncleanly says so on its next status.

A broker node that dies takes its connections' last wills with it (NATS,
docs/deployment.md), so the adapter's first `online: true` after a connection it lost
without saying `online: false` names that connection (`lost`, docs/contract.md), as the
table link's `P/status` does. Here its Mosquitto is killed and restarted on the same
port: the status after it carries `lost` with the killed connection's node and times,
the daemon's follower logs it once, and the stream journaled meanwhile still reaches the
daemon's bus, in order.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
import structlog
from adapter_link_support import DEVICE, TOPICS, Pair, append_events
from mqtt_link_support import Subscriber, run, until
from support import Broker

from floord.contract import DEVICE_STATUS_FIELDS, STATUS_LOST, STATUS_LOST_FIELDS

pytestmark = pytest.mark.system

LINE = "remote adapter lost its broker connection"


def _connected(sub: Subscriber, topic: str) -> list[dict[str, Any]]:
    bodies = [json.loads(p) for p in sub.on(topic)]
    return [b for b in bodies if b["online"] and b["reason"] == "connected"]


def test_an_adapter_whose_broker_was_killed_says_lost_on_its_next_status(
    broker: Broker, tmp_path: Path
) -> None:
    status = TOPICS.device_status(DEVICE)
    where = f"127.0.0.1:{broker.port}"

    async def scenario() -> None:
        pair = Pair(tmp_path, broker.url, broker.url)
        append_events(pair.adapter_journal, 3)
        async with pair.running():
            async with Subscriber(broker.port, [status]) as before:
                await until("the first status", lambda: bool(_connected(before, status)))
                await until("the stream on the bus", lambda: pair.stream_seqs() == [1, 2, 3])
            [first] = _connected(before, status)
            assert set(first) == set(DEVICE_STATUS_FIELDS)  # its first connection: no loss
            await asyncio.to_thread(broker.kill)  # no DISCONNECT: the will's case
            await asyncio.to_thread(append_events, pair.adapter_journal, 2)
            pair.link.notify()
            await asyncio.to_thread(broker.start)
            # The status is retained, so it is seen whether the adapter is back before
            # this subscription or after it.
            async with Subscriber(broker.port, [status]) as after:
                await until("the status after the kill", lambda: bool(_connected(after, status)))
                [back] = _connected(after, status)
            await until("the stream after", lambda: pair.stream_seqs() == [1, 2, 3, 4, 5])
            await until("the follower's line", lambda: any(e["event"] == LINE for e in logs))
        assert set(back) == {*DEVICE_STATUS_FIELDS, STATUS_LOST}
        lost = back[STATUS_LOST]
        assert set(lost) == set(STATUS_LOST_FIELDS)
        assert lost["broker"] == where == back["broker"]
        assert lost["since"] <= first["ts"] <= lost["lost_ts"] <= lost["back_ts"] == back["ts"]
        [line] = [e for e in logs if e["event"] == LINE]
        assert line["log_level"] == "warning" and line["device"] == DEVICE
        assert {k: line[k] for k in STATUS_LOST_FIELDS} == lost
        assert line["back_on"] == where

    with structlog.testing.capture_logs() as logs:
        run(scenario)


def test_the_follower_logs_each_loss_once(tmp_path: Path) -> None:
    """The same loss again (the retained status on a reconnection, or said again after an
    unacknowledged status) is one line; another loss is another; a bad `lost` is text."""
    pair = Pair(tmp_path, "mqtt://127.0.0.1:1", "mqtt://127.0.0.1:1")
    assert pair.remote is not None
    lost = {
        "broker": "10.0.0.11:1883",
        "since": "2026-01-01T00:00:00.000000Z",
        "lost_ts": "2026-01-01T00:05:00.000000Z",
        "back_ts": "2026-01-01T00:05:09.000000Z",
    }
    body = {"online": True, "reason": "connected", "broker": "10.0.0.12:1883", "last_seq": 0}
    again = {**lost, "back_ts": "2026-01-01T00:05:12.000000Z"}
    later = {**lost, "since": "2026-01-01T00:05:09.000000Z", "lost_ts": "2026-01-01T00:09:00Z"}

    async def scenario() -> None:
        odd = {"broker": "\x1b[2J", "since": 5, "lost_ts": None}  # not ours: text
        for said in (lost, lost, again, later, odd, odd):
            pair.remote._on_status({**body, STATUS_LOST: said}, live=True)
        pair.remote._on_status(body, live=True)  # a heartbeat: no loss

    try:
        with structlog.testing.capture_logs() as logs:
            asyncio.run(scenario())
    finally:
        pair.adapter_journal.close()
        pair.daemon_journal.close()
    lines = [e for e in logs if e["event"] == LINE]
    assert [(e["since"], e["lost_ts"], e["back_ts"]) for e in lines] == [
        (lost["since"], lost["lost_ts"], lost["back_ts"]),
        (later["since"], later["lost_ts"], later["back_ts"]),
        ("5", "None", "None"),
    ]
    assert lines[0]["back_on"] == "10.0.0.12:1883" and lines[2]["broker"] == "\\x1b[2J"
