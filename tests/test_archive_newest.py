"""The archive reader's page of newest events (the web console's History page), and the
archive URL's form checked without opening it."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from web_history_support import SITE, T0, at, floor_archive

from floord.archive.reader import (
    NEWEST_MAX,
    NEWEST_MAX_OFFSET,
    ArchiveError,
    check_archive_url,
    open_archive,
)

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return floor_archive(tmp_path_factory.mktemp("newest"))


def test_newest_first_a_page_at_a_time(archive: Path) -> None:
    with open_archive(str(archive)) as reader:
        every = reader.count()
        first = reader.newest(10)
        assert first.more and len(first.events) == 10
        keys = [(e["ts"], e["site"], e["seq"]) for e in first.events]
        assert keys == sorted(keys, reverse=True)
        # The pages join without a gap or an overlap, and the last says so.
        pages, offset = [], 0
        while True:
            page = reader.newest(7, offset)
            pages += page.events
            offset += 7
            if not page.more:
                break
        assert len(pages) == every
        assert len({(e["site"], e["table"], e["seq"], e["source"]) for e in pages}) == every
        assert pages[:10] == first.events


def test_newest_filters(archive: Path) -> None:
    with open_archive(str(archive)) as reader:
        rl01 = reader.newest(NEWEST_MAX, site=SITE, table="RL-01").events
        # 30 rounds of two events, the alert, its ack, and the wheel's device event.
        assert len(rl01) == 63
        assert {e["table"] for e in rl01} == {"RL-01"}
        acks = reader.newest(5, types=["surveillance.alert_acknowledged"]).events
        assert [(e["site"], e["table"]) for e in acks] == [(SITE, "RL-01"), ("casino-2", "RL-09")]
        mine = reader.newest(5, sites=[SITE], types=["surveillance.alert_acknowledged"])
        assert [e["table"] for e in mine.events] == ["RL-01"] and not mine.more
        assert reader.newest(5, sites=[]).events == []
        since, until = T0.replace(minute=2), T0.replace(minute=4)
        window = reader.newest(50, since=since, until=until, table="RL-01").events
        assert [e["ts"] for e in window] == [at(3), at(3), at(2), at(2)]


def test_a_page_is_bounded(archive: Path) -> None:
    with open_archive(str(archive)) as reader:
        for limit in (0, NEWEST_MAX + 1):
            with pytest.raises(ValueError, match="limit"):
                reader.newest(limit)
        with pytest.raises(ValueError, match="offset"):
            reader.newest(1, NEWEST_MAX_OFFSET + 1)
        assert reader.newest(1, NEWEST_MAX_OFFSET) == ([], False)


def test_the_url_form_is_checked_without_opening(tmp_path: Path) -> None:
    assert check_archive_url("sqlite:///srv/a.db") == Path("/srv/a.db")
    assert check_archive_url("archive.db") == Path("archive.db")
    for bad, words in (
        ("", "empty"),
        ("sqlite:a.db", "sqlite:///<absolute path>"),
        ("mysql://db/floor", "postgresql://..., sqlite:///PATH or a file's path expected"),
        ("postgresql:///floor", "postgresql://USER@HOST"),
    ):
        with pytest.raises(ArchiveError, match=words.replace("(", r"\(").replace(".", r"\.")):
            check_archive_url(bad)
    if importlib.util.find_spec("psycopg") is not None:
        assert check_archive_url("postgresql://floord_reader@db.floor/floord_archive") is None
    # The password of a URL is never in a message.
    with pytest.raises(ArchiveError) as raised:
        check_archive_url("postgresql://u:secret@/floor")
    assert "secret" not in str(raised.value)
