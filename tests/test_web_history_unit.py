"""The History page's edge, without a server: every browser parameter checked before the
archive is read, the console's `archive` setting checked at load as `floord report
--archive` reads it, an archived event put in words, and the archive's acknowledgements
merged with the live ones without listing an alert twice."""

from __future__ import annotations

import asyncio
import contextlib
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from test_web_hub import drained, floor
from watch_support import SITE, publish
from web_history_support import T0, floor_archive

from floord.web.history import ACKS_FIRST_LOOKBACK, ACKS_LOOKBACK, History, history_row
from floord.web.history_query import PAGE_MAX, QueryError, parse_query
from floord.web.hub import ACKS_KEPT, Viewer
from floord.web.settings import WebConfigError, load_web_config

pytestmark = pytest.mark.unit

ALERT = {"id": "A00001", "test": "pocket", "p_value": 0.000213, "level": 0.001, "window": 270}


def test_a_good_query_is_read_in_full() -> None:
    query = parse_query(
        {
            "site": SITE,
            "table": "RL-01",
            "type": "roulette.result",
            "from": "2026-12-01",
            "to": "2026-12-01T19:30:00+01:00",
            "limit": "20",
            "offset": "40",
        },
        None,
    )
    assert (query.site, query.table, query.type) == (SITE, "RL-01", "roulette.result")
    assert query.since == datetime(2026, 12, 1, tzinfo=UTC)
    assert query.until == datetime(2026, 12, 1, 18, 30, tzinfo=UTC)
    assert (query.limit, query.offset) == (20, 40)
    empty = parse_query({"table": "", "type": ""}, None)
    assert empty.table is None and empty.type is None and empty.limit == 50


@pytest.mark.parametrize(
    ("params", "words"),
    [
        ({"table": "RL 01"}, "table: an id of 1 to 64"),
        ({"table": "x" * 65}, "table: an id of 1 to 64"),
        ({"site": "a/b"}, "site: a site's id expected"),
        ({"site": "casino-9"}, "site: a site this console shows expected"),
        ({"type": "roulette.jackpot"}, "type: an event type of docs/contract.md expected"),
        ({"from": "yesterday"}, "from: a date (2026-12-01) or a time with its zone"),
        ({"to": "2026-12-01T18:00:00"}, "to: a time with its zone (Z or +HH:MM) expected"),
        ({"from": "2026-12-02", "to": "2026-12-01"}, "from: a time before `to` expected"),
        ({"limit": "0"}, f"limit: a whole number from 1 to {PAGE_MAX} expected"),
        ({"limit": str(PAGE_MAX + 1)}, "limit: a whole number"),
        ({"limit": "-5"}, "limit: a whole number"),
        ({"offset": "1e9"}, "offset: a whole number from 0 to 100000"),
        ({"offset": "100001"}, "offset: a whole number"),
        ({"order": "asc"}, "'order': not a History parameter"),
        ({"to": "9" * 41}, "to: an ISO 8601 time expected"),
    ],
)
def test_a_bad_parameter_is_named_with_what_was_expected(
    params: dict[str, str], words: str
) -> None:
    with pytest.raises(QueryError) as raised:
        parse_query(params, frozenset({SITE}))
    assert str(raised.value).startswith(words), raised.value


def write(tmp_path: Path, archive: str) -> Path:
    path = tmp_path / "web.yaml"
    path.write_text(
        f"broker: {{url: 'mqtt://127.0.0.1:1'}}\nanonymous: true\narchive: {archive!r}\n"
    )
    return path


def test_the_archive_setting_is_checked_at_load(tmp_path: Path) -> None:
    loaded = load_web_config(write(tmp_path, "archive.db"))
    assert loaded.archive_url == str(tmp_path / "archive.db")  # beside the config
    loaded = load_web_config(write(tmp_path, "sqlite:///srv/floord/archive.db"))
    assert loaded.archive_url == "sqlite:///srv/floord/archive.db"
    for bad, words in (
        ("sqlite:archive.db", "a SQLite archive is sqlite:///<absolute path>"),
        ("mysql://db/floor", "postgresql://..., sqlite:///PATH or a file's path expected"),
        ("postgresql:///floor", "a postgresql://USER@HOST[:PORT]/DATABASE url expected"),
        ("", "an empty URL"),
    ):
        path = write(tmp_path, bad)
        with pytest.raises(WebConfigError) as raised:
            load_web_config(path)
        [line] = raised.value.problems
        assert line.startswith(f"{path}: archive: ") and words in line, line
    path = tmp_path / "web.yaml"
    path.write_text("broker: {url: 'mqtt://127.0.0.1:1'}\nanonymous: true\narchive: [a]\n")
    with pytest.raises(WebConfigError) as raised:
        load_web_config(path)
    assert raised.value.problems[0].startswith(f"{path}: archive: "), raised.value.problems
    path.write_text("broker: {url: 'mqtt://127.0.0.1:1'}\nanonymous: true\n")
    assert load_web_config(path).archive_url is None


def test_an_archived_event_is_words_and_a_broken_one_says_so() -> None:
    event = {
        "v": 1,
        "site": SITE,
        "table": "RL-01",
        "seq": 7,
        "ts": "2026-12-01T18:02:00.000000Z",
        "type": "surveillance.alert_acknowledged",
        "source": "engine",
        "data": {"id": "A00001", "by": "SE-3001", "note": "<b>x</b>", "alert": ALERT},
        "rule": None,
        "round": None,
    }
    row = history_row(event)
    assert row["site"] == SITE and row["seq"] == 7 and row["family"] == "alert"
    assert "acknowledged by SE-3001" in row["text"] and "<b>x</b>" in row["text"]
    broken = history_row({"site": SITE, "type": 5, "ts": "t"})
    assert broken["text"] == "an event this console cannot read" and broken["type"] == "5"


def archived(table: str, alert: str, ts: str, note: str, site: str = SITE) -> dict[str, Any]:
    data = {"id": alert, "by": "SE-3001", "note": note, "alert": {**ALERT, "id": alert}}
    return {
        "site": site,
        "table": table,
        "ts": ts,
        "type": "surveillance.alert_acknowledged",
        "data": data,
    }


def test_the_archives_acknowledgements_join_the_live_ones_once() -> None:
    model, hub = floor()
    page = Viewer(send=lambda body: None, page="alerts")
    hub.join(page)
    drained(page)
    publish(model, "RL-01", 5, "surveillance.alert_acknowledged", {"id": "A00001", "by": "SE-3001"})
    events = [
        archived("RL-01", "A00001", "2026-11-29T19:00:00.000000Z", "the same, from the archive"),
        archived("RL-02", "A00004", "2026-11-28T10:00:00.000000Z", "<i>before the console</i>"),
        {"site": SITE, "table": "RL-03", "type": "roulette.result", "data": {}},
        {"site": SITE, "table": 5, "type": "surveillance.alert_acknowledged", "data": {}},
    ]
    assert hub.merge_archived(events) == 1
    assert hub.merge_archived(events) == 0  # reread: nothing new
    hub.flush()
    [update] = drained(page)
    acked = update["alerts"]["acknowledged"]
    assert [(a["table"], a["id"]) for a in acked] == [("RL-01", "A00001"), ("RL-02", "A00004")]
    assert acked[1]["note"] == "<i>before the console</i>" and acked[1]["by"] == "SE-3001"
    assert acked[1]["text"].startswith("alert A00004: pocket test p = ")
    # An alert the archive told first is not listed again when it comes live.
    publish(model, "RL-02", 9, "surveillance.alert_acknowledged", {"id": "A00004", "by": "SV-1"})
    assert len(hub.acknowledged) == 2


def test_a_full_list_keeps_the_newest_and_still_says_it_changed() -> None:
    _, hub = floor()
    page = Viewer(send=lambda body: None, page="alerts")
    hub.join(page)
    many = [
        archived("RL-01", f"A{n:05d}", f"2026-11-29T19:{n // 60:02d}:{n % 60:02d}.000000Z", "")
        for n in range(ACKS_KEPT + 10)
    ]
    assert hub.merge_archived(many) == ACKS_KEPT + 10
    assert len(hub.acknowledged) == ACKS_KEPT
    assert hub.acknowledged[0]["id"] == f"A{ACKS_KEPT + 9:05d}"
    assert hub.acknowledged[-1]["id"] == "A00010"
    hub.flush()
    drained(page)
    late = archived("RL-01", "B00001", "2026-11-30T08:00:00.000000Z", "newest")
    assert hub.merge_archived([late]) == 1
    hub.flush()
    [update] = drained(page)
    assert update["alerts"]["acknowledged"][0]["id"] == "B00001"


def test_a_console_of_some_sites_takes_only_their_acknowledgements() -> None:
    _, hub = floor()
    hub.sites = frozenset({SITE})
    other = archived("RL-09", "A00001", "2026-11-29T19:00:00.000000Z", "", site="casino-2")
    assert hub.merge_archived([other]) == 0


def test_the_acknowledgements_are_read_back_a_week_then_an_hour(tmp_path: Path) -> None:
    """The first read takes the week (the archive's acks are two days old), each reread
    only the last hour, so a reread is a short range of the ts index."""
    assert ACKS_LOOKBACK < datetime.now(UTC) - T0 < ACKS_FIRST_LOOKBACK
    history = History(str(floor_archive(tmp_path)), None)
    reads: list[list[tuple[str, str]]] = []

    def merge(events: list[dict[str, Any]]) -> int:
        reads.append([(e["site"], e["table"]) for e in events])
        return len(events)

    async def run() -> None:
        follow = asyncio.create_task(history.follow_acks(merge, ACKS_KEPT, 0.01))
        while len(reads) < 3:
            await asyncio.sleep(0.01)
        follow.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await follow

    asyncio.run(run())
    assert reads[0] == [(SITE, "RL-01"), ("casino-2", "RL-09")]
    assert reads[1] == reads[2] == []


def test_an_archive_that_does_not_answer_is_tried_again(tmp_path: Path) -> None:
    history = History(str(tmp_path / "archive.db"), None)
    reads: list[int] = []

    async def run() -> None:
        follow = asyncio.create_task(
            history.follow_acks(lambda e: reads.append(len(e)) or 0, 10, 0.01)
        )
        await asyncio.sleep(0.1)
        assert reads == []  # no file yet: nothing merged, nothing raised
        floor_archive(tmp_path)
        while not reads:
            await asyncio.sleep(0.01)
        follow.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await follow

    asyncio.run(run())
    assert reads[0] == 2  # the first read that succeeds still looks back the week
