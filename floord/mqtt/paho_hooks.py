"""The one module that reaches inside aiomqtt and paho-mqtt, behind a check of their
versions: what floord's publish path does faster than their public interfaces allow.

floord publishes its journal at QoS 1 in batches (`floord.mqtt.confirm`). Through the
public interfaces alone every message costs aiomqtt a coroutine, an event, a `wait_for`
and two scans of all its pending calls, and paho-mqtt a `send` of its own, three `recv`s
for its four-byte PUBACK and a `ReasonCode` and a `Properties` built for it. Measured,
the hooks below cut the MQTT client's CPU a message by 20 to 40 % (`bench/publish_batch.py`),
a burst's `sendto`s from 20,359 to 354 and its `recvfrom`s from 48,591 to 5,670
(`strace -c` on `bench/latency.py`), and the PUBACKs' objects were an eighth of the
daemon's CPU in a burst (py-spy). So they are kept, here only (ruff's private-access
rule is off for this module alone):

- `Hooks.paho`: aiomqtt 2's paho client (`Client._client`), to which a batch is handed
  through paho's public `publish` and `on_publish` (`floord.mqtt.confirm`);
- `Hooks.write_now`: a batch's packets written in the loop's turn that made them (aiomqtt
  watches the socket for writing through `call_soon_threadsafe`, two turns later), runs
  of whole QoS 1 PUBLISH packets joined into one `send` first (`coalesce`, on paho's
  `_out_packet`); `Hooks.writing`: a batch's publishes made without a watcher, written
  by `write_now` at its end, the watcher added only for what the socket did not take;
- `ReadAhead`: the socket read in chunks (paho's `_sock_recv`);
- `fast_pubacks`: a two-byte PUBACK read without paho's two objects (its
  `_handle_pubackcomp` and what that calls);
- `fail` and `take_disconnect_error`: aiomqtt 2's `_disconnected` future, where its own
  socket callbacks report a failure and which it leaves unread after a drop;
- `manual_acks`: paho's own manual acknowledgement (`manual_ack_set`, `ack`), which
  aiomqtt 2 does not offer: the archive acknowledges a QoS 1 message only once it is
  stored, so one it had not stored when it was killed is sent again by the broker.

`WRITTEN_FOR` names the versions (major.minor) these were written against. With any
other installed, `hooks` returns None and touches nothing: the batches go through
aiomqtt's public `publish` (`floord.mqtt.confirm`), slower and with the same guarantees,
and the log says so once. `tests/test_paho_hooks_versions.py` fails when the installed
versions are not `WRITTEN_FOR`: an upgrade re-reads this module against the new source
first.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any, Literal

import aiomqtt
import paho.mqtt.client as paho
import structlog
from paho.mqtt import __version__ as paho_version
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

# The versions (major.minor) whose private parts this module was written against.
WRITTEN_FOR = {"aiomqtt": "2.5", "paho-mqtt": "2.2"}

# The most bytes one coalesced write holds: a few of the socket's buffers, so that what
# is left after a partial write (paho slices it, a copy) stays small.
COALESCED_BYTES = 65536
# The most one read of the socket takes: a few hundred PUBACKs, or a command's PUBLISH.
READ_AHEAD = 65536

_PUBLISH = 0x30
# The attribute of an aiomqtt client that holds its `Hooks`: on the client itself, not in
# a registry, which would keep every client of every connection alive.
_ATTRIBUTE = "_floord_hooks"
# The public-interfaces line is said once a process.
_said = False


def installed() -> dict[str, str]:
    """The installed versions (major.minor), keyed as `WRITTEN_FOR`."""
    return {
        "aiomqtt": ".".join(aiomqtt.__version__.split(".")[:2]),
        "paho-mqtt": ".".join(paho_version.split(".")[:2]),
    }


def fits() -> bool:
    """The installed aiomqtt and paho-mqtt are the versions this module was written for."""
    return installed() == WRITTEN_FOR


class Hooks:
    """One connected aiomqtt client's paho client, with the hooks installed (`hooks`)."""

    def __init__(self, client: aiomqtt.Client) -> None:
        self.client = client
        self.paho: paho.Client = client._client
        self._loop = asyncio.get_running_loop()
        # Publishes are being made that `writing` writes at its end: no watcher for them.
        self._deferred = False
        fast_pubacks(self.paho)
        self._watch_writes()
        self.reads: ReadAhead | None = None
        sock = self.paho.socket()
        if sock is not None:
            self.reads = ReadAhead(client, self.paho)
            # Replaces aiomqtt's reader of the socket (it removes it when the socket closes).
            asyncio.get_running_loop().add_reader(sock.fileno(), self.reads.readable)

    def _watch_writes(self) -> None:
        """paho's request to watch the socket for writing, asked on the loop's thread, is
        answered at once (`add_writer`, no self-pipe); from another thread (the one
        `connect()` runs on) it goes to aiomqtt's handler as before."""
        loop = asyncio.get_running_loop()
        loop_thread = threading.get_ident()
        theirs = self.paho.on_socket_register_write

        def watch(paho_client: paho.Client, userdata: Any, sock: Any) -> None:
            if threading.get_ident() != loop_thread or loop.is_closed():
                if theirs is not None:
                    theirs(paho_client, userdata, sock)
                return
            if self._deferred:
                return  # `writing` writes them at its end, and watches only for a rest
            loop.add_writer(sock.fileno(), self.write_now)

        self.paho.on_socket_register_write = watch

    @contextlib.contextmanager
    def writing(self) -> Iterator[None]:
        """The publishes made inside are written at its end (`write_now`), in the same
        turn of the loop, and the socket is watched for writing only if the socket did
        not take them all: a batch that goes out whole (every frame's) costs no watcher
        added and removed, two `epoll_ctl` calls and their handles."""
        self._deferred = True
        try:
            yield
        finally:
            self._deferred = False
            if self.paho.want_write():
                self.write_now()

    def write_now(self) -> None:
        """Write what paho holds, as aiomqtt's watcher would a turn later, its QoS 1
        PUBLISH packets in as few system calls as their size allows (`coalesce`). What
        the socket does not take stays queued for the watcher (registered now if it was
        not)."""
        try:
            coalesce(self.paho._out_packet)
            self.paho.loop_write()
            sock = self.paho.socket()
            if self.paho.want_write() and sock is not None:
                self._loop.add_writer(sock.fileno(), self.write_now)
        except Exception as exc:  # reported as aiomqtt reports its own watcher's failure
            fail(self.client, exc)


def hooks(client: aiomqtt.Client) -> Hooks | None:
    """`client`'s hooks (connected, on the running loop), made on first use; None when the
    installed libraries are not those of `WRITTEN_FOR` (said once in the log)."""
    found = getattr(client, _ATTRIBUTE, None)
    if isinstance(found, Hooks):
        return found
    global _said
    if not fits():
        if not _said:
            _said = True
            structlog.get_logger("floord.mqtt").info(
                "mqtt publish path through public interfaces only",
                installed=installed(),
                written_for=WRITTEN_FOR,
            )
        return None
    made = Hooks(client)
    setattr(client, _ATTRIBUTE, made)
    return made


def fail(client: aiomqtt.Client, exc: BaseException) -> None:
    """Report a failed read or write of `client`'s socket as aiomqtt's own callbacks do:
    its connection is lost with `exc`."""
    disconnected: asyncio.Future[None] = client._disconnected
    if not disconnected.done():
        disconnected.set_exception(exc)


def take_disconnect_error(client: aiomqtt.Client) -> None:
    """Mark the reason the broker dropped `client` as seen.

    aiomqtt 2 stores an unexpected disconnection as the exception of a private future and,
    when its context exits after the drop, returns without reading it; asyncio then logs
    "Future exception was never retrieved" whenever that future is collected, long after
    floord has logged the loss in its own words. Reading it keeps that line out of the
    operator's log (a client without that future is left as it is)."""
    future = getattr(client, "_disconnected", None)
    if isinstance(future, asyncio.Future) and future.done() and not future.cancelled():
        future.exception()


def coalesce(out: deque[Any]) -> None:
    """Join runs of whole QoS 1 (or 2) PUBLISH packets in paho's outgoing queue into
    packets of up to `COALESCED_BYTES`, in their order, so that the socket takes each
    run in one `send`, not one for every packet.

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


class ReadAhead:
    """One client's socket read in chunks: paho's `_sock_recv` served from a buffer, and
    the socket's reader.

    paho reads a packet with a `recv` for its first byte, one for each byte of its length
    and one for the rest. Here one `recv` takes what the socket holds (up to
    `READ_AHEAD`), and the reader has paho read until the buffer is empty: bytes read
    ahead raise no readiness of the socket, so none may be left when it returns. The
    buffer belongs to one socket: a new one starts empty."""

    def __init__(self, client: aiomqtt.Client, inner: paho.Client) -> None:
        self._client = client
        self._inner = inner
        self._recv = inner._sock_recv  # paho's own: its errors, as paho raises them
        self._buffer = bytearray()
        self._sock: object = inner.socket()
        inner._sock_recv = self.recv  # type: ignore[method-assign]

    def recv(self, bufsize: int) -> bytes:
        """paho's `_sock_recv`: up to `bufsize` bytes, from what was read ahead."""
        buffer = self._buffer
        sock = self._inner.socket()
        if sock is not self._sock:  # a new socket: nothing of the old one
            self._sock = sock
            buffer.clear()
        if not buffer:
            data = self._recv(READ_AHEAD)  # raises BlockingIOError when nothing is there
            if len(data) <= bufsize:
                return data
            buffer += data
        out = bytes(buffer[:bufsize])
        del buffer[:bufsize]
        return out

    def pending(self) -> int:
        """Bytes read ahead that paho has not taken yet."""
        return len(self._buffer) if self._inner.socket() is self._sock else 0

    def readable(self) -> None:
        """The socket's reader: paho reads until nothing read ahead is left (and, on
        TLS, nothing decrypted is pending, as aiomqtt's own reader does)."""
        inner = self._inner
        try:
            while True:
                before = self.pending()
                inner.loop_read()
                sock: Any = inner.socket()
                if sock is None:
                    return
                ssl_pending = sock.pending() if hasattr(sock, "pending") else 0
                left = self.pending()
                if (left and left < before) or ssl_pending > 0:
                    continue
                if left and left >= before:
                    # paho took none of it (it should always take some): read on next turn
                    # rather than spin here.
                    asyncio.get_running_loop().call_soon(self.readable)
                return
        except Exception as exc:  # reported as aiomqtt reports its own reader's failure
            fail(self._client, exc)


def manual_acks(client: aiomqtt.Client) -> Callable[[int], object] | None:
    """Turn paho's automatic PUBACK off for `client` (before it subscribes) and return
    the call that acknowledges a received QoS 1 message by its `mid`, on the loop's
    thread; None (automatic acknowledgements kept) with other versions."""
    if not fits():
        return None
    inner: paho.Client = client._client
    inner.manual_ack_set(True)
    return lambda mid: inner.ack(mid, 1)


def fast_pubacks(client: paho.Client) -> bool:
    """Give `client` a PUBACK handler that reads a two-byte PUBACK's id (every success:
    MQTT 3.1.1 has nothing else, MQTT 5 leaves out a success's reason and properties)
    and acknowledges it through paho's own `_do_on_publish` with one success code and
    one empty property set, made once; any other PUBACK, and every PUBCOMP, goes to
    paho's handler. False (nothing changed) if it has it already."""
    if getattr(client, "_floord_fast_pubacks", False):
        return False
    original = client._handle_pubackcomp
    success = ReasonCode(PacketTypes.PUBACK)
    no_properties = Properties(PacketTypes.PUBACK)

    def handle(cmd: Literal["PUBACK", "PUBCOMP"]) -> paho.MQTTErrorCode:
        packet: Any = client._in_packet["packet"]
        if cmd != "PUBACK" or len(packet) != 2:
            return original(cmd)  # a reason code or properties (MQTT 5), or a PUBCOMP
        mid = (packet[0] << 8) | packet[1]
        client._easy_log(paho.MQTT_LOG_DEBUG, "Received %s (Mid: %d)", cmd, mid)
        with client._out_message_mutex:
            if mid in client._out_messages:
                # Only inform the client the message has been sent once (as paho does).
                return client._do_on_publish(mid, success, no_properties)
        return paho.MQTTErrorCode.MQTT_ERR_SUCCESS

    # An attribute of the instance: paho's `_packet_handle` calls it by `self.`.
    client._handle_pubackcomp = handle  # type: ignore[method-assign]
    client._floord_fast_pubacks = True  # type: ignore[attr-defined]
    return True
