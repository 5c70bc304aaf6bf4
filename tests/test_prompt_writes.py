"""A batch's packets written in the loop's turn that made them (floord.mqtt.paho_hooks),
on a real Mosquitto: nothing left queued after a small batch, no socket watcher left
behind (a watcher on a writable socket would spin the loop), a batch larger than the
socket takes finished by the watcher, and a request from another thread handed to
aiomqtt's own handler."""

from __future__ import annotations

import asyncio
import selectors
import signal
import threading
from collections import deque
from typing import Any

import aiomqtt
import pytest
from mqtt_link_support import Subscriber, no_tasks_left, until
from support import Broker

from floord.mqtt.confirm import Message, publish_batch
from floord.mqtt.paho_hooks import COALESCED_BYTES, Hooks, coalesce, hooks

pytestmark = pytest.mark.system


def client_of(broker: Broker) -> aiomqtt.Client:
    client = aiomqtt.Client("127.0.0.1", broker.port, max_inflight_messages=0)
    client.pending_calls_threshold = 10**6
    return client


def hooked(client: aiomqtt.Client) -> Hooks:
    made = hooks(client)
    assert made is not None, "the hooks fit the installed libraries (test_paho_hooks)"
    return made


def watched_for_writing(client: aiomqtt.Client) -> bool:
    """Whether the loop watches the client's socket for writing."""
    selector = asyncio.get_running_loop()._selector  # type: ignore[attr-defined]
    sock = client._client.socket()
    assert sock is not None
    try:
        key = selector.get_key(sock.fileno())
    except KeyError:
        return False
    return bool(key.events & selectors.EVENT_WRITE)


def test_a_packet_goes_out_at_once_and_no_watcher_is_left(broker: Broker) -> None:
    async def scenario() -> None:
        async with Subscriber(broker.port, ["w/#"]) as sub, client_of(broker) as client:
            made = hooked(client)
            assert hooked(client) is made  # once, and kept
            inner = made.paho
            inner.publish("w/1", "one", qos=1)
            assert inner.want_write(), "paho held the packet until written"
            made.write_now()
            # Written in this turn: nothing held, and the watcher paho asked for is gone.
            assert not inner.want_write()
            assert not watched_for_writing(client)
            acked, _ = await publish_batch(
                client, [Message("w/2", str(i)) for i in range(50)], ack_timeout=5
            )
            assert acked == [True] * 50
            assert not watched_for_writing(client)
            await until("51 at the subscriber", lambda: len(sub.got) == 51)
            assert sub.on("w/2") == [str(i) for i in range(50)]
        await no_tasks_left()

    asyncio.run(scenario())


def test_a_batch_larger_than_the_socket_takes_is_finished_by_the_watcher(
    broker: Broker,
) -> None:
    async def scenario() -> None:
        async with Subscriber(broker.port, ["big/#"]) as sub, client_of(broker) as client:
            made = hooked(client)
            inner = made.paho
            body = "x" * 20_000
            for i in range(400):  # 8 MB: more than the socket's buffers take at once
                inner.publish("big/t", f"{i}:{body}", qos=1)
            # ... while the broker reads none of it. A broker that reads as fast as it is
            # written to can take it all in one go: on loopback its receive buffer grows
            # with its reading (to tcp_rmem's maximum, 32 MiB on the CI machines).
            assert broker.proc is not None
            broker.proc.send_signal(signal.SIGSTOP)
            try:
                made.write_now()
                assert inner.want_write() and watched_for_writing(client)
            finally:
                broker.proc.send_signal(signal.SIGCONT)
            await until("the watcher to write the rest", lambda: not inner.want_write())
            await until("its watcher removed", lambda: not watched_for_writing(client))
            # A batch after it, through the same path, acknowledged in full.
            messages = [Message("big/t", f"{i}:{body}") for i in range(400, 800)]
            acked, refused = await publish_batch(client, messages, ack_timeout=30)
            assert acked == [True] * 400 and refused is None
            assert not inner.want_write() and not watched_for_writing(client)
            await until("800 at the subscriber", lambda: len(sub.got) == 800)
            assert [p.split(":", 1)[0] for p in sub.on("big/t")] == [str(i) for i in range(800)]
        await no_tasks_left()

    asyncio.run(scenario())


def test_a_request_from_another_thread_goes_to_aiomqtts_handler(broker: Broker) -> None:
    async def scenario() -> None:
        async with client_of(broker) as client:
            made = hooked(client)
            inner = made.paho
            inner.publish("w/t", "from the loop", qos=1)  # queued and watched at once
            assert watched_for_writing(client)
            made.write_now()
            assert not watched_for_writing(client)
            # paho may ask from the thread `connect()` runs on: aiomqtt's handler then
            # watches the socket from the loop, a turn later.
            sock = inner.socket()
            asked = threading.Thread(
                target=inner.on_socket_register_write, args=(inner, None, sock)
            )
            asked.start()
            asked.join()
            assert not watched_for_writing(client)
            await until("aiomqtt's watcher", lambda: watched_for_writing(client))
            client._loop.remove_writer(sock.fileno())
        await no_tasks_left()

    asyncio.run(scenario())


def packet(command: int, qos: int, data: bytes, pos: int = 0) -> dict[str, Any]:
    return {"command": command, "mid": len(data), "qos": qos, "pos": pos,
            "to_process": len(data) - pos, "packet": data, "info": None}  # fmt: skip


def test_coalesce_joins_runs_of_whole_qos1_publishes_and_keeps_the_rest_in_place() -> None:
    publish, puback, pingreq = 0x32, 0x40, 0xC0
    partly = packet(publish, 1, b"P0-half", pos=3)
    big = b"B" * (COALESCED_BYTES - 10)
    queue = deque(
        [
            partly,  # partly written: stays first, as it is
            packet(publish, 1, b"a1"),
            packet(publish, 1, b"a2"),
            packet(puback, 0, b"ack"),  # another kind breaks the run
            packet(publish, 1, b"b1"),
            packet(0x30, 0, b"q0"),  # QoS 0: paho has work once it is written
            packet(publish, 1, big),
            packet(publish, 1, b"c" * 20),  # over the cap with `big`: a run of its own
            packet(publish, 1, b"c2"),
            packet(pingreq, 0, b"ping"),
        ]
    )
    coalesce(queue)
    out = list(queue)
    assert out[0] is partly
    assert [p["packet"] for p in out[1:]] == [
        b"a1a2", b"ack", b"b1", b"q0", big, b"c" * 20 + b"c2", b"ping"
    ]  # fmt: skip
    merged = out[1]
    assert (merged["pos"], merged["to_process"], merged["qos"]) == (0, 4, 1)
    assert merged["command"] & 0xF0 == 0x30 and merged["info"] is None
    assert all(len(p["packet"]) <= COALESCED_BYTES for p in out)
    single = deque([packet(publish, 1, b"only")])
    coalesce(single)
    assert [p["packet"] for p in single] == [b"only"]


def test_publishes_made_in_writing_add_no_watcher_and_go_out_at_its_end(broker: Broker) -> None:
    async def scenario() -> None:
        async with Subscriber(broker.port, ["n/#"]) as sub, client_of(broker) as client:
            made = hooked(client)
            inner = made.paho
            with made.writing():
                inner.publish("n/1", "one", qos=1)
                inner.publish("n/2", "two", qos=1)
                assert inner.want_write(), "held until the end of the block"
                assert not watched_for_writing(client), "no watcher asked for them"
            assert not inner.want_write(), "written at its end, in this turn"
            assert not watched_for_writing(client)
            await until("both at the subscriber", lambda: len(sub.got) == 2)
            assert [payload for _, payload, _ in sub.got] == ["one", "two"]
        await no_tasks_left()

    asyncio.run(scenario())
