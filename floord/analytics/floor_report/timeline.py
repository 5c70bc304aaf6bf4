"""One table's time: how long it was open, with which dealer, and how long halted.

The hours a table was open are what its rounds per hour are taken over, so they follow
the record exactly: the table is open from its `table.opened` until its `table.closed`
or a `table.halted` (a `table.resumed` says the state it goes back to), and only while
its daemon runs (`daemon.started` to `daemon.stopped`: a stopped box plays no round).
Halted time runs from the `table.halted` that halts the table until the `table.resumed`
that lifts the halt, whether the daemon runs or not (the halt stays latched across a
restart). Every span is clipped to the report's period.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

NO_DEALER = "(no dealer signed in)"


@dataclass
class HaltSpell:
    """One halt: from the event that halted the table to the one that lifted it (None:
    still halted at the period's end); `cause` the code that halted it, `also` the codes
    latched later in the same halt."""

    start: datetime
    cause: str
    end: datetime | None = None
    also: list[str] = field(default_factory=list)
    resumed_by: str | None = None
    reason: str | None = None


@dataclass
class Timeline:
    """The clock of one table over the period [since, until)."""

    since: datetime | None
    until: datetime | None
    state: str = "closed"
    running: bool = True
    dealer: str | None = None
    last: datetime | None = None
    open_s: float = 0.0
    dealer_s: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    halt: HaltSpell | None = None
    spells: list[HaltSpell] = field(default_factory=list)

    def overlap(self, start: datetime, end: datetime) -> float:
        """Seconds of [start, end) inside the period."""
        lo = start if self.since is None else max(start, self.since)
        hi = end if self.until is None else min(end, self.until)
        return max(0.0, (hi - lo).total_seconds())

    def advance(self, now: datetime) -> None:
        """Count the time since the last event as it stood; then `now` is the last."""
        if self.last is not None and now > self.last and self.state == "open" and self.running:
            seconds = self.overlap(self.last, now)
            self.open_s += seconds
            self.dealer_s[self.dealer or NO_DEALER] += seconds
        if self.last is None or now > self.last:
            self.last = now

    def apply(self, kind: str, data: dict[str, Any], now: datetime) -> None:
        """An event that changes the table's clock (after `advance(now)`)."""
        if kind == "table.opened":
            self.state = "open"
        elif kind == "table.closed":
            self.state = str(data.get("state") or "closed")
        elif kind == "table.halted":
            self.state = "halted"
            code = str(data.get("code"))
            if self.halt is None:
                self.halt = HaltSpell(now, code)
                self.spells.append(self.halt)
            else:
                self.halt.also.append(code)
        elif kind == "table.resumed":
            self.state = str(data.get("state") or "closed")
            if self.halt is not None:
                self.halt.end = now
                self.halt.resumed_by = data.get("by") if isinstance(data.get("by"), str) else None
                reason = data.get("reason")
                self.halt.reason = reason if isinstance(reason, str) else None
                self.halt = None
        elif kind == "daemon.started":
            self.running = True
        elif kind == "daemon.stopped":
            self.running = False

    def close_period(self) -> None:
        """The period ends: count the time from the last event to its end."""
        if self.until is not None:
            self.advance(self.until)

    def halted_s(self, spell: HaltSpell) -> float:
        end = spell.end or self.until or self.last or spell.start
        return self.overlap(spell.start, end)
