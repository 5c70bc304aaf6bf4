"""The gaming day: inspections and round numbers count per gaming day, not per date.

A casino's gaming day starts at a configured local time (06:00, say), so the hours after
midnight belong to the previous day. The gaming day of an instant is the local date (in
the casino's time zone) of that instant less the start time.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from floord.engine.core.copies import Fixed

# How often `span` looks at the zone's UTC offset between now and the next day's
# start: every clock change in the tz database lasts far longer than this.
_OFFSET_SAMPLE_MINUTES = 30


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
        # `span`'s last answer (from, to, day) and the last day it found a clock change
        # in: a pure function's memo, shared by the copies of a table's state as the
        # rest of this is.
        self._span: tuple[datetime, datetime, str] | None = None
        self._unsure: date | None = None

    def of(self, now: datetime) -> date:
        local = require_utc(now).astimezone(self.zone).replace(tzinfo=None)
        return (local - self._offset).date()

    def label(self, now: datetime) -> str:
        """The gaming day as `YYYY-MM-DD`, the form used in round ids and snapshots.
        Asked with every input; an instant inside the span `span` last found has that
        span's day, with no zone arithmetic."""
        known = self._span
        if known is not None and now.tzinfo is not None and known[0] <= now < known[1]:
            return known[2]
        return self.of(now).isoformat()

    def span(self, now: datetime) -> tuple[str, datetime] | None:
        """`now`'s gaming day and the next one's start, in UTC: the first instant whose
        day is not `now`'s, every instant between them of `now`'s day. None where the
        zone's clocks change between the two (a gaming day may then end early, or come
        back after a fall-back hour): the caller must then look at every instant. What a
        table's ticks are spared by (`quiet_until`), asked at each one: an instant inside
        the span last found is answered with two comparisons."""
        known = self._span
        if known is not None and known[0] <= now < known[1]:
            return known[2], known[1]
        now = require_utc(now)
        day = self.of(now)
        if day == self._unsure:
            return None
        start = self._start_of(day + timedelta(days=1), now)
        if start is None:
            self._span, self._unsure = None, day
            return None
        self._span = (now, start, day.isoformat())
        return day.isoformat(), start

    def _start_of(self, day: date, now: datetime) -> datetime | None:
        """`day`'s first instant after `now` if no clock change lies between and the
        local start time exists that day, else None."""
        wall = datetime.combine(day, self.starts).replace(tzinfo=self.zone)
        start = wall.astimezone(UTC)
        if start <= now:
            return None
        step, at = timedelta(minutes=_OFFSET_SAMPLE_MINUTES), now
        offset = now.astimezone(self.zone).utcoffset()
        while at < start:
            if at.astimezone(self.zone).utcoffset() != offset:
                return None
            at += step
        if start.astimezone(self.zone).utcoffset() != offset:
            return None
        before = start - timedelta(microseconds=1)
        if self.of(before) != day - timedelta(days=1) or self.of(start) != day:
            return None
        return start
