"""Bounds what commands no operator signed can put on a table's record.

Every refused command leaves an `operator.command_refused` on the record and an answer
on `P/cmd/result`, so an auditor sees what was asked. But a refusal before the command
was verified (not JSON, an unknown operator, a bad signature, a stale or replayed one,
a key past its expiry) can come from whoever can publish on `P/cmd`, as fast as the
broker carries it: 10,000 junk messages made 10,000 rows, log lines and answers, and a
sustained flood would fill the disk, and a full journal halts the table. What to keep of
them is floord's policy (no regulation speaks of it):

- In each window of `WINDOW_S` the first `RECORDED_A_WINDOW` unverified refusals are
  recorded, logged and answered as always.
- Every other one in the window is counted, by its code: neither recorded nor answered.
- When the window ends (at the next command or the next tick after it), what it counted
  becomes one `operator.commands_refused` `{count, codes, first, last, window_s,
  sample}` (`sample`: the first one counted, its code and reason) and one log line.

A refusal of a verified command (the wrong role, bad arguments, the engine's) is always
recorded and answered: it comes from a key holder. So the record grows by at most
`RECORDED_A_WINDOW + 1` events a window, however fast the junk comes. Pure: the caller
passes the time.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta
from typing import Any

from floord.contract import format_ts
from floord.operator.commands import Refusal

WINDOW_S = 10.0
RECORDED_A_WINDOW = 10
# The codes of a command refused before its signature was checked and found good.
UNVERIFIED = frozenset(
    {"malformed", "unknown_operator", "bad_signature", "key_expired", "stale", "replayed"}
)


class RefusalLimiter:
    """The window of unverified refusals: which to record, and what was counted."""

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self._started: datetime | None = None
        self._recorded = 0
        self._counted: Counter[str] = Counter()
        self._first: datetime | None = None
        self._last: datetime | None = None
        self._sample: dict[str, str] | None = None

    def admit(self, refusal: Refusal, now: datetime) -> bool:
        """True: record and answer `refusal` as always; False: it is counted. Call
        `closed` first, so a window that has ended gives its summary before this one."""
        if refusal.code not in UNVERIFIED:
            return True
        if self._started is None:
            self._started = now
        if self._recorded < RECORDED_A_WINDOW:
            self._recorded += 1
            return True
        self._counted[refusal.code] += 1
        self._first = self._first or now
        self._last = now
        if self._sample is None:
            self._sample = {"code": refusal.code, "reason": refusal.reason}
        return False

    def ends(self) -> datetime | None:
        """When the window under way ends (None: no window is under way): the first
        instant `closed` acts on."""
        if self._started is None:
            return None
        return self._started + timedelta(seconds=WINDOW_S)

    def closed(self, now: datetime) -> dict[str, Any] | None:
        """The `operator.commands_refused` body of a window that ended before `now` with
        refusals counted (None: none), and the next window begins afresh."""
        if self._started is None or now - self._started < timedelta(seconds=WINDOW_S):
            return None
        summary = None
        if self._counted and self._first is not None and self._last is not None:
            summary = {
                "count": sum(self._counted.values()),
                "codes": dict(sorted(self._counted.items())),
                "first": format_ts(self._first),
                "last": format_ts(self._last),
                "window_s": WINDOW_S,
                "sample": self._sample,
            }
        self._reset()
        return summary
