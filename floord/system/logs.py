"""Structured logs (structlog): readable on a terminal, one line per record everywhere else.

One pipeline for every line the process writes: floord's own structlog loggers and the
stdlib loggers of the libraries under it (aiomqtt and paho's `mqtt`, asyncio, amqtt)
all end in structlog's `ProcessorFormatter` on the root stdlib logger. So an operator
reading journald, or a script reading the JSON, never meets a bare text line among the
others, and the level chosen with `--log-level` holds for all of them.

The format (`--log-format`, or FLOORD_LOG_FORMAT):
- `auto` (the default): `journal` when stderr is systemd's journal (JOURNAL_STREAM,
  `floord.system.journald`), `console` on a terminal, `json` anywhere else;
- `console`: structlog's columns, in colour on a terminal;
- `json`: one JSON object per line, for log shippers and scripts;
- `journal`: one line `event key=value ...` (`floord.system.log_line`), prefixed `<N>`.

Whenever stderr is the journal, whatever the format, every line carries its syslog
priority prefix (`<4>` for a warning ...), so `journalctl -p warning` filters, and so does
whatever else reaches stderr (`floord.system.journald.PriorityStream`); `journal` adds
the prefixes even where stderr is not recognised as the journal (`systemd-cat`, a
supervisor that passes the stream on).

A broker dropping a connection is an expected failure: what paho and asyncio say of it
is a warning line like floord's own, never an error or a traceback
(`floord.system.dropped_connections`).
"""

from __future__ import annotations

import logging
import sys
from typing import Any, TextIO, cast

from floord.system import dropped_connections
from floord.system.journald import PriorityStream, prefix_lines, priority, stream_is_journal
from floord.system.log_library import structlog
from floord.system.log_line import OneLineRenderer

# Marks the root handler this module installs, so configuring again replaces it.
_HANDLER_NAME = "floord"


FORMATS = ("auto", "console", "json", "journal")


def configure_logging(level: str = "info", *, fmt: str = "auto") -> None:
    """Send structured logs to stderr in `fmt` (one of FORMATS, module docstring)."""
    if fmt not in FORMATS:
        raise ValueError(f"log format: one of {', '.join(FORMATS)} expected, found {fmt!r}")
    stderr = sys.stderr.inner if isinstance(sys.stderr, PriorityStream) else sys.stderr
    journal = stream_is_journal(stderr)
    if fmt == "auto":
        fmt = "journal" if journal else ("console" if stderr.isatty() else "json")
    prefixed = journal or fmt == "journal"
    # Lines written outside the pipeline get a priority too (err): see PriorityStream.
    sys.stderr = cast(TextIO, PriorityStream(stderr)) if prefixed else stderr
    numeric = logging.getLevelNamesMapping()[level.upper()]
    renderer: structlog.types.Processor
    if fmt == "json":
        renderer = structlog.processors.JSONRenderer()
    elif fmt == "journal":
        renderer = OneLineRenderer()
    else:
        renderer = structlog.dev.ConsoleRenderer(
            colors=stderr.isatty() and not prefixed,
            exception_formatter=structlog.dev.plain_traceback,
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
    if fmt != "console":
        # A traceback (a bug, never an expected failure) stays inside its one JSON line;
        # in a journal line it follows, each of its lines with the record's priority.
        final.append(structlog.processors.format_exc_info)
    final.append(renderer)
    formatter_class = _PriorityFormatter if prefixed else structlog.stdlib.ProcessorFormatter
    formatter = formatter_class(
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
    dropped_connections.install()


class _PriorityFormatter(structlog.stdlib.ProcessorFormatter):
    """Every line of a record prefixed with its syslog priority (`floord.system.journald`)."""

    def format(self, record: logging.LogRecord) -> str:
        return prefix_lines(super().format(record), priority(record.levelno))


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
