"""A device session's silence timeout, armed once per silence period, not once per read.

A wheel sends a status frame every 125 ms at the load bench's 4x clock, so a daemon of
50 tables reads about 400 times a second. An `asyncio.timeout` around each read would
make a `Timeout`, a timer handle and a heap entry per read, and cancel it a few
milliseconds later: a few per cent of the daemon's loop (`make bench-load`, py-spy).
Here one `asyncio.timeout` scope covers the whole session and a single timer looks at
the clock only when the silence limit could be up: it moves itself on to the deadline of
the read under way and expires the scope only when that read has waited its whole limit.

What the adapter sees is what a timeout around each read would give: each read may wait
`limit` seconds from the moment it began (the limit in force when it began), the session
ends with `TimeoutError` when one waited that long, and only a read is ever timed (a slow
write or the driver's work is not silence). It stays an `asyncio.timeout`, not a
`wait_for`, for the reason the adapter gives (CPython gh-86296).
"""

from __future__ import annotations

import asyncio


class Silence:
    """`limit` seconds of silence, per read, expiring the session's `asyncio.timeout`."""

    def __init__(self, scope: asyncio.Timeout) -> None:
        self._scope = scope
        self._loop = asyncio.get_running_loop()
        self._reading_since: float | None = None
        self._limit = 0.0
        self._timer: asyncio.TimerHandle | None = None

    def reading(self, limit: float) -> None:
        """A read begins that may wait `limit` seconds."""
        now = self._loop.time()
        self._reading_since, self._limit = now, limit
        if self._timer is None or self._timer.when() > now + limit:
            # The first read, or one whose limit is shorter than the timer's wait.
            self._arm(now + limit)

    def done(self) -> None:
        """The read returned (data, an error, or the end of the link)."""
        self._reading_since = None

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _arm(self, when: float) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = self._loop.call_at(when, self._check)

    def _check(self) -> None:
        self._timer = None
        now = self._loop.time()
        since = self._reading_since
        if since is None:
            # Between reads: the next read's deadline is at least a limit from now.
            self._arm(now + self._limit)
        elif now >= since + self._limit:
            self._scope.reschedule(now)  # the read waited its limit: the session ends
        else:
            self._arm(since + self._limit)
