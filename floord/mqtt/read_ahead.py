"""The broker's socket read in chunks, not a system call for every field of a packet.

paho-mqtt reads a packet with a `recv` for its first byte, one for each byte of its
length and one for the rest: three system calls for every four-byte PUBACK. In a burst
that is some 48,000 `recv`s for 16,000 acknowledgements (`strace -c` on the daemon), each
one releasing the GIL and waking the journal's thread waiting for it.

`read_ahead` gives one client a `_sock_recv` that reads what the socket holds (up to
`READ_AHEAD` bytes) in one call and serves paho's small reads from it, and a reader for
the socket that has paho read until that buffer is empty: bytes read ahead are not seen
by the loop's watch on the socket, so no packet may be left in the buffer when the
reader returns (paho reads at most as many packets a call as it has messages in flight).
A failure of a read is reported as aiomqtt's own reader reports it: the client's
`_disconnected` future gets the exception. The buffer belongs to one socket: a new one
starts empty.

It uses aiomqtt 2's `_client` and `_disconnected` and paho-mqtt 2's `_sock` and
`_sock_recv` (pyproject keeps aiomqtt, and so paho, below 3); a client without them is
left as it is. `tests/test_read_ahead.py` tests it on a real Mosquitto, and every batch
of `tests/test_publish_batch.py` goes through it.
"""

from __future__ import annotations

import asyncio
from typing import Any

import aiomqtt
import paho.mqtt.client as paho

# The most one read takes: a few hundred PUBACKs, or a command's PUBLISH.
READ_AHEAD = 65536

_ATTRIBUTE = "_floord_read_ahead"


class ReadAhead:
    """One client's read-ahead buffer, its `_sock_recv` and the socket's reader."""

    def __init__(self, client: aiomqtt.Client, inner: paho.Client) -> None:
        self._client = client
        self._inner = inner
        self._recv = inner._sock_recv  # paho's own: its errors, as paho raises them
        self._buffer = bytearray()
        self._sock: object = inner._sock

    def recv(self, bufsize: int) -> bytes:
        """paho's `_sock_recv`: up to `bufsize` bytes, from what was read ahead."""
        buffer = self._buffer
        if self._inner._sock is not self._sock:  # a new socket: nothing of the old one
            self._sock = self._inner._sock
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
        return len(self._buffer) if self._inner._sock is self._sock else 0

    def readable(self) -> None:
        """The socket's reader: paho reads until nothing read ahead is left (and, on
        TLS, nothing decrypted is pending, as aiomqtt's own reader does)."""
        inner = self._inner
        try:
            while True:
                before = self.pending()
                inner.loop_read()
                sock: Any = inner._sock
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
            disconnected: asyncio.Future[None] = self._client._disconnected
            if not disconnected.done():
                disconnected.set_exception(exc)


def read_ahead(client: aiomqtt.Client) -> bool:
    """Give `client` (connected, on the running loop) its read-ahead; whether it has it
    (False, nothing changed: it lacks what the read-ahead uses, or has no socket)."""
    if isinstance(getattr(client, _ATTRIBUTE, None), ReadAhead):
        return True
    inner: Any = getattr(client, "_client", None)
    if not isinstance(inner, paho.Client) or not hasattr(client, "_disconnected"):
        return False
    if not hasattr(inner, "_sock_recv") or inner.socket() is None:
        return False
    sock = inner.socket()
    assert sock is not None
    reads = ReadAhead(client, inner)
    inner._sock_recv = reads.recv  # type: ignore[method-assign]
    # Replaces aiomqtt's reader of the socket (it removes it when the socket closes).
    asyncio.get_running_loop().add_reader(sock.fileno(), reads.readable)
    setattr(client, _ATTRIBUTE, reads)
    return True
