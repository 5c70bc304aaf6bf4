"""The durable baselines of `make bench` (`bench.durable`): each read committed before
it is published, on the loop's own thread or (`off_loop`) on its disk thread, as floord
keeps its journal's. The bench's ratios mean what docs/benchmarks.md says only if the
two baselines differ in that alone."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import threading
import tty
from collections.abc import AsyncIterator
from pathlib import Path

import aiomqtt
import pytest
from support import Broker

from bench import durable

pytestmark = pytest.mark.system

READY = b"ready"
LINES = [f"S;{i};0;0;172;1;0;1;".encode() for i in range(1, 6)]


async def _relayed(broker: Broker, db: Path, off_loop: bool) -> tuple[list[bytes], set[str]]:
    """Five lines written on a pty, one at a time, as the baseline publishes them; and
    the names of the threads its transactions ran on."""
    threads: set[str] = set()
    commit = durable.commit_lines

    def noted(connection: sqlite3.Connection, lines: list[bytes]) -> None:
        threads.add(threading.current_thread().name)
        commit(connection, lines)

    master, slave = os.openpty()
    tty.setraw(slave)
    got: list[bytes] = []
    serving: asyncio.Task[None] | None = None
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(durable, "commit_lines", noted)
        try:
            async with aiomqtt.Client("127.0.0.1", broker.port) as sub:
                await sub.subscribe(durable.TOPIC, qos=1)
                serving = asyncio.create_task(
                    durable.serve(os.ttyname(slave), broker.url, db, off_loop)
                )
                messages = _payloads(sub)
                async with asyncio.timeout(10):
                    await _until_ready(master, messages)
                    for line in LINES:
                        os.write(master, line + b"\n")
                        payload = READY
                        while payload == READY:  # the last of those written before
                            payload = await anext(messages)
                        got.append(payload)
        finally:
            if serving is not None:
                serving.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await serving
            os.close(master)
            os.close(slave)
    return got, threads


async def _payloads(sub: aiomqtt.Client) -> AsyncIterator[bytes]:
    async for message in sub.messages:
        yield bytes(message.payload)  # type: ignore[arg-type]


async def _until_ready(master: int, messages: AsyncIterator[bytes]) -> None:
    """`READY` written until it is published: the baseline opened its port (which
    discards what was written before) and reached the broker."""
    arrived = asyncio.ensure_future(anext(messages))
    while True:
        os.write(master, READY + b"\n")
        done, _ = await asyncio.wait([arrived], timeout=0.1)
        if done:
            if arrived.result() == READY:
                return
            arrived = asyncio.ensure_future(anext(messages))


@pytest.mark.parametrize("off_loop", [False, True])
def test_each_line_is_committed_then_published(
    broker: Broker, tmp_path: Path, off_loop: bool
) -> None:
    db = tmp_path / "durable.db"
    got, threads = asyncio.run(_relayed(broker, db, off_loop))
    assert got == LINES
    with sqlite3.connect(db) as read:
        stored = [row[0] for row in read.execute("SELECT line FROM events ORDER BY seq")]
    assert [line for line in stored if line != READY] == LINES
    if off_loop:
        assert len(threads) == 1
        assert threading.main_thread().name not in threads
        assert next(iter(threads)).startswith("disk")
    else:
        assert threads == {threading.main_thread().name}
