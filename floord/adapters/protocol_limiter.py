"""Bounds what a noisy line can put on the record: protocol errors, rate-limited per device.

A driver reports every frame it cannot read as a `device.protocol_error`, which is right
for the one garbled frame of a healthy link and ruinous for a line that carries nothing
but noise (a loose cable, a wrong baud rate, someone pouring bytes into it): each error
is stored on the device's stream and on the table's, so garbage at 9600 baud would write
gigabytes a day. Which errors to keep is I/O policy, not protocol, so it lives here, in
the adapter's emit path, and drivers stay bytes in, events out.

The policy (the profile's `protocol_errors`, floord's own, citing no regulation):

- A *spell* of errors starts with the first error and lasts while every `interval_s`
  window holds at least one; a whole window without one ends it.
- In a spell the first error of each kind (its reason with numbers and quoted values
  blanked) is recorded as it is, up to `kinds` kinds; every other error is counted.
- When a window closes, the errors it counted become one `device.protocol_errors`
  `{count, first, last, sample, interval_s}` (`sample` is the first one counted).
- `fault_after` errors in one window are a `device.fault` (origin `protocol_errors`)
  once a spell: a line that noisy is not carrying the device's word, and the table
  halts as for any fault of a required device. The engine clears that fault once the
  device identifies on a new connection of its line, so a new connection (`new_session`)
  arms it again and counts its own errors toward it: a line still noisy after it
  reconnects faults again.

So a device adds at most `kinds + 2` events to the record per window, however fast its
line. Pure: the caller passes the time (monotonic seconds) and its timestamp text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from floord.contract import EventType
from floord.events import DeviceEvent
from floord.profiles import ProtocolErrorPolicy

# What a kind ignores: numbers, hex counters, quoted values (they differ error to error).
_VARYING = re.compile(r"'[^']*'|\"[^\"]*\"|\b[0-9A-F]{2,8}\b|\d+")
KIND_CHARS = 80
SAMPLE_CHARS = 256


def kind_of(reason: str) -> str:
    """The kind of a protocol error: its reason without the parts that vary."""
    return _VARYING.sub("#", reason)[:KIND_CHARS]


def _bounded(data: dict[str, Any]) -> dict[str, Any]:
    """The sample's fields as short text: a summary must not carry a large payload."""
    return {str(k)[:32]: str(v)[:SAMPLE_CHARS] for k, v in list(data.items())[:4]}


@dataclass
class _Window:
    start: float
    errors: int = 0
    # The errors of this window on the present connection (what a fault counts).
    toward_fault: int = 0
    counted: int = 0
    first: str | None = None
    last: str | None = None
    sample: dict[str, Any] = field(default_factory=dict)


class ProtocolErrorLimiter:
    """One device's protocol errors: what to record now, what to count, when to summarise."""

    def __init__(self, policy: ProtocolErrorPolicy) -> None:
        self.policy = policy
        self._window: _Window | None = None
        self._kinds: set[str] = set()
        self._faulted = False

    @property
    def window_end(self) -> float | None:
        """When the open window closes (the caller's timer), or None with no spell."""
        return None if self._window is None else self._window.start + self.policy.interval_s

    def offer(self, data: dict[str, Any], now: float, ts: str) -> list[DeviceEvent]:
        """The events to record for one protocol error, in order (maybe none)."""
        out = self.due(now)
        if self._window is None:
            self._window = _Window(start=now)
        window = self._window
        window.errors += 1
        window.toward_fault += 1
        kind = kind_of(str(data.get("reason", "")))
        if kind in self._kinds or len(self._kinds) >= self.policy.kinds:
            window.counted += 1
            if window.first is None:
                window.first, window.sample = ts, _bounded(data)
            window.last = ts
        else:
            self._kinds.add(kind)
            out.append(DeviceEvent(EventType.DEVICE_PROTOCOL_ERROR, data))
        if window.toward_fault >= self.policy.fault_after and not self._faulted:
            self._faulted = True
            out.append(self._fault(window.toward_fault))
        return out

    def new_session(self) -> None:
        """The line's device connected anew: the fault is armed again, and only this
        connection's errors count toward it (the spell, and its kinds, go on)."""
        self._faulted = False
        if self._window is not None:
            self._window.toward_fault = 0

    def due(self, now: float) -> list[DeviceEvent]:
        """The summary of a window that has closed by `now`; the spell ends after a
        whole window without an error."""
        window = self._window
        if window is None:
            return []
        interval = self.policy.interval_s
        out: list[DeviceEvent] = []
        while window is not None and now >= window.start + interval:
            out.extend(self._summary(window))
            quiet = window.errors == 0
            window = None if quiet else _Window(start=window.start + interval)
        self._window = window
        if window is None:
            self._kinds.clear()
            self._faulted = False
        return out

    def close(self) -> list[DeviceEvent]:
        """The summary of what the open window counted so far (the link ends); the spell
        goes on, so a reconnecting noisy line is not recorded afresh."""
        window = self._window
        if window is None:
            return []
        out = self._summary(window)
        window.counted, window.first, window.last, window.sample = 0, None, None, {}
        return out

    def _summary(self, window: _Window) -> list[DeviceEvent]:
        if not window.counted:
            return []
        data = {
            "count": window.counted,
            "first": window.first,
            "last": window.last,
            "sample": window.sample,
            "interval_s": self.policy.interval_s,
        }
        return [DeviceEvent(EventType.DEVICE_PROTOCOL_ERRORS, data)]

    def _fault(self, errors: int) -> DeviceEvent:
        text = (
            f"{errors} protocol errors within {self.policy.interval_s:g} s: the line is "
            "noisy or set wrong (baud rate, framing); the device's word cannot be trusted"
        )
        return DeviceEvent(
            EventType.DEVICE_FAULT, {"code": None, "text": text, "origin": "protocol_errors"}
        )
