"""`floord report shuffle`'s analytics (`floord.analytics.shuffle_report`): only the
reading shoes' events are replayed, every shoe's findings listed, `since` limits what is
listed and never what is replayed, and a journal that is not there is said in a line."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bench.shuffle_models import fair, new_decks
from floord.analytics.shuffle_report import (
    ShoeEvent,
    format_shuffle_report,
    read_shoe_events,
    shuffle_report,
)
from floord.analytics.shuffle_watch import ShuffleSetup
from floord.contract import format_ts

pytestmark = pytest.mark.unit

START = datetime(2026, 12, 1, 20, 0, tzinfo=UTC)


def events(stacks: list[list[str]], dealt: int, source: str = "shoe") -> list[ShoeEvent]:
    found = []
    for stack in stacks:
        for etype, data in [
            ("shoe.loaded", {"side": None, "cards": len(stack)}),
            *(("shoe.card_drawn", {"card": c}) for c in stack[:dealt]),
        ]:
            ts = format_ts(START + timedelta(seconds=len(found)))
            found.append(ShoeEvent(len(found) + 1, ts, source, etype, data))
    return found


def test_the_report_replays_the_reading_shoes_and_since_limits_what_is_listed() -> None:
    rng = random.Random(9)
    stack = fair(new_decks(6), rng)
    stacks = [stack, fair(stack, rng), fair(stack, rng)]
    stacks.append(stacks[-1][20:] + stacks[-1][:20])  # the third kept, cut 20 in
    recorded = events(stacks, 100)
    # A shoe of another device (not one that reads for this table) is not replayed.
    other = [ShoeEvent(e.seq + 10_000, e.ts, "other", e.type, e.data) for e in recorded]
    report = shuffle_report(ShuffleSetup(), ["shoe"], recorded + other)
    assert report["shoes"] == 4 and report["cards"] == 400
    assert [s["shoe"] for s in report["ended"]] == [1, 2, 3]
    assert [len(s["tests"]) for s in report["ended"]] == [2, 3, 3]  # no slug test for shoe 1
    assert report["open"] == [{"shoe": 4, "side": None, "cards": 100}]
    [slug] = report["alerts"]
    assert slug["test"] == "shuffle_slug" and slug["shoe"] == 4 and slug["run"]["shoe"] == 3
    assert (
        slug["seq"] == 303 + slug["run"]["at"] + slug["statistic"]
        and slug["ts"] == recorded[slug["seq"] - 1].ts
    )
    text = format_shuffle_report("BA-01", report)
    assert "table BA-01: 4 shoe(s), 400 card(s) read by shoe from" in text
    assert "shoe 4: being dealt, 100 cards so far" in text and "alerts: 1" in text
    # From the third shoe's end on: shoe 3's findings (it ended there) and the alert.
    later = shuffle_report(ShuffleSetup(), ["shoe"], recorded, since=START + timedelta(seconds=302))
    assert [s["shoe"] for s in later["ended"]] == [3] and later["alerts"] == report["alerts"]
    assert (
        shuffle_report(ShuffleSetup(), ["shoe"], recorded, since=START + timedelta(days=1))[
            "alerts"
        ]
        == []
    )


def test_a_missing_journal_is_a_line(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no journal at"):
        read_shoe_events(tmp_path / "nowhere.db", "BA-01")
