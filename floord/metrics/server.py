"""`/metrics` and `/healthz` over HTTP, served on the process's event loop.

On the loop, not on a thread of `prometheus_client`'s: a scrape reads the tables, the
devices and the links where they live, with no lock, and awaits the journal's figures
on the journal's thread like any other reader. A request is read with a bound (its head
at most `HEAD_LIMIT` bytes within `READ_TIMEOUT_S`) and answered with the connection
closed; at most `MOST_CONNECTIONS` are served at once, the others closed at once, so a
misbehaving client costs the loop nothing worth having.

- `GET /metrics`: the text exposition format;
- `GET /healthz`: `200 ready` when the journal is open and recording and the broker is
  connected, else `503 not ready` with one reason a line;
- anything else: 404, or 405 for a method other than GET or HEAD.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

from floord.metrics.readings import Health

HEAD_LIMIT = 8192
READ_TIMEOUT_S = 5.0
WRITE_TIMEOUT_S = 10.0
MOST_CONNECTIONS = 8
TEXT = "text/plain; charset=utf-8"


class MetricsServer:
    """Serves one process's metrics and health on `host:port` until closed."""

    def __init__(
        self,
        host: str,
        port: int,
        *,
        render: Callable[[], Awaitable[bytes]],
        content_type: str,
        health: Callable[[], Awaitable[Health]],
        log: Any,
    ) -> None:
        self._host = host
        self._port = port
        self._render = render
        self._content_type = content_type
        self._health = health
        self._log = log
        self._server: asyncio.Server | None = None
        self._open: set[asyncio.Task[Any]] = set()

    @property
    def port(self) -> int:
        """The port it listens on (the one the system gave, for port 0)."""
        assert self._server is not None, "not started"
        port: int = self._server.sockets[0].getsockname()[1]
        return port

    async def start(self) -> None:
        """Listen; OSError if the address cannot be had (in use, not this host's)."""
        self._server = await asyncio.start_server(
            self._connection, self._host, self._port, limit=HEAD_LIMIT
        )

    async def close(self) -> None:
        if self._server is None:
            return
        self._server.close()
        for task in list(self._open):
            task.cancel()
        await asyncio.gather(*self._open, return_exceptions=True)
        await self._server.wait_closed()
        self._server = None

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if len(self._open) >= MOST_CONNECTIONS or task is None:
            writer.close()
            return
        self._open.add(task)
        try:
            await self._serve(reader, writer)
        except (OSError, TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass  # the client went, was too slow or sent too much: nothing to answer
        finally:
            self._open.discard(task)
            writer.close()
            with contextlib.suppress(OSError, TimeoutError):
                async with asyncio.timeout(1.0):
                    await writer.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        async with asyncio.timeout(READ_TIMEOUT_S):
            head = await reader.readuntil(b"\r\n\r\n")
        words = head.split(b"\r\n", 1)[0].split(b" ")
        method = words[0]
        if len(words) != 3 or not words[2].startswith(b"HTTP/"):
            status, body, kind = "400 Bad Request", b"bad request\n", TEXT
        else:
            status, body, kind = await self._answer(method, words[1].split(b"?", 1)[0])
        # HEAD: the same head (its length too), no body.
        writer.write(_head(status, kind, len(body)) + (b"" if method == b"HEAD" else body))
        async with asyncio.timeout(WRITE_TIMEOUT_S):
            await writer.drain()

    async def _answer(self, method: bytes, path: bytes) -> tuple[str, bytes, str]:
        if method not in (b"GET", b"HEAD"):
            return "405 Method Not Allowed", b"GET or HEAD expected\n", TEXT
        if path == b"/metrics":
            return "200 OK", await self._render(), self._content_type
        if path == b"/healthz":
            health = await self._health()
            if health.ready:
                return "200 OK", b"ready\n", TEXT
            text = "not ready\n" + "".join(f"{line}\n" for line in health.problems)
            return "503 Service Unavailable", text.encode("utf-8"), TEXT
        if path == b"/":
            return "200 OK", b"floord: /metrics, /healthz\n", TEXT
        return "404 Not Found", b"/metrics or /healthz expected\n", TEXT


def _head(status: str, content_type: str, length: int) -> bytes:
    return (
        f"HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\n"
        f"Content-Length: {length}\r\nConnection: close\r\n\r\n"
    ).encode("ascii")


# How long a server that could not listen waits before it tries again.
LISTEN_RETRY_S = 10.0


async def keep_listening(server: MetricsServer, listen: str, log: Any) -> None:
    """Start `server`, trying again every `LISTEN_RETRY_S` while its address cannot be
    had (another process holds the port): the metrics never stop a table box, and the
    error is said once, and once more when it listens."""
    failed = False
    while True:
        try:
            await server.start()
        except OSError as exc:
            if not failed:
                log.error(
                    "metrics cannot listen",
                    listen=listen,
                    error=str(exc),
                    retry_in_s=LISTEN_RETRY_S,
                )
            failed = True
            await asyncio.sleep(LISTEN_RETRY_S)
            continue
        log.info("metrics listening", listen=listen, port=server.port)
        return
