"""The pace test of one wheel: rounds per hour, per table and per dealer, against a band.

A table that deals much faster than its usual pace can mean a dealer rushing spins
(short-spinning the ball, settling in a hurry); one much slower costs the house its hold
and can hide a dealer waiting on a confederate. Commercial floor systems flag both as
"games per hour" out of range. `PaceWatch` takes the time of each result and keeps the
last `window` intervals from one result to the next, for the table and, where the two
results were dealt by the same signed-in dealer, for that dealer. Once a window is full,
its pace is `3600 * window / sum(intervals)` rounds an hour; outside the table's band
`[low, high]` it is an alert.

An interval longer than `break_s` is a break (the table closed, a fill, a dealer change
at a quiet hour), not a slow spin: it is left out and the window goes on without it.
Like the wheel's chi-square tests, each window raises once per excursion: after an alert
it is silent until its pace is back inside the band. The band, the window and the break
are floord policy (table settings, `docs/analytics.md`), not a regulation.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from floord.analytics.saved_state import field, numbers, optional
from floord.contract import format_ts, parse_ts
from floord.engine.core.copies import Fixed

TABLE = "table"


@dataclass(frozen=True)
class PaceSettings(Fixed):
    """A table's pace band in rounds an hour, the intervals a window holds, and the
    longest interval that still counts as play (seconds)."""

    low: float = 45.0
    high: float = 110.0
    window: int = 20
    break_s: float = 300.0

    def __post_init__(self) -> None:
        if not 0 < self.low < self.high:
            raise ValueError(f"pace band: 0 < low < high expected, found {self.low}..{self.high}")
        if isinstance(self.window, bool) or not isinstance(self.window, int) or self.window < 3:
            raise ValueError(f"pace window: at least 3 intervals expected, found {self.window!r}")
        if not self.break_s > 0:
            raise ValueError(f"pace break_s: a positive number expected, found {self.break_s!r}")


class _Window:
    """The last intervals of one table or dealer, with the alarm state of its pace."""

    def __init__(self, size: int) -> None:
        self.intervals: deque[float] = deque(maxlen=size)
        self.armed = True

    def push(self, seconds: float) -> None:
        self.intervals.append(seconds)

    @property
    def full(self) -> bool:
        return len(self.intervals) == self.intervals.maxlen

    def state(self) -> dict[str, Any]:
        return {"intervals": list(self.intervals), "armed": self.armed}

    def load(self, state: Any) -> None:
        intervals = numbers(field(state, "intervals", list), "pace window")
        if len(intervals) > (self.intervals.maxlen or 0) or any(s < 0 for s in intervals):
            raise ValueError("a saved pace window does not fit it")
        self.intervals.clear()
        self.intervals.extend(intervals)
        self.armed = field(state, "armed", bool)

    def rate(self) -> float:
        total = sum(self.intervals)
        return float("inf") if total <= 0 else 3600.0 * len(self.intervals) / total


class PaceWatch:
    """Rounds per hour of a table and of each dealer against the table's band."""

    def __init__(self, settings: PaceSettings) -> None:
        self.settings = settings
        self._windows: dict[str, _Window] = {}
        self._last: tuple[datetime, str | None] | None = None

    def _window(self, key: str) -> _Window:
        found = self._windows.get(key)
        if found is None:
            found = self._windows[key] = _Window(self.settings.window)
        return found

    def state(self) -> dict[str, Any]:
        """Each window (the table's, each dealer's) and the last result's time and dealer."""
        last = None if self._last is None else [format_ts(self._last[0]), self._last[1]]
        windows = {key: window.state() for key, window in self._windows.items()}
        return {"windows": windows, "last": last}

    def load(self, state: Any) -> None:
        """Go on from a `state()`; ValueError (nothing changed) when it does not fit."""
        windows: dict[str, _Window] = {}
        for key, saved in field(state, "windows", dict).items():
            windows[key] = _Window(self.settings.window)
            windows[key].load(saved)
        last = optional(state, "last", list)
        at: tuple[datetime, str | None] | None = None
        if last is not None:
            if len(last) != 2 or not isinstance(last[1], str | None):
                raise ValueError("a saved pace needs the last result's time and dealer")
            at = (parse_ts(last[0]), last[1])
        self._windows, self._last = windows, at

    def add(self, at: datetime, dealer: str | None) -> list[dict[str, Any]]:
        """Count one result at `at` (dealt by `dealer`, if signed in); the alerts it raises."""
        last, self._last = self._last, (at, dealer)
        if last is None:
            return []
        seconds = (at - last[0]).total_seconds()
        if seconds < 0 or seconds > self.settings.break_s:
            return []  # a break, or a clock set back: not a spin's pace
        keys = [TABLE] + ([dealer] if dealer is not None and dealer == last[1] else [])
        alerts = []
        for key in keys:
            window = self._window(key)
            window.push(seconds)
            found = self._judge(key, window)
            if found is not None:
                alerts.append(found)
        return alerts

    def _judge(self, key: str, window: _Window) -> dict[str, Any] | None:
        if not window.full:
            return None
        rate = window.rate()
        s = self.settings
        if s.low <= rate <= s.high:
            window.armed = True
            return None
        if not window.armed:
            return None
        window.armed = False
        ordered = sorted(window.intervals)
        median = ordered[len(ordered) // 2]
        if len(ordered) % 2 == 0:
            median = (ordered[len(ordered) // 2 - 1] + median) / 2
        side = "above" if rate > s.high else "below"
        who = "the table" if key == TABLE else f"dealer {key}"
        alert: dict[str, Any] = {
            "test": "pace",
            "statistic": round(rate, 3),
            "rounds_per_hour": round(rate, 3),
            "median_interval_s": round(median, 3),
            "window": s.window,
            "band": [s.low, s.high],
            "side": side,
            "summary": f"{who} dealt {rate:.1f} rounds an hour over its last {s.window} "
            f"intervals (median {median:.1f} s), {side} the band {s.low:g} to {s.high:g}",
        }
        if key != TABLE:
            alert["dealer"] = key
        return alert
