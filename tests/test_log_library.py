"""The console's log lines carry an unexpected exception's traceback, rich or no rich.

`floord.system.log_library` imports structlog with rich refused, so structlog's own
default (rich's tracebacks where rich is installed) is never what renders one; the
console renderer names its plain formatter (`floord.system.logs`). A bug's traceback
must still reach the person at the terminal, and read the same on a box without rich.
"""

from __future__ import annotations

import io
import logging
import sys

import pytest

from floord.system.log_library import structlog
from floord.system.logs import configure_logging

pytestmark = pytest.mark.unit


def test_a_console_line_carries_the_plain_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    stderr = io.StringIO()
    monkeypatch.setattr(sys, "stderr", stderr)
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        configure_logging("info", fmt="console")
        try:
            raise RuntimeError("the wheel's frame was not understood")
        except RuntimeError:
            structlog.get_logger("floord.test").exception("frame.failed")
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
    text = stderr.getvalue()
    assert "frame.failed" in text
    assert "Traceback (most recent call last):" in text
    assert "RuntimeError: the wheel's frame was not understood" in text
    # rich's form draws its traceback in a box of these.
    assert "╭" not in text
