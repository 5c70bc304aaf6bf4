"""The web console's commands over the broker login made for them, on a broker locked
with `floord acl`'s files: the surveillance login's `P/cmd` is dropped by the broker,
the operator-client login's reaches the table untouched (its `id` and `sig` as signed
in the browser) and the table's answer comes back."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import aiomqtt
import pytest
from test_acl import PASSWORDS, LockedBroker, floor_files, write_box

from floord.web.forward import CommandLogin, forward_signed

pytestmark = pytest.mark.system

SITE, PREFIX, TABLE = "casino-1", "floor/v1", "RL-01"
COMMAND = {
    "id": "0f" * 16,
    "name": "ack_alert",
    "by": "SE-3001",
    "ts": "2026-12-05T08:00:00.000000Z",
    "args": {"alert": "A00001", "note": "seen"},
    "sig": "ab" * 32,
}


async def table_answering(port: int, got: list[dict[str, object]], ready: asyncio.Event) -> None:
    """Box A's login, as its daemon: reads RL-01's commands, answers each on cmd/result."""
    base = f"{PREFIX}/{SITE}/{TABLE}"
    async with aiomqtt.Client(
        "127.0.0.1", port, username="box-a", password=PASSWORDS["box-a"]
    ) as c:
        await c.subscribe(f"{base}/cmd", qos=1)
        ready.set()
        async for message in c.messages:
            body = json.loads(bytes(message.payload))
            got.append(body)
            answer = {"id": body["id"], "ok": True, "error": None}
            await c.publish(f"{base}/cmd/result", json.dumps(answer), qos=1)


def test_commands_go_over_the_operator_client_login(tmp_path: Path) -> None:
    passwd, acl = floor_files(tmp_path, [write_box(tmp_path, "box-a", TABLE)])
    with LockedBroker(passwd, acl) as broker:
        urls = (f"mqtt://127.0.0.1:{broker.port}",)

        async def run() -> None:
            got: list[dict[str, object]] = []
            ready = asyncio.Event()
            table = asyncio.create_task(table_answering(broker.port, got, ready))
            try:
                await asyncio.wait_for(ready.wait(), 10)
                surveillance = CommandLogin(urls, "surv", PASSWORDS["surv"], PREFIX)
                ok, error = await forward_signed(surveillance, SITE, TABLE, COMMAND, 2.0)
                assert not ok and error == f"no answer from {TABLE} within 2 s"
                assert got == []  # the broker dropped it: the surveillance login commands nothing
                commands = CommandLogin(urls, "ops", PASSWORDS["ops"], PREFIX)
                assert await forward_signed(commands, SITE, TABLE, COMMAND, 10.0) == (True, None)
                assert got == [COMMAND]  # as the browser signed it
            finally:
                table.cancel()
                await asyncio.gather(table, return_exceptions=True)

        asyncio.run(run())
