"""The log lines of something that stays broken: its first failure, a repeat now and then,
and the line when it works again; never a line per attempt.

A device whose port is gone is tried again every few seconds (its profile's back-off) for
as long as it is gone: a line per attempt would be thousands a day per device. So the
first failed attempt is the caller's own line (it knows its words: `cannot open device`
with the port and the error), as is the first of another kind (a port that opens again
but whose driver then fails), the attempts after it are only counted, and a repeat line
(`device still offline`) is said at the first failed attempt at least 1 min after the
first, then 2, 4, 8 ... min after the previous one, at most 1 h apart (the doubling of
`floord.mqtt.backoff`), each saying how many attempts failed since the outage began, for
how long it has lasted and the latest error. When it works again, one line
(`device back`) says how long it was down. The attempts keep their own schedule: only the
lines back off. A day of a device missing is about 30 lines, not 8,600.

The words follow the broker's (`floord.mqtt.session`): `attempts` and `down_s`, the
first line a warning and the return `... back` at info. The repeats are warnings, not
debug lines as the broker's retries are: a device missing for an hour still halts its
table, and an operator filtering warnings should see that it still is.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from floord.mqtt.backoff import Backoff

REPEAT_FIRST_S = 60.0  # the first repeat line, this long after the first failure
REPEAT_MAX_S = 3600.0  # and never more than this apart after that


class Outage:
    """Counts failed attempts and says the repeat and recovery lines on `log` (a structlog
    logger, bound with what names the thing: table, device, port)."""

    def __init__(
        self,
        log: Any,
        *,
        still: str,
        back: str | None,
        repeat: Backoff | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """`still`: the repeat line's event; `back`: the recovery line's, or None when
        the caller cannot tell recovery apart from silence (the outage just ends)."""
        self._log = log
        self._still = still
        self._back = back
        self._repeat = repeat if repeat is not None else Backoff(REPEAT_FIRST_S, REPEAT_MAX_S)
        self._clock = clock
        self._since: float | None = None
        self._due = 0.0
        self._kinds: set[str] = set()  # the kinds of failure said in this outage
        self.attempts = 0  # failed attempts since the outage began (0: none going on)

    @property
    def down(self) -> bool:
        return self._since is not None

    def failed(self, error: str, kind: str = "") -> bool:
        """One more failed attempt, with why. True if it began the outage, or is the first
        failure of its `kind` in it (the port went from missing to a driver's bug): the
        caller says that line itself; the others are counted and repeated when due."""
        now = self._clock()
        self.attempts += 1
        new_kind = kind not in self._kinds
        self._kinds.add(kind)
        if self._since is None:
            self._since = now
            self._repeat.reset()
            self._due = now + self._repeat.next()
            return True
        if new_kind:
            return True
        if now >= self._due:
            self._log.warning(
                self._still,
                error=error,
                attempts=self.attempts,
                down_s=round(now - self._since, 1),
            )
            self._due = now + self._repeat.next()
        return False

    def recovered(self) -> None:
        """It works again: one line with how long it was down, if it was."""
        since = self._since
        if since is None:
            return
        if self._back is not None:
            self._log.info(
                self._back, attempts=self.attempts, down_s=round(self._clock() - since, 1)
            )
        self._since = None
        self._kinds.clear()
        self.attempts = 0
