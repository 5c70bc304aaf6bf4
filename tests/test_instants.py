"""The wire's timestamp form, and the clocks' `Instant` that formats itself once.

An `Instant` must be a `datetime` in every way but one: its text is kept once made. So
its text is the text of the equal plain `datetime`; what arithmetic, a copy or a pickle
makes of it formats itself anew; and on the daemon's record path, where one instant is
written as an event's `ts`, into the snapshot and by the engine, each instant the clock
hands out is formatted once.
"""

from __future__ import annotations

import copy
import pickle
import random
from collections import Counter
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_surveillance_dice_live import LiveCraps, write_config

import floord.instants
from floord.instants import Instant, format_ts, parse_ts, utc_instant

pytestmark = pytest.mark.unit

ZONES = st.integers(min_value=-23 * 60, max_value=23 * 60).map(
    lambda minutes: timezone(timedelta(minutes=minutes))
)
AWARE = st.datetimes(min_value=datetime(2, 1, 1), max_value=datetime(9998, 12, 31), timezones=ZONES)


def instant(when: datetime) -> Instant:
    return Instant.combine(when.date(), when.timetz())


@given(AWARE)
def test_an_instants_text_is_the_plain_datetimes(when: datetime) -> None:
    at = instant(when)
    assert at == when
    assert at.text == format_ts(at) == format_ts(when)
    assert format_ts(when) == when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    if when.astimezone(UTC).year >= 1000:
        assert parse_ts(at.text) == when


def test_years_before_1000_keep_strftimes_form() -> None:
    at = Instant(999, 3, 4, 5, 6, 7, 8, tzinfo=UTC)
    assert at.text == "999-03-04T05:06:07.000008Z"


def test_what_is_made_from_an_instant_formats_itself() -> None:
    at = Instant(2026, 12, 5, 18, 0, 0, 1, tzinfo=UTC)
    assert at.text == "2026-12-05T18:00:00.000001Z"
    later = at + timedelta(seconds=1.5)
    zoned = at.astimezone(timezone(timedelta(hours=-5)))
    replaced = at.replace(minute=30)
    for made, text in (
        (later, "2026-12-05T18:00:01.500001Z"),
        (zoned, "2026-12-05T18:00:00.000001Z"),
        (replaced, "2026-12-05T18:30:00.000001Z"),
        (copy.copy(at), at.text),
        (copy.deepcopy(at), at.text),
        (pickle.loads(pickle.dumps(at)), at.text),
    ):
        assert type(made) is Instant
        assert made.text == format_ts(made) == text


def test_a_naive_instant_is_refused() -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        Instant(2026, 12, 5).text  # noqa: B018
    with pytest.raises(ValueError, match="timezone-aware"):
        format_ts(datetime(2026, 12, 5))


def test_the_clock_hands_out_instants_in_utc() -> None:
    now = utc_instant()
    assert type(now) is Instant
    assert now.tzinfo is UTC


def test_the_record_path_formats_each_instant_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Craps table played through the daemon's own runner: every instant its clock
    handed out (each input's) is formatted once, however often it was written."""
    table = LiveCraps(write_config(tmp_path))
    formatted: Counter[datetime] = Counter()
    utc_text = floord.instants._utc_text

    def counted(when: datetime) -> str:
        formatted[when] += 1
        return utc_text(when)

    monkeypatch.setattr(floord.instants, "_utc_text", counted)
    try:
        table.open()
        rng = random.Random(7)
        for n in range(30):
            table.throw(rng.randint(1, 6), rng.randint(1, 6), seat=n % 4 + 1)
    finally:
        table.stop()
    assert formatted, "nothing was formatted: the test saw no record path"
    assert max(formatted.values()) == 1, formatted.most_common(3)


@pytest.mark.parametrize(
    "text", ["9999-12-31T23:59:59-01:00", "0001-01-01T00:00:00+01:00", None, 5, ["x"]]
)
def test_an_instant_with_no_utc_form_or_no_text_is_a_value_error(text: object) -> None:
    """The edges that read a time from outside (a command, an envelope, a status) catch
    ValueError: an instant an offset carries past the calendar is one too."""
    with pytest.raises(ValueError):
        parse_ts(text)  # type: ignore[arg-type]
