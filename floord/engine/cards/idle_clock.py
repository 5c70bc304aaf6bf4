"""No gaming activity at an open card table: when the cards must be spread and reshuffled.

58 Pa. Code § 549.6(h), § 551.5(h), § 541.5(h), § 571.5(f) and § 55x.5(f) (§ 561.5(g))
each say what is done "if there is no gaming activity" at a table open for gaming: the
cards are spread for inspection and then shuffled again before the next round. None of
them says how long a pause is "no gaming activity", so the table's Rules Submission does
(`idle_minutes`, absent: not watched). Each game keeps the time of its last activity (a
round in play, a card or stack from its devices) and asks here, on every tick, whether
an idle spell has begun; what the cards need then is the game's own. Pure: no clock.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from floord.contract import format_ts, parse_ts

IDLE_MINUTES_MAX = 24 * 60


def idle_since(
    active_at: str | None,
    now: datetime,
    minutes: int | None,
    *,
    in_play: bool,
    is_open: bool,
) -> tuple[str | None, str | None]:
    """(the last activity to keep, the start of an idle spell that reached `minutes` now).

    A round in play is activity; once an idle spell is reported the clock stops (None)
    until the next activity, so each spell is reported once."""
    if in_play:
        return format_ts(now), None
    if not minutes or active_at is None or not is_open:
        return active_at, None
    if now - parse_ts(active_at) < timedelta(minutes=minutes):
        return active_at, None
    return None, active_at


def idle_minutes_problem(value: object) -> str | None:
    """Why `value` is no `idle_minutes` option (whole minutes 1..1440, or null)."""
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= IDLE_MINUTES_MAX:
        return f"idle_minutes must be whole minutes 1..{IDLE_MINUTES_MAX} or null, found {value!r}"
    return None
