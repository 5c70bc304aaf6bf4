"""How long to wait before the next connection attempt: short at first, never long.

A table box on a flaky floor network should be back within a fraction of a second after
a blip, yet not hammer a broker that is down for maintenance. The delay starts at
`initial`, doubles after each failure up to `maximum`, and starts over after a good
connection.
"""

from __future__ import annotations


class Backoff:
    def __init__(self, initial: float = 0.2, maximum: float = 5.0) -> None:
        if initial <= 0 or maximum < initial:
            raise ValueError(f"backoff needs 0 < initial <= maximum, found {initial} and {maximum}")
        self.initial = initial
        self.maximum = maximum
        self._next = initial

    def next(self) -> float:
        """The delay to wait now; the one after it is twice as long (up to the maximum)."""
        delay = self._next
        self._next = min(self._next * 2, self.maximum)
        return delay

    def reset(self) -> None:
        """A connection succeeded: the next failure waits `initial` again."""
        self._next = self.initial
