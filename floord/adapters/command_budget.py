"""How many messages an adapter process takes from its `P/devices/<device>/cmd` topic.

The daemon is the one sender the broker's ACL lets publish there (`floord acl`), and it
sends a device command seldom: a wheel's re-spin after a no-spin, a card reader's
self-test. Each command taken is written to the device and its outcome recorded
(`device.command_result`), and each malformed one is a log line, so a sender repeating
messages would fill the adapter's record and log and keep the device busy answering.
What to take is floord's policy (no regulation speaks of it): at most
`COMMANDS_A_WINDOW` messages in each `WINDOW_S`; the rest are dropped and counted, and
the count is logged once, when the window ends (`AdapterLink`). Pure: the caller passes
the clock.
"""

from __future__ import annotations

from collections.abc import Callable

WINDOW_S = 10.0
COMMANDS_A_WINDOW = 10


class CommandBudget:
    """The current window's messages taken, and those dropped since last asked."""

    def __init__(
        self,
        clock: Callable[[], float],
        window_s: float = WINDOW_S,
        per_window: int = COMMANDS_A_WINDOW,
    ) -> None:
        self._clock = clock
        self.window_s = window_s
        self._per_window = per_window
        self._started: float | None = None
        self._taken = 0
        self.dropped = 0

    def take(self) -> bool:
        """Whether a message that came now is taken (else it is counted as dropped)."""
        now = self._clock()
        if self._started is None or now - self._started >= self.window_s:
            self._started, self._taken = now, 0
        if self._taken < self._per_window:
            self._taken += 1
            return True
        self.dropped += 1
        return False

    def window_left(self) -> float:
        """Seconds until the current window ends."""
        if self._started is None:
            return 0.0
        return max(0.0, self.window_s - (self._clock() - self._started))

    def take_dropped(self) -> int:
        """The messages dropped since last asked (the count is reset)."""
        dropped, self.dropped = self.dropped, 0
        return dropped
