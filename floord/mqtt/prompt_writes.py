"""A batch's packets written to the broker's socket in the loop's turn that made them.

paho-mqtt queues each packet and asks for the socket to be watched for writing; aiomqtt
2's answer to that request is `loop.call_soon_threadsafe(loop.add_writer, ...)`, because
paho may ask from the thread `connect()` runs on. So a packet made on the event loop
went out two turns of the loop later: one turn (and a byte through the loop's self-pipe,
two system calls) to watch the socket, one more for the socket's readiness to be seen
and `loop_write` to run. On a frame's way from the pty to the broker (issue 15) that was
two of the dozen-odd turns of the loop a frame took, for each batch and for the retained
state.

`prompt_writes` gives one client a request handler that, asked on the loop's own thread,
watches the socket at once (`add_writer`, no self-pipe) and otherwise hands over to
aiomqtt's; `write_now` then writes what paho holds, as the watcher would have a turn
later. What the socket does not take at once stays queued, and the watcher (registered
now, removed by paho's own "unregister" once all is written) sends the rest, exactly as
before. A write that fails is reported as aiomqtt's own watcher reports it: the
client's `_disconnected` future gets the exception.

It uses aiomqtt 2's `_client` and `_disconnected` (pyproject keeps aiomqtt below 3) and
paho's public `loop_write` and socket callbacks; a client without them is left as it is.
`tests/test_prompt_writes.py` tests it on a real Mosquitto, and every batch of
`tests/test_publish_batch.py` goes through it.
"""

from __future__ import annotations

import asyncio
import threading
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
    """Write what `client`'s paho holds (on the loop), as aiomqtt's watcher would.

    What the socket does not take stays queued for the watcher; a failure goes to the
    client's `_disconnected`, where aiomqtt's own watcher puts it."""
    try:
        client._client.loop_write()
    except Exception as exc:  # reported as aiomqtt reports its own watcher's failure
        disconnected: asyncio.Future[None] = client._disconnected
        if not disconnected.done():
            disconnected.set_exception(exc)
