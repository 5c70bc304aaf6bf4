"""Structured logs (structlog): readable on a terminal, JSON lines everywhere else.

One pipeline for every line the process writes: floord's own structlog loggers and the
stdlib loggers of the libraries under it (aiomqtt and paho's `mqtt`, asyncio, amqtt)
all end in structlog's `ProcessorFormatter` on the root stdlib logger. So an operator
reading journald, or a script reading the JSON, never meets a bare text line among the
JSON ones, and the level chosen with `--log-level` holds for all of them.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

import structlog

# Marks the root handler this module installs, so configuring again replaces it.
_HANDLER_NAME = "floord"


def configure_logging(level: str = "info", *, json_lines: bool | None = None) -> None:
    """Send structured logs to stderr; JSON when stderr is not a terminal (journald, files)."""
    if json_lines is None:
        json_lines = not sys.stderr.isatty()
    numeric = logging.getLevelNamesMapping()[level.upper()]
    renderer: structlog.types.Processor = (
        structlog.processors.JSONRenderer()
        if json_lines
        else structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty())
    )
    # What a line gets whichever logger wrote it: level, logger name, time.
    shared: list[structlog.types.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    structlog.configure(
        processors=[
            *shared,
            structlog.stdlib.PositionalArgumentsFormatter(),
            structlog.stdlib.ProcessorFormatter.wrap_for_formatter,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=structlog.stdlib.LoggerFactory(),
        cache_logger_on_first_use=False,
    )
    final: list[structlog.types.Processor] = [
        structlog.stdlib.ProcessorFormatter.remove_processors_meta,
    ]
    if json_lines:
        # A traceback (a bug, never an expected failure) stays inside its one JSON line.
        final.append(structlog.processors.format_exc_info)
    final.append(renderer)
    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=[*shared, structlog.stdlib.ExtraAdder()],
        processors=final,
    )
    handler = _QuietHandler(_CurrentStderr())
    handler.set_name(_HANDLER_NAME)
    handler.setFormatter(formatter)
    root = logging.getLogger()
    for old in [h for h in root.handlers if h.get_name() == _HANDLER_NAME]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(numeric)


class _QuietHandler(logging.StreamHandler):
    """A stderr handler that never prints logging's own "--- Logging error ---" traceback:
    a log line that cannot be written (stderr closed, a pipe gone) is dropped, because a
    log line must never be what turns a fault into a crash or a traceback."""

    def handleError(self, record: logging.LogRecord) -> None:
        return


class _CurrentStderr:
    """Whatever `sys.stderr` is when a line is written, not when logging was set up.

    A process whose stderr is swapped later (a test harness capturing output, a daemon
    re-pointing it) must never log into a closed file: a log line that raises inside the
    engine's path would turn a fault into a crash.
    """

    def write(self, text: str) -> Any:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()
