"""A socket closed before the event loop could watch it: one warning line, not a traceback.

aiomqtt asks the event loop to watch its MQTT socket from paho's side
(`loop.call_soon_threadsafe(loop.add_writer, fd, ...)`, and the same for reading). When
the broker closes the connection in between, paho has closed the socket by the time the
loop runs that request, the registration fails (EBADF, or an fd of -1) and asyncio
reports it as an "Exception in callback" error with its traceback. Nothing is lost: the
client has already seen its connection end and reports that itself (the daemon's link
logs the broker's loss and reconnects; `floord cmd` says so). An operator reading the log
meets an expected failure, the broker dropping a client, so it is one warning line.

Any other error in a loop callback keeps its traceback: it is a bug.
"""

from __future__ import annotations

import errno
import logging
import re

# asyncio's default exception handler: "Exception in callback <Handle repr>\nhandle: ..."
_WATCH = re.compile(r"Exception in callback \S*\b(?P<call>add_writer|add_reader)\((?P<fd>-?\d+)")


class ClosedSocketWatch(logging.Filter):
    """On asyncio's logger: a failed `add_writer`/`add_reader` of a closed socket becomes a
    warning that says so; every other record passes unchanged."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if exc is None or not _closed_descriptor(exc):
            return True
        found = _WATCH.match(str(record.msg))
        if found is None:
            return True
        record.msg = "a connection closed before the event loop could watch its socket (%s fd %s)"
        record.args = (found["call"], found["fd"])
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        record.exc_info, record.exc_text = None, None
        return True


def _closed_descriptor(exc: BaseException) -> bool:
    """Whether `exc` is what registering a closed socket raises: EBADF from the selector,
    or the ValueError of an fd that was already -1 when the request was made."""
    if isinstance(exc, OSError):
        return exc.errno == errno.EBADF
    return isinstance(exc, ValueError) and str(exc).startswith("Invalid file descriptor")


CLOSED_SOCKET_WATCH = ClosedSocketWatch()


def install() -> None:
    """Put the filter on asyncio's logger, once, however often logging is configured."""
    logger = logging.getLogger("asyncio")
    if CLOSED_SOCKET_WATCH not in logger.filters:
        logger.addFilter(CLOSED_SOCKET_WATCH)
