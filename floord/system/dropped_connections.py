"""What the libraries say when a broker drops an MQTT connection: warnings, as floord's own.

A broker that restarts, or drops a client, is an expected failure: the daemon's link says
`broker connection lost` (a warning) and reconnects, `floord cmd` prints its one line.
Two libraries under them report the same loss louder, and these filters bring those
reports to the level of floord's own line, keeping what they say:

- paho (the `mqtt` logger, through aiomqtt) logs the socket error that ended the
  connection (`failed to receive on socket: [Errno 104] Connection reset by peer`, or a
  timeout) as an error; every such line ends the connection (paho returns "connection
  lost"), so it becomes a warning, with the errno the link's own line lacks.
- asyncio reports a socket closed before the event loop could watch it as an error with
  a traceback. aiomqtt asks the loop, from paho's side, to watch its socket
  (`loop.call_soon_threadsafe(loop.add_writer, fd, ...)`, and the same for reading); when
  the broker closes the connection in between, paho has closed the socket by the time the
  loop runs the request, and the registration fails (EBADF, or an fd of -1). The client
  has already seen its connection end, so this is one warning line without a traceback.

Any other record of either logger passes unchanged: another failing loop callback keeps
its traceback (it is a bug), another paho error stays an error.
"""

from __future__ import annotations

import errno
import logging
import re

# asyncio's default exception handler: "Exception in callback <Handle repr>\nhandle: ..."
_WATCH = re.compile(r"Exception in callback \S*\b(?P<call>add_writer|add_reader)\((?P<fd>-?\d+)")
# paho's reports of the socket error that ended a connection (its format strings).
_PAHO_LOSSES = frozenset({"failed to receive on socket: %s", "timeout on socket: %s"})


def _as_warning(record: logging.LogRecord) -> None:
    record.levelno, record.levelname = logging.WARNING, "WARNING"


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
        record.exc_info, record.exc_text = None, None
        _as_warning(record)
        return True


class PahoSocketLoss(logging.Filter):
    """On paho's `mqtt` logger: the socket error that ended a connection is a warning."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno == logging.ERROR and record.msg in _PAHO_LOSSES:
            _as_warning(record)
        return True


def _closed_descriptor(exc: BaseException) -> bool:
    """Whether `exc` is what registering a closed socket raises: EBADF from the selector,
    or the ValueError of an fd that was already -1 when the request was made."""
    if isinstance(exc, OSError):
        return exc.errno == errno.EBADF
    return isinstance(exc, ValueError) and str(exc).startswith("Invalid file descriptor")


FILTERS: dict[str, logging.Filter] = {
    "asyncio": ClosedSocketWatch(),
    "mqtt": PahoSocketLoss(),
}


def install() -> None:
    """Put each filter on its logger, once, however often logging is configured."""
    for name, kept in FILTERS.items():
        logger = logging.getLogger(name)
        if kept not in logger.filters:
            logger.addFilter(kept)
