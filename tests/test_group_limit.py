"""The runner's groups are capped (`GROUP_LIMIT`): a burst read in one go is committed in
several transactions of at most that many inputs, in order, none lost; and `format_ts`,
which keeps the text of recent instants, gives the same text as formatting afresh."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from test_group_commit import commit_protocol_errors

from floord.contract import format_ts
from floord.table.bus import GROUP_LIMIT, TableBus, Tick

pytestmark = pytest.mark.unit


def test_a_group_holds_at_most_the_limit_and_the_rest_stay_queued_in_order() -> None:
    async def go() -> tuple[list[list[int]], int]:
        bus = TableBus()
        when = datetime(2026, 12, 4, tzinfo=UTC)
        for n in range(10):
            bus.put(Tick(when + timedelta(seconds=n)))
        groups: list[list[int]] = []
        while bus.pending():
            first = await bus.get()
            group = bus.take_group(first, limit=4)
            groups.append(
                [int((item.now - when).total_seconds()) for item in group if isinstance(item, Tick)]
            )
        return groups, bus.pending()

    groups, left = asyncio.run(go())
    assert groups == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert left == 0


def test_a_burst_over_the_limit_is_committed_in_capped_groups_in_order(tmp_path: Path) -> None:
    # GROUP_LIMIT inputs, then the 7 that waited behind them: two commits, not one.
    assert commit_protocol_errors(tmp_path, GROUP_LIMIT + 7) == 2


def test_format_ts_gives_the_same_text_for_the_same_instant_in_any_zone() -> None:
    instant = datetime(2026, 12, 4, 1, 2, 3, 456789, tzinfo=UTC)
    east = instant.astimezone(timezone(timedelta(hours=5, minutes=30)))
    west = instant.astimezone(timezone(timedelta(hours=-8)))
    assert format_ts(instant) == "2026-12-04T01:02:03.456789Z"
    assert format_ts(east) == format_ts(west) == format_ts(instant)
    later = instant + timedelta(microseconds=1)
    assert format_ts(later) == "2026-12-04T01:02:03.456790Z"
    assert format_ts(datetime(999, 1, 2, tzinfo=UTC)) == "999-01-02T00:00:00.000000Z"


def test_format_ts_refuses_a_naive_time_every_time() -> None:
    naive = datetime(2026, 12, 4, 1, 2, 3)
    for _ in range(2):
        with pytest.raises(ValueError):
            format_ts(naive)
