"""A batch's packets written to the broker's socket in the loop's turn that made them.

paho-mqtt queues each packet and asks for the socket to be watched for writing; aiomqtt
2's answer to that request is `loop.call_soon_threadsafe(loop.add_writer, ...)`, because
paho may ask from the thread `connect()` runs on. So a packet made on the event loop
would go out two turns of the loop later: one turn (and a byte through the loop's
self-pipe, two system calls) to watch the socket, one more for the socket's readiness to
be seen and `loop_write` to run. On a frame's way from the pty to the broker that is two
of the dozen-odd turns of the loop a frame takes, for each batch and for the retained
state.

`prompt_writes` gives one client a request handler that, asked on the loop's own thread,
watches the socket at once (`add_writer`, no self-pipe) and otherwise hands over to
aiomqtt's; `write_now` then writes what paho holds, as the watcher would have a turn
later. What the socket does not take at once stays queued, and the watcher (registered
now, removed by paho's own "unregister" once all is written) sends the rest, exactly as
before. A write that fails is reported as aiomqtt's own watcher reports it: the
client's `_disconnected` future gets the exception.

Before it writes, `write_now` joins runs of whole QoS 1 PUBLISH packets into one
(`coalesce`): paho sends every packet with a `send` of its own, and in a burst that was
20,000 system calls (each releasing the GIL to the journal's thread, and waking the
broker) for 10,000 frames, where the coalesced runs need a few hundred.

It uses aiomqtt 2's `_client` and `_disconnected` (pyproject keeps aiomqtt below 3) and
paho's public `loop_write` and socket callbacks, and paho-mqtt 2's outgoing queue
(`_out_packet`) to coalesce; a client without them is left as it is.
`tests/test_prompt_writes.py` tests it on a real Mosquitto, and every batch of
`tests/test_publish_batch.py` goes through it.
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from typing import Any

import aiomqtt
import paho.mqtt.client as paho

_ATTRIBUTE = "_floord_prompt_writes"


def prompt_writes(client: aiomqtt.Client) -> bool:
    """Give `client` (on the running loop) the prompt write handler: whether it has
    it (False, nothing changed: it lacks what the handler uses)."""
    if getattr(client, _ATTRIBUTE, False):
        return True
    inner: Any = getattr(client, "_client", None)
    if not isinstance(inner, paho.Client) or not hasattr(client, "_disconnected"):
        return False
    if not isinstance(getattr(inner, "_out_packet", None), deque):
        return False
    loop = asyncio.get_running_loop()
    loop_thread = threading.get_ident()
    theirs = inner.on_socket_register_write

    def watch(paho_client: paho.Client, userdata: Any, sock: Any) -> None:
        if threading.get_ident() != loop_thread or loop.is_closed():
            if theirs is not None:
                theirs(paho_client, userdata, sock)
            return
        loop.add_writer(sock.fileno(), write_now, client)

    inner.on_socket_register_write = watch
    setattr(client, _ATTRIBUTE, True)
    return True


def write_now(client: aiomqtt.Client) -> None:
    """Write what `client`'s paho holds (on the loop), as aiomqtt's watcher would, its
    QoS 1 PUBLISH packets in as few system calls as their size allows (`coalesce`).

    What the socket does not take stays queued for the watcher; a failure goes to the
    client's `_disconnected`, where aiomqtt's own watcher puts it."""
    try:
        inner = client._client
        coalesce(inner._out_packet)
        inner.loop_write()
    except Exception as exc:  # reported as aiomqtt reports its own watcher's failure
        disconnected: asyncio.Future[None] = client._disconnected
        if not disconnected.done():
            disconnected.set_exception(exc)


# The most bytes one coalesced write holds: a few of the socket's buffers, so that what
# is left after a partial write (paho slices it, a copy) stays small.
COALESCED_BYTES = 65536

_PUBLISH = 0x30


def coalesce(out: deque[Any]) -> None:
    """Join runs of whole QoS 1 (or 2) PUBLISH packets in paho's outgoing queue into
    packets of up to `COALESCED_BYTES`, in their order, so that the socket takes each
    run in one `send`, not one for every packet (in a burst, a system call and a wake of
    the broker for every message).

    paho does nothing with such a packet once written but count its bytes (only a QoS 0
    PUBLISH and a DISCONNECT have more to do when written); the message itself, what a
    PUBACK settles and a reconnection resends, is paho's `_out_messages`, untouched. A
    packet already partly written, and every other kind, stays as it is and in place."""
    if len(out) < 2:
        return
    kept: list[Any] = []
    run: list[Any] = []
    size = 0
    for packet in out:
        whole = packet["pos"] == 0 and (packet["command"] & 0xF0) == _PUBLISH and packet["qos"] > 0
        if whole and size + len(packet["packet"]) <= COALESCED_BYTES:
            run.append(packet)
            size += len(packet["packet"])
            continue
        _flush(run, kept)
        run, size = ([packet], len(packet["packet"])) if whole else ([], 0)
        if not whole:
            kept.append(packet)
    _flush(run, kept)
    if len(kept) < len(out):
        out.clear()
        out.extend(kept)


def _flush(run: list[Any], kept: list[Any]) -> None:
    if len(run) == 1:
        kept.append(run[0])
    elif run:
        data = b"".join(packet["packet"] for packet in run)
        first = run[0]
        kept.append(
            {
                "command": first["command"],
                "mid": first["mid"],
                "qos": first["qos"],
                "pos": 0,
                "to_process": len(data),
                "packet": data,
                "info": None,
            }
        )
