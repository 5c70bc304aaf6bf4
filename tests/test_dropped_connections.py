"""A socket closed before the event loop watches it is one warning line, never a traceback.

aiomqtt asks the loop, from paho's thread, to watch its MQTT socket; when the broker drops
the client in between, the socket is closed before the loop runs the request and asyncio
reports the failed registration with a traceback. These tests make that request on a real
loop, from another thread as paho does, on a socket closed first, and read what floord's
log pipeline writes (`floord.system.dropped_connections`; paho's lines about a broker's
reset: tests/test_dropped_connections_system.py).
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import threading
from collections.abc import Callable, Iterator

import pytest

from floord.system.logs import configure_logging

pytestmark = pytest.mark.unit

Lines = Callable[[], list[dict[str, object]]]


@pytest.fixture
def json_lines(capsys: pytest.CaptureFixture[str]) -> Iterator[Lines]:
    """The JSON lines floord's pipeline writes to stderr (pytest's capture, at write time)."""
    configure_logging("info", fmt="json")
    yield lambda: [json.loads(line) for line in capsys.readouterr().err.splitlines() if line]
    configure_logging()


def _register_from_another_thread(register: Callable[[asyncio.AbstractEventLoop], None]) -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        asker = threading.Thread(target=register, args=(loop,))
        asker.start()
        await asyncio.to_thread(asker.join)
        for _ in range(3):  # the loop runs the request
            await asyncio.sleep(0)

    asyncio.run(main())


def test_a_writer_asked_for_a_socket_closed_since_is_a_warning(json_lines: Lines) -> None:
    def register(loop: asyncio.AbstractEventLoop) -> None:
        mine, theirs = socket.socketpair()
        fd = mine.fileno()
        theirs.close()
        mine.close()  # the broker dropped the client: paho closed the socket
        loop.call_soon_threadsafe(loop.add_writer, fd, lambda: None)

    _register_from_another_thread(register)
    lines = [line for line in json_lines() if line["logger"] == "asyncio"]
    assert len(lines) == 1, lines
    (line,) = lines
    assert line["level"] == "warning"
    assert str(line["event"]).startswith(
        "a connection closed before the event loop could watch its socket (add_writer fd "
    )
    assert "exception" not in line


def test_a_reader_asked_for_an_fd_already_gone_is_a_warning(json_lines: Lines) -> None:
    def register(loop: asyncio.AbstractEventLoop) -> None:
        # `sock.fileno()` of a socket closed before the request: -1.
        loop.call_soon_threadsafe(loop.add_reader, -1, lambda: None)

    _register_from_another_thread(register)
    lines = [line for line in json_lines() if line["logger"] == "asyncio"]
    assert [(line["level"], line["event"]) for line in lines] == [
        (
            "warning",
            "a connection closed before the event loop could watch its socket (add_reader fd -1)",
        )
    ]


def test_any_other_failing_callback_keeps_its_traceback(json_lines: Lines) -> None:
    def fails() -> None:
        raise OSError(9, "Bad file descriptor, but not from registering a socket")

    def register(loop: asyncio.AbstractEventLoop) -> None:
        loop.call_soon_threadsafe(fails)

    _register_from_another_thread(register)
    lines = [line for line in json_lines() if line["logger"] == "asyncio"]
    assert len(lines) == 1, lines
    assert lines[0]["level"] == "error"
    assert "Traceback (most recent call last)" in str(lines[0]["exception"])


def test_another_paho_error_stays_an_error(json_lines: Lines) -> None:
    logging.getLogger("mqtt").error("Caught exception in on_connect: %s", "a bug")
    (line,) = json_lines()
    assert (line["level"], line["event"]) == ("error", "Caught exception in on_connect: a bug")


def test_configuring_again_installs_the_filter_once(json_lines: Lines) -> None:
    configure_logging("info", fmt="json")
    configure_logging("debug", fmt="json")
    from floord.system.dropped_connections import FILTERS

    for name, kept in FILTERS.items():
        assert logging.getLogger(name).filters.count(kept) == 1, name
