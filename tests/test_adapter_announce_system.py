"""An adapter process bounds what repeated requests can add to its record: it says
`device.online` again for a replay request at most once a second
(`floord.adapters.replay_answers`), and takes ten messages a window from its `cmd`
topic (`floord.adapters.command_budget`).

The daemon asks with `announce: true` once when it restarts; each announcement is a row
on the adapter's record, so a peer repeating requests for a seq past the stream's end
must not add a row a request. Here 40 such requests in a second and a half, through a
real Mosquitto, make two or three announcements, the first at once; a request whose
range already holds the announcement gets none. Fifty commands at once are ten taken
and one line that counts forty dropped.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from pathlib import Path
from typing import Any

import aiomqtt
import pytest
import structlog
from adapter_link_support import DEVICE, STREAM, TOPICS, Pair, append_events
from mqtt_link_support import Subscriber, run, until
from support import Broker

from floord.contract import Envelope, EventType

pytestmark = pytest.mark.system


def test_repeated_requests_announce_once_a_second_at_most(broker: Broker, tmp_path: Path) -> None:
    made: list[float] = []

    def announce() -> bool:
        made.append(asyncio.get_running_loop().time())

        def build(seq: int) -> Envelope:
            return Envelope(
                site="s1",
                table=TOPICS.table,
                seq=seq,
                ts="2026-01-02T03:04:05.000000Z",
                type=EventType.DEVICE_ONLINE,
                source=DEVICE,
                data={"port": "/dev/pts/9", "announced": True},
            )

        pair.adapter_journal.append(STREAM, build)
        pair.link.notify()
        return True

    pair = Pair(tmp_path, broker.url, broker.url, follow=False, announce=announce)
    append_events(pair.adapter_journal, 3)
    answers = TOPICS.device_replay(DEVICE)
    request = TOPICS.device_replay_request(DEVICE)

    async def ask(client: aiomqtt.Client, n: int, from_seq: int) -> None:
        body = {"v": 1, "id": f"r{n}", "from_seq": from_seq, "announce": True}
        await client.publish(request, json.dumps(body), qos=1)

    async def scenario() -> None:
        status = TOPICS.device_status(DEVICE)
        async with pair.running(), Subscriber(broker.port, [answers, status]) as sub:
            # Online is said once the link has subscribed.
            await until("the adapter online", lambda: bool(sub.on(status)))
            async with aiomqtt.Client("127.0.0.1", broker.port) as client:
                await ask(client, 0, 4)  # a restarted daemon's one request
                await until("its answer", lambda: len(sub.on(answers)) == 1)
                assert len(made) == 1  # at once
                await asyncio.sleep(1.1)
                await ask(client, 1, 4)  # the range holds that announcement: none
                await until("the second answer", lambda: len(sub.on(answers)) == 2)
                await asyncio.sleep(0.1)
                assert len(made) == 1
                started = asyncio.get_running_loop().time()
                for n in range(40):  # past the end: never "said"
                    await ask(client, 2 + n, 1_000_000)
                    await asyncio.sleep(1.5 / 40)
                await until("every answer", lambda: len(sub.on(answers)) == 42)
                await asyncio.sleep(1.2)  # the one left waiting, made
            spent = asyncio.get_running_loop().time() - started
        assert 2 <= len(made) - 1 <= int(spent) + 1, (made, spent)
        gaps = [b - a for a, b in itertools.pairwise(made)]
        assert all(gap >= 0.99 for gap in gaps), gaps

    run(scenario)


def test_a_burst_of_commands_is_ten_taken_and_one_line(broker: Broker, tmp_path: Path) -> None:
    pair = Pair(tmp_path, broker.url, broker.url, follow=False, command_window_s=1.0)
    cmd = TOPICS.device_cmd(DEVICE)

    async def scenario() -> None:
        status = TOPICS.device_status(DEVICE)
        async with pair.running(), Subscriber(broker.port, [status]) as sub:
            await until("the adapter online", lambda: bool(sub.on(status)))
            async with aiomqtt.Client("127.0.0.1", broker.port) as client:
                for n in range(49):
                    body = {"v": 1, "id": f"c{n}", "name": "respin", "args": {"n": n}}
                    await client.publish(cmd, json.dumps(body), qos=1)
                await client.publish(cmd, b"not json", qos=1)  # dropped before it is read
                await until("the dropped line", lambda: _dropped(logs))
                await asyncio.sleep(1.1)  # a new window: taken again
                await client.publish(cmd, b"not json", qos=1)
                await until("its refusal", lambda: _refused(logs))
        assert [c.args["n"] for c in pair.commands] == list(range(10))
        [line] = _dropped(logs)
        assert (line["count"], line["taken"], line["window_s"]) == (40, 10, 1.0)
        assert line["log_level"] == "warning"
        assert len(_refused(logs)) == 1

    with structlog.testing.capture_logs() as logs:
        run(scenario)


def _dropped(logs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in logs if e["event"] == "device commands dropped"]


def _refused(logs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in logs if e["event"] == "device command refused"]
