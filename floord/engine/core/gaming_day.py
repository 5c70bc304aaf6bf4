"""The gaming day: inspections and round numbers count per gaming day, not per date.

A casino's gaming day starts at a configured local time (06:00, say), so the hours after
midnight belong to the previous day. The gaming day of an instant is the local date (in
the casino's time zone) of that instant less the start time.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from floord.engine.core.copies import Fixed


def require_utc(now: datetime) -> datetime:
    """The engine is handed aware times only; a naive one is a caller's bug, said clearly."""
    if now.tzinfo is None or now.utcoffset() is None:
        raise ValueError(f"a timezone-aware UTC time expected, found naive {now.isoformat()}")
    return now.astimezone(UTC)


class GamingDay(Fixed):
    """Turns an instant into the gaming day it belongs to."""

    def __init__(self, starts: time, timezone: str) -> None:
        try:
            self.zone = ZoneInfo(timezone)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ValueError(f"an IANA time zone name expected, found {timezone!r}") from exc
        self.starts = starts
        self._offset = timedelta(
            hours=starts.hour,
            minutes=starts.minute,
            seconds=starts.second,
            microseconds=starts.microsecond,
        )

    def of(self, now: datetime) -> date:
        local = require_utc(now).astimezone(self.zone).replace(tzinfo=None)
        return (local - self._offset).date()

    def label(self, now: datetime) -> str:
        """The gaming day as `YYYY-MM-DD`, the form used in round ids and snapshots."""
        return self.of(now).isoformat()
