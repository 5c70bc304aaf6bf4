"""Structured logs (structlog): readable on a terminal, JSON lines everywhere else."""

from __future__ import annotations

import logging
import sys

import structlog


def configure_logging(level: str = "info", *, json_lines: bool | None = None) -> None:
    """Send structured logs to stderr; JSON when stderr is not a terminal (journald, files)."""
    if json_lines is None:
        json_lines = not sys.stderr.isatty()
    renderer: structlog.types.Processor = (
        structlog.processors.JSONRenderer()
        if json_lines
        else structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty())
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(
            logging.getLevelNamesMapping()[level.upper()]
        ),
        # structlog asks for a TextIO but only writes and flushes, all _CurrentStderr does.
        logger_factory=structlog.PrintLoggerFactory(file=_CurrentStderr()),  # type: ignore[arg-type]
        cache_logger_on_first_use=False,
    )


class _CurrentStderr:
    """Whatever `sys.stderr` is when a line is written, not when logging was set up.

    A process whose stderr is swapped later (a test harness capturing output, a daemon
    re-pointing it) must never log into a closed file: a log line that raises inside the
    engine's path would turn a fault into a crash.
    """

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()
