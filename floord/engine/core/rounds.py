"""Round numbering and the round in play, shared by every game.

A round id is `<table>-<gaming day>-<n:04d>`: n counts the rounds of one table in one
gaming day from 1, voided rounds included, so a gap in the numbers is never innocent.
The counter and the round in play are part of the snapshot, so a restart neither
reuses a number nor forgets a round it must void.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from floord.contract import format_ts


class RoundBook:
    """The round counter of a table and the round in play, if any."""

    def __init__(self, table_id: str) -> None:
        self.table_id = table_id
        self.counter_day: str | None = None
        self.counter = 0
        self.current: dict[str, Any] | None = None

    @property
    def current_id(self) -> str | None:
        return self.current["id"] if self.current else None

    def start(self, gaming_day: str, now: datetime, fields: dict[str, Any]) -> dict[str, Any]:
        """Open the next round of `gaming_day`; a round still in play is a caller's bug."""
        if self.current is not None:
            raise RuntimeError(f"round {self.current['id']} is still in play")
        if self.counter_day != gaming_day:
            self.counter_day = gaming_day
            self.counter = 0
        self.counter += 1
        self.current = {
            "id": f"{self.table_id}-{gaming_day}-{self.counter:04d}",
            "n": self.counter,
            "gaming_day": gaming_day,
            "started_at": format_ts(now),
            **fields,
        }
        return self.current

    def finish(self) -> dict[str, Any]:
        """Take the round in play off the table (ended or voided) and return it."""
        if self.current is None:
            raise RuntimeError("no round in play")
        done, self.current = self.current, None
        return done

    def snapshot(self) -> dict[str, Any]:
        return {"gaming_day": self.counter_day, "n": self.counter}

    def restore(self, counter: dict[str, Any], current: dict[str, Any] | None) -> None:
        n = counter.get("n", 0)
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise ValueError(f"snapshot: round_counter.n must be a whole number, found {n!r}")
        if current is not None and not (isinstance(current, dict) and "id" in current):
            raise ValueError("snapshot: round must be an object with an id, or null")
        self.counter_day = counter.get("gaming_day")
        self.counter = n
        self.current = dict(current) if current else None
