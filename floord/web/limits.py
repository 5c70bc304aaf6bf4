"""Login attempts per address: a few a window, then refused until the window has passed.

A guessed password costs the guesser a login attempt; with `ATTEMPTS` a `WINDOW_S` per
address a dictionary attack from one desk takes years. A successful login does not reset
the count (an attacker with one password learns nothing of others faster). Pure: the
clock is given.
"""

from __future__ import annotations

from collections import deque

ATTEMPTS = 5
WINDOW_S = 60.0
MAX_ADDRESSES = 10_000


class LoginLimiter:
    def __init__(self, attempts: int = ATTEMPTS, window_s: float = WINDOW_S) -> None:
        self.attempts = attempts
        self.window_s = window_s
        self._seen: dict[str, deque[float]] = {}

    def allow(self, address: str, now: float) -> float | None:
        """None if `address` may try now (and count it); else seconds until it may."""
        times = self._seen.get(address)
        if times is None:
            if len(self._seen) >= MAX_ADDRESSES:
                self._forget(now)
            times = self._seen[address] = deque()
        while times and now - times[0] >= self.window_s:
            times.popleft()
        if len(times) >= self.attempts:
            return self.window_s - (now - times[0])
        times.append(now)
        return None

    def _forget(self, now: float) -> None:
        for address in [a for a, t in self._seen.items() if not t or now - t[-1] >= self.window_s]:
            del self._seen[address]
