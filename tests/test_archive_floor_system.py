"""`floord archive` on a real Mosquitto, in SQLite and in a real PostgreSQL: two boxes
on one archive, a gap filled by replay, a duplicate dropped, a record's head learnt from
the retained state, and tampering found and recorded.

The boxes here are hand-chained envelopes (`archive_support.FakeBox`) that answer a
replay as floord does, so each case is exact and takes a second or two;
tests/test_archive_daemon_system.py runs the archive beside a real daemon.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from archive_support import (
    FakeBox,
    chained,
    read_archive,
    read_breaks,
    read_gaps,
    wait_until,
    write_archive_config,
)
from pg_support import Postgres, requires_postgres

from floord.archive.reader import ArchiveReader
from floord.archive.service import Archive
from floord.archive.settings import load_archive_config
from floord.contract import parse_ts
from floord.journal.chain import event_hash

pytestmark = pytest.mark.system


@pytest.fixture(scope="module")
def postgres() -> Iterator[Postgres]:
    server = Postgres()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=requires_postgres)])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> str | Path:
    """Where the archive writes: a SQLite file, or a fresh PostgreSQL database."""
    if request.param == "sqlite":
        return tmp_path / "archive.db"
    server: Postgres = request.getfixturevalue("postgres")
    return server.new_database()


@contextlib.asynccontextmanager
async def archiving(tmp: Path, url: str, database: str | Path) -> AsyncIterator[Archive]:
    config = write_archive_config(
        tmp, url, database=database if isinstance(database, str) else None
    )
    archive = Archive.build(load_archive_config(config))
    stop = asyncio.Event()
    task = asyncio.create_task(archive.run(stop=stop))
    try:
        await wait_until(lambda: archive.feed.connected, 10, "the archive's subscriptions")
        yield archive
    finally:
        stop.set()
        assert await asyncio.wait_for(task, 30) == 0


def held(database: str | Path, site: str, stream: str) -> list[int]:
    return [seq for seq, _, _ in read_archive(database).get((site, stream, 0), [])]


def test_two_boxes_gaps_filled_by_replay_duplicates_dropped(
    broker, tmp_path: Path, database: str | Path
) -> None:
    asyncio.run(_two_boxes(broker.url, tmp_path, database))


async def _two_boxes(url: str, tmp_path: Path, database: str | Path) -> None:
    one = chained("casino-a", "RL-01", "RL-01", 15)
    two = chained("casino-b", "RL-01", "RL-01", 10)
    async with (
        archiving(tmp_path, url, database) as archive,
        FakeBox(url, "casino-a", "RL-01", one) as box_a,
        FakeBox(url, "casino-b", "RL-01", two) as box_b,
    ):
        await box_a.publish([1, 2, 3, 4, 5, 9, 10, 11, 12, 3, 4])
        await box_b.publish(range(1, 11))
        # The retained state names the record's head: 13..15 never went out.
        head = {"chain": {"seq": 15, "hash": one[14]["hash"]}}
        await box_a.send_raw(box_a.topics.state, head)
        await wait_until(
            lambda: held(database, "casino-a", "RL-01") == list(range(1, 16)),
            20,
            "casino-a's record whole",
        )
        await wait_until(
            lambda: held(database, "casino-b", "RL-01") == list(range(1, 11)),
            10,
            "casino-b's record whole",
        )
        assert (6, 8) in box_a.replays and (13, 15) in box_a.replays
        assert box_b.replays == []
        assert archive.writer.duplicates >= 2
    rows = read_archive(database)
    for site, box in (("casino-a", one), ("casino-b", two)):
        stored = rows[(site, "RL-01", 0)]
        assert [(s, h) for s, h, _ in stored] == [(e["seq"], e["hash"]) for e in box]
        assert all(event_hash(json.loads(body)) == h for _, h, body in stored)
    assert read_breaks(database) == []
    assert read_gaps(database) == []
    # The reports' reader reads what the archive wrote, in either database.
    with ArchiveReader(str(database)) as reader:
        assert reader.tables() == [("casino-a", "RL-01"), ("casino-b", "RL-01")]
        assert reader.count(site="casino-a") == 15
        since = parse_ts(one[0]["ts"]) - timedelta(seconds=1)
        read = [e["hash"] for e in reader.events(site="casino-b", since=since)]
        assert sorted(read) == sorted(e["hash"] for e in two)


def test_tampering_is_recorded_and_a_device_gap_is_kept(
    broker, tmp_path: Path, database: str | Path
) -> None:
    asyncio.run(_tampering(broker.url, tmp_path, database))


async def _tampering(url: str, tmp_path: Path, database: str | Path) -> None:
    site = "casino-a"
    record = chained(site, "RL-01", "RL-01", 6)
    wheel = chained(site, "RL-01/devices/wheel", "RL-01", 5)
    edited = dict(record[3], data={"n": 999})  # seq 4: content changed, hash kept
    forged = dict(record[1], data={"n": 222})  # seq 2 again, with a hash of its own
    forged["hash"] = event_hash(forged)
    async with (
        archiving(tmp_path, url, database),
        FakeBox(url, site, "RL-01", record) as box,
    ):
        box.events[4] = edited
        await box.publish([1, 2, 3, 4, 5, 6])
        await box.send_raw(box.topics.events, forged)
        device = box.topics.device_events("wheel")
        for body in (wheel[0], wheel[1], wheel[4]):  # 3..4 never arrive
            await box.send_raw(device, body)
        await wait_until(
            lambda: (
                len(read_breaks(database)) >= 2
                and len(held(database, site, "RL-01/devices/wheel")) == 3
            ),
            10,
            "the breaks and the device's events",
        )
    breaks = read_breaks(database)
    assert (site, "RL-01", 4, "edited") in breaks
    assert (site, "RL-01", 2, "fork") in breaks
    # The edited event is held as the box sent it (the record is what was published),
    # the forged copy of seq 2 is not: seq 2 is still the first one taken.
    rows = {seq: h for seq, h, _ in read_archive(database)[(site, "RL-01", 0)]}
    assert rows[2] == record[1]["hash"] and rows[4] == record[3]["hash"]
    assert read_gaps(database) == [(site, "RL-01/devices/wheel", 3, 4, False)]


@requires_postgres
def test_check_on_postgresql_reads_and_writes_nothing(
    postgres: Postgres, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from floord.archive.postgres import PostgresStore
    from floord.cli.main import main

    url = postgres.new_database()
    config = write_archive_config(tmp_path, "mqtt://127.0.0.1:1", database=url)
    assert main(["archive", "-c", str(config), "--check"]) == 0
    assert "at schema version 0 (this floord's: 1), 0 events held" in capsys.readouterr().out
    assert read_archive(url) == {} and _tables(url) == []
    PostgresStore(url).migrate()
    assert main(["archive", "-c", str(config), "--check"]) == 0
    assert "at schema version 1" in capsys.readouterr().out
    down = write_archive_config(tmp_path, "mqtt://127.0.0.1:1", database=url + "_gone")
    assert main(["archive", "-c", str(down), "--check"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot be reached" in err, err


def _tables(url: str) -> list[str]:
    import psycopg

    with psycopg.connect(url) as db:
        rows = db.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'").fetchall()
    return [r[0] for r in rows]
