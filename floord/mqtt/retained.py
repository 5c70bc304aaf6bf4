"""How often the retained `P/state` and `P/devices/<d>` bodies go out.

A wheel sends a frame several times a second, and each frame moves the table's chain
head and its devices' `last_heard` / `last_seen`. Republishing a retained body for that
alone would be about 45 % of what a daemon publishes. So a retained body goes out
at once when the table's state changed (anything but those fields); a body that only
moved its head or its clocks is held back and goes out when its topic's pace is up (the
link wakes for it): `RETAINED_EVERY_S`, a second, for `P/state`, so it is never more
than about a second behind; `DEVICE_CLOCK_EVERY_S`, five seconds, for a `P/devices/<d>`
body whose `last_heard` alone moved. docs/contract.md ("Retained bodies") says so.

Why those two paces (measured on `make bench-load`, 200 tables at 4x). Between two
`P/state` bodies sent unpaced, nothing volatile moves but the head and `last_seen` (a
round's `rotor_rpm` is set once, when the round starts): every other difference is the
round going on (started, launched, no more bets, its result), a change of state that
goes out at once. So `P/state` keeps its second. A `P/devices/<d>` body, though, would go
out about once for every device event, each time for `last_heard` alone: a fifth of all
the daemon publishes. Pacing that at five seconds loses a subscriber nothing it can act
on: the device's `online`, `since` and identity still go out at once; a device silent
past its profile's `silence_s` (2 s for the SS2) is `device.offline` at once, so an
`online: true` body already says the device was heard within that; and `P/state`, paced
at a second, carries the table's view of each device (`devices.<d>.last_seen`). So
retained topics go out at most about once a second per table unless the table's state
changed (the chain head and `last_heard` do not count as a change), and the bodies keep
every field of the contract.

A body's steady form (`steady`) is only compared with forms made here from bodies the
same code built, so it is encoded in the order the body's keys come in, not sorted (a
third of its cost): two bodies equal but for their key order would only count as a
change, and go out once.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any, NamedTuple

RETAINED_EVERY_S = 1.0
# A device body's `last_heard` alone (see above).
DEVICE_CLOCK_EVERY_S = 5.0

# What moves with every frame and is not, by itself, a change of the table's state.
_CLOCK_FIELDS = ("last_heard", "last_seen")


_MOVING = frozenset(("chain", *_CLOCK_FIELDS))
# One encoder, made once: `json.dumps` with options builds one per call.
_STEADY = json.JSONEncoder(separators=(",", ":"), default=str)


def steady(body: dict[str, Any]) -> str:
    """`body` without what moves on every frame: the chain head and the devices' clocks."""
    kept = {k: v for k, v in body.items() if k not in _MOVING}
    devices = kept.get("devices")
    if isinstance(devices, dict):
        kept["devices"] = {
            d: {k: v for k, v in s.items() if k not in _CLOCK_FIELDS} if isinstance(s, dict) else s
            for d, s in devices.items()
        }
    return _STEADY.encode(kept)


def moving(body: dict[str, Any]) -> tuple[Any, ...]:
    """What `steady` leaves out of `body`: with the same steady form, the same body."""
    devices = body.get("devices")
    clocks = (
        tuple(
            (d, *(s.get(k) for k in _CLOCK_FIELDS)) if isinstance(s, dict) else (d,)
            for d, s in devices.items()
        )
        if isinstance(devices, dict)
        else ()
    )
    return (body.get("chain"), *(body.get(k) for k in _CLOCK_FIELDS), clocks)


class _Sent(NamedTuple):
    text: str
    form: str  # its steady form
    moving: tuple[Any, ...]
    at: float = 0.0


class RetainedPacer:
    """Per topic: what was sent, its steady form and when; what waits and until when."""

    def __init__(
        self, every: float = RETAINED_EVERY_S, clock: Callable[[], float] = time.monotonic
    ) -> None:
        """`clock`: seconds on a clock that never goes back, the pace's (a test's own)."""
        self._every = every
        self._clock = clock
        self._sent: dict[str, _Sent] = {}
        self._held: dict[str, float] = {}
        # What `due` last handed out per topic, for `sent` (made once, not again).
        self._handed: dict[str, _Sent] = {}

    def reset(self) -> None:
        """A new connection: everything goes out again."""
        self._sent.clear()
        self._held.clear()
        self._handed.clear()

    def due(
        self,
        topic: str,
        body: dict[str, Any],
        encode: Callable[[Any], str],
        every: float | None = None,
    ) -> str | None:
        """The text of `body` (`encode(body)`) if it should go out on `topic` now, else
        None. A body's steady form is made once, and its text only when it may go out:
        a body held back (only its head or clocks moved) is not encoded. `every`: this
        topic's pace for such a body, if not the pacer's (`DEVICE_CLOCK_EVERY_S`)."""
        form, now_moving = steady(body), moving(body)
        sent = self._sent.get(topic)
        if sent is not None and sent.form == form:
            if sent.moving == now_moving:
                self._held.pop(topic, None)  # the same body: nothing to send
                return None
            ready_at = sent.at + (self._every if every is None else every)
            if self._clock() < ready_at:
                self._held[topic] = ready_at
                return None
        text = encode(body)
        if sent is not None and sent.text == text:
            self._held.pop(topic, None)
            return None
        self._handed[topic] = _Sent(text, form, now_moving)
        return text

    def sent(self, topic: str, text: str) -> None:
        """`text`, handed out by `due`, went out on `topic`."""
        handed = self._handed.pop(topic, None)
        if handed is None or handed.text != text:
            body = json.loads(text)
            handed = _Sent(text, steady(body), moving(body))
        self._sent[topic] = handed._replace(at=self._clock())
        self._held.pop(topic, None)

    def held_until(self) -> float | None:
        """When (on the pacer's clock) the first held-back body is due; None when none waits."""
        return min(self._held.values()) if self._held else None

    def wait_s(self) -> float | None:
        """Seconds until the first held-back body is due; None when none waits."""
        if not self._held:
            return None
        return max(0.0, min(self._held.values()) - self._clock())
