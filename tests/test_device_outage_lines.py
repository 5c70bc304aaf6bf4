"""No log flood from a device that stays missing (`floord.adapters.outage`): its first
failure is one warning naming the port once, the attempts after it are counted and said
again at growing intervals (1 min, 2, 4 ... at most 1 h apart), and its return is one
line with how long it was gone.

`Outage` over a simulated day of attempts 10 s apart. The adapter on a missing port that
then appears, a real pty behind it, is in `test_device_outage_lines_system.py`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import MutableMapping
from typing import Any

import pytest
import structlog

from floord.adapters.outage import REPEAT_FIRST_S, REPEAT_MAX_S, Outage

pytestmark = pytest.mark.unit

DAY_S = 24 * 3600.0
RETRY_S = 10.0  # the SS2 profile's reconnect_max_s: what a missing device is tried at


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _captured() -> tuple[Any, list[MutableMapping[str, Any]]]:
    """A logger that keeps every line it is given, and the lines: whatever logging the
    tests before this one configured in the worker (a CLI run in-process filters by
    level, `floord demo` at the error level)."""
    capture = structlog.testing.LogCapture()
    log = structlog.wrap_logger(None, processors=[capture], wrapper_class=structlog.BoundLogger)
    return log, capture.entries


def test_a_day_missing_is_a_few_dozen_lines_not_thousands() -> None:
    clock = Clock()
    log, logs = _captured()
    log = log.bind(port="/dev/floord/wheel")
    outage = Outage(log, still="device still offline", back="device back", clock=clock)
    firsts = 0
    for _ in range(int(DAY_S / RETRY_S)):
        firsts += outage.failed("No such file or directory", "open")
        clock.now += RETRY_S
    outage.recovered()
    assert firsts == 1  # the caller's own first line, once
    repeats = [e for e in logs if e["event"] == "device still offline"]
    # At 1, 3, 7, 15, 31, 63 min (each gap twice the one before, from 1 min), then hourly.
    expected = int(math.log2(REPEAT_MAX_S / REPEAT_FIRST_S)) + 1
    expected += int((DAY_S - (2**expected - 1) * REPEAT_FIRST_S) // REPEAT_MAX_S) + 1
    assert len(repeats) in (expected - 1, expected), len(repeats)
    assert len(repeats) < 35
    gaps = [b["down_s"] - a["down_s"] for a, b in itertools.pairwise(repeats)]
    assert repeats[0]["down_s"] == REPEAT_FIRST_S
    assert gaps[:5] == [120.0, 240.0, 480.0, 960.0, 1920.0]
    assert all(g == REPEAT_MAX_S for g in gaps[6:]) and max(gaps) == REPEAT_MAX_S
    assert all(e["log_level"] == "warning" for e in repeats)
    # Each says how many attempts failed and for how long it has been down.
    assert all(e["attempts"] == e["down_s"] / RETRY_S + 1 for e in repeats)
    assert [e["error"] for e in repeats] == ["No such file or directory"] * len(repeats)
    [back] = [e for e in logs if e["event"] == "device back"]
    assert back["log_level"] == "info" and back["attempts"] == DAY_S / RETRY_S
    assert back["down_s"] == DAY_S and back["port"] == "/dev/floord/wheel"


def test_a_new_kind_of_failure_is_said_and_a_return_starts_over() -> None:
    clock = Clock()
    log, logs = _captured()
    outage = Outage(log, still="still", back="back", clock=clock)
    assert outage.failed("No such file or directory", "open")
    assert not outage.failed("Permission denied", "open")  # the same kind: counted
    assert outage.failed("adapter failed: ZeroDivisionError", "ZeroDivisionError")
    assert not outage.failed("adapter failed: ZeroDivisionError", "ZeroDivisionError")
    before = len(logs)
    outage.recovered()
    outage.recovered()  # not down: nothing to say
    assert [(e["event"], e["attempts"]) for e in logs[before:]] == [("back", 4)]
    assert not outage.down and outage.failed("No such file or directory", "open")
