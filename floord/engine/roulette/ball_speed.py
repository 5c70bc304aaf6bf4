"""The ball's speed on the track, from the times a sensor kit reports its laps.

A kit counts the ball's revolutions (`REV`, `docs/protocols/wheel-sensor.md`) but sends
no speed; the engine keeps the count and time of the first and the last lap it saw of
the round's launch, and the spin's speed is the laps between them over the time between
them, in revolutions a second. The times are when floord received the frames (the kit
sends no clock), so the figure is as good as the link is steady: the spin physics
envelope test (`docs/analytics.md`) compares it only with the same wheel's own spins.
No rule turns on it; a ball spun far harder or softer than the wheel's usual is a
surveillance flag, not a no spin.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from floord.contract import format_ts, parse_ts


def lap(current: dict[str, Any], count: int, now: datetime) -> None:
    """Count one reported lap of the round's ball (`count` since its launch)."""
    mark = [count, format_ts(now)]
    if current.get("first_lap") is None:
        current["first_lap"] = mark
    current["last_lap"] = mark


def relaunched(current: dict[str, Any]) -> None:
    """A new launch: its laps are timed from none again."""
    current["first_lap"] = current["last_lap"] = None


def revolutions_per_second(current: dict[str, Any]) -> float | None:
    """The round's ball speed, or None with fewer than two laps timed apart."""
    first, last = current.get("first_lap"), current.get("last_lap")
    if not first or not last or last[0] <= first[0]:
        return None
    seconds = (parse_ts(last[1]) - parse_ts(first[1])).total_seconds()
    return round((last[0] - first[0]) / seconds, 4) if seconds > 0 else None
