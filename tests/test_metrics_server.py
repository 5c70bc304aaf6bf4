"""The metrics' HTTP server on a real loopback socket: what it answers, and what it
refuses without costing the loop (a head too long, a client that says nothing)."""

from __future__ import annotations

import asyncio
import contextlib

import pytest
import structlog

from floord.metrics.readings import Health
from floord.metrics.server import MetricsServer, keep_listening

pytestmark = pytest.mark.system


async def _ask(port: int, request: bytes) -> tuple[str, dict[str, str], bytes]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request)
    await writer.drain()
    try:
        answer = await asyncio.wait_for(reader.read(), 10)
    except ConnectionResetError:
        answer = b""  # closed with the request unread: no answer, as for a refusal
    writer.close()
    with contextlib.suppress(ConnectionResetError):
        await writer.wait_closed()
    if not answer:
        return "", {}, b""
    head, _, body = answer.partition(b"\r\n\r\n")
    status, *lines = head.decode("ascii").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines)
    return status, headers, body


def _server(health: Health) -> MetricsServer:
    async def render() -> bytes:
        return b"floord_up 1\n"

    async def healthz() -> Health:
        return health

    log = structlog.get_logger("test")
    return MetricsServer(
        "127.0.0.1",
        0,
        render=render,
        content_type="text/plain; version=0.0.4",
        health=healthz,
        log=log,
    )


def test_the_server_answers_metrics_health_and_nothing_else() -> None:
    async def run() -> None:
        server = _server(Health(("journal closed", "broker not connected for table RL-01")))
        await server.start()
        port = server.port
        try:
            status, headers, body = await _ask(port, b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
            assert status == "HTTP/1.1 200 OK" and body == b"floord_up 1\n"
            assert headers["Content-Type"] == "text/plain; version=0.0.4"
            assert headers["Content-Length"] == str(len(body))
            status, _, body = await _ask(port, b"GET /healthz HTTP/1.1\r\n\r\n")
            assert status == "HTTP/1.1 503 Service Unavailable"
            assert body == b"not ready\njournal closed\nbroker not connected for table RL-01\n"
            status, headers, body = await _ask(port, b"HEAD /metrics?x=1 HTTP/1.0\r\n\r\n")
            assert status == "HTTP/1.1 200 OK" and body == b""
            assert headers["Content-Length"] == str(len(b"floord_up 1\n"))
            assert (await _ask(port, b"POST /metrics HTTP/1.1\r\n\r\n"))[0].endswith(
                "405 Method Not Allowed"
            )
            assert (await _ask(port, b"GET /secrets HTTP/1.1\r\n\r\n"))[0].endswith("404 Not Found")
            assert (await _ask(port, b"nonsense\r\n\r\n"))[0].endswith("400 Bad Request")
            # A head past the limit: closed without an answer.
            assert (await _ask(port, b"GET /" + b"a" * 20_000 + b" HTTP/1.1\r\n\r\n"))[2] == b""
        finally:
            await server.close()

    asyncio.run(run())


def test_ready_says_so() -> None:
    async def run() -> None:
        server = _server(Health())
        await server.start()
        try:
            status, _, body = await _ask(server.port, b"GET /healthz HTTP/1.1\r\n\r\n")
            assert (status, body) == ("HTTP/1.1 200 OK", b"ready\n")
        finally:
            await server.close()

    asyncio.run(run())


def test_an_address_in_use_is_tried_again_not_fatal() -> None:
    async def run() -> None:
        holder = _server(Health())
        await holder.start()
        second = MetricsServer(
            "127.0.0.1",
            holder.port,
            render=_never,
            content_type="text/plain",
            health=_never_health,
            log=structlog.get_logger("test"),
        )
        trying = asyncio.create_task(
            keep_listening(second, f"127.0.0.1:{holder.port}", structlog.get_logger("test"))
        )
        await asyncio.sleep(0.2)
        assert not trying.done()  # waiting to try again, not failed
        trying.cancel()
        await asyncio.gather(trying, return_exceptions=True)
        await holder.close()
        await second.close()

    asyncio.run(run())


async def _never() -> bytes:
    raise AssertionError("not asked")


async def _never_health() -> Health:
    raise AssertionError("not asked")
