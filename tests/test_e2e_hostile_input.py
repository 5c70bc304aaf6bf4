"""End to end: a lone surrogate on `P/cmd` or `P/replay/request`.

The exact payload of the report, through a real Mosquitto into `floord run`: it is
refused as `malformed` with a reply on `P/cmd/result` and an `operator.command_refused`
on the record, and the open table stays open. Left retained on `P/replay/request`, it
is refused again after a restart, and the table still does not halt.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

import aiomqtt
import pytest
from e2e_support import (
    FP,
    collecting,
    open_table,
    start_daemon,
    start_sim,
    topics,
    write_config,
)

from floord.contract import format_ts

pytestmark = pytest.mark.system


def hostile(command_id: str) -> bytes:
    """The report's payload: valid JSON whose `id` holds a lone UTF-16 surrogate."""
    ts = format_ts(datetime.now(UTC))
    text = '{"id":"\\ud800' + command_id + '","name":"open","by":"' + FP + '","ts":"' + ts
    return (text + '","args":{}}').encode("ascii")


def test_a_lone_surrogate_is_refused_and_never_halts_a_table(broker, tmp_path: Path) -> None:
    sim, pty = start_sim(tmp_path, {"pockets": 37, "steps": [{"idle": 60000}]}, 10.0)
    config = write_config(tmp_path, broker.url, pty)
    daemon = start_daemon(config)
    t = topics()
    host, port = broker.url.split("://", 1)[1].rsplit(":", 1)

    def refused(c, command_id: str, after: int = 0):
        return c.event(
            "operator.command_refused",
            lambda b: b["seq"] > after and b["data"]["id"] == "\\ud800" + command_id,
        )

    async def run() -> None:
        nonlocal daemon
        async with collecting(broker.url) as c, aiomqtt.Client(host, int(port)) as client:
            await c.event("device.identified")
            await open_table(broker.url)
            await client.subscribe(t.cmd_result, qos=1)

            for topic, command_id in ((t.cmd, "x"), (t.replay_request, "y")):
                await client.publish(topic, hostile(command_id), qos=1)
                reply = await c.wait_for(
                    lambda tp, b, i=command_id: tp == t.cmd_result and b.get("id") == "\\ud800" + i,
                    what=f"the reply to {command_id}",
                )
                assert reply["ok"] is False
                assert reply["error"].startswith("malformed command: field 'id': a lone surrogate")
                event = await refused(c, command_id)
                assert event["data"]["code"] == "malformed"
            await asyncio.sleep(0.5)
            state = [b for tp, b, _ in c.messages if tp == t.state][-1]
            assert state["state"] == "open" and not state.get("halt_reasons"), state

            # Left retained on the replay request topic: refused again at every start.
            last = max(b["seq"] for b in c.events(t.events))
            await client.publish(t.replay_request, hostile("z"), qos=1, retain=True)
            first = await refused(c, "z", last)
            assert daemon.terminate() == 0
            daemon = start_daemon(config)
            again = await refused(c, "z", first["seq"])
            assert again["data"]["code"] == "malformed"
            await asyncio.sleep(0.5)
            state = [b for tp, b, _ in c.messages if tp == t.state][-1]
            codes = [r["code"] for r in state.get("halt_reasons") or []]
            assert "journal_failure" not in codes and state["state"] != "halted", state

    try:
        asyncio.run(run())
    finally:
        daemon.terminate()
        sim.kill()
