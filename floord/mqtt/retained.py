"""How often the retained `P/state` and `P/devices/<d>` bodies go out.

A wheel sends a frame several times a second, and each frame moves the table's chain
head and its devices' `last_heard` / `last_seen`. Republishing a retained body for that
alone was about 45 % of what a daemon published (issue 15). So a retained body goes out
at once when the table's state changed (anything but those fields), and otherwise at most
once every `RETAINED_EVERY_S` per topic: a body that only moved its head or its clocks is
held back and goes out when its second is up (the link wakes for it), so the retained
body is never more than about a second behind. docs/contract.md says so.
"""

from __future__ import annotations

import json
import time
from typing import Any

RETAINED_EVERY_S = 1.0

# What moves with every frame and is not, by itself, a change of the table's state.
_CLOCK_FIELDS = ("last_heard", "last_seen")


def steady(body: dict[str, Any]) -> str:
    """`body` without what moves on every frame: the chain head and the devices' clocks."""
    kept = {k: v for k, v in body.items() if k not in ("chain", *_CLOCK_FIELDS)}
    devices = kept.get("devices")
    if isinstance(devices, dict):
        kept["devices"] = {
            d: {k: v for k, v in s.items() if k not in _CLOCK_FIELDS} if isinstance(s, dict) else s
            for d, s in devices.items()
        }
    return json.dumps(kept, sort_keys=True, separators=(",", ":"), default=str)


class RetainedPacer:
    """Per topic: what was sent, its steady form and when; what waits and until when."""

    def __init__(self, every: float = RETAINED_EVERY_S) -> None:
        self._every = every
        self._sent: dict[str, tuple[str, str, float]] = {}
        self._held: dict[str, float] = {}

    def reset(self) -> None:
        """A new connection: everything goes out again."""
        self._sent.clear()
        self._held.clear()

    def due(self, topic: str, body: dict[str, Any], text: str) -> bool:
        """Whether `text` (the compact form of `body`) should go out on `topic` now."""
        sent = self._sent.get(topic)
        if sent is not None and sent[0] == text:
            self._held.pop(topic, None)
            return False
        if sent is None or sent[1] != steady(body):
            return True
        ready_at = sent[2] + self._every
        if time.monotonic() >= ready_at:
            return True
        self._held[topic] = ready_at
        return False

    def sent(self, topic: str, body: dict[str, Any], text: str) -> None:
        self._sent[topic] = (text, steady(body), time.monotonic())
        self._held.pop(topic, None)

    def wait_s(self) -> float | None:
        """Seconds until the first held-back body is due; None when none waits."""
        if not self._held:
            return None
        return max(0.0, min(self._held.values()) - time.monotonic())
