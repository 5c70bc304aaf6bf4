"""A demo operator whose command's connection the broker drops carries on and tries again.

A floorperson whose `inspect` met a client dropped by the embedded amqtt broker used to
end its table's task, and the table stayed closed for the whole demo. Here
`DroppingBroker` drops every connection after its CONNACK.
"""

from __future__ import annotations

import asyncio
import contextlib

import pytest
from dropping_broker_support import DroppingBroker

from floord.contract import DEFAULT_TOPIC_PREFIX, Topics
from floord_demo.floorperson import VirtualFloorperson

pytestmark = pytest.mark.system


def test_a_floorperson_whose_command_is_dropped_tries_again() -> None:
    asyncio.run(_tend_against_a_dropping_broker())


async def _tend_against_a_dropping_broker() -> None:
    broker = DroppingBroker()
    port = await broker.start()
    table = "RL-01"
    ready = {"state": "closed", "devices": {"wheel": {"online": True, "identity": {"m": 1}}}}
    floorperson = VirtualFloorperson(
        url=f"mqtt://127.0.0.1:{port}",
        operator="FP-TEST",
        key=b"k" * 32,
        topics={table: Topics(DEFAULT_TOPIC_PREFIX, "test", table)},
        wheels={table: "single_zero"},
        games={table: "roulette"},  # an in-process wheel's table: looked at every 0.25 s
        state_of=lambda _: ready,
    )
    floorperson.answer_s = 0.5
    tending = asyncio.create_task(floorperson.tend(table))
    try:
        async with asyncio.timeout(20):
            while broker.connections < 3:
                assert not tending.done(), tending.exception()
                await asyncio.sleep(0.05)
        assert not tending.done()
    finally:
        tending.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await tending
        await broker.stop()
