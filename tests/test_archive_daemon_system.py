"""`floord archive` beside a real daemon: killed with SIGKILL mid-stream, its broker
dropped and (on PostgreSQL) its database restarted, the archive's table record ends equal
to the box's journal, event for event and hash for hash; of a device stream it holds
only what the journal holds, and every `seq` it lacks is a recorded gap (a surveillance
login has no replay of device streams, docs/archive.md).
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from archive_support import (
    journal_streams,
    read_archive,
    read_breaks,
    read_gaps,
    wait_until,
    write_archive_config,
)
from e2e_support import SITE, Process, open_table, start_daemon, start_sim, write_config
from pg_support import Postgres, requires_postgres

pytestmark = pytest.mark.system

SPEED = 20.0
SCENARIO = {"pockets": 37, "seed": 11, "loop": True, "steps": [{"idle": 20}, {"spin": {}}]}


def start_archive(config: Path) -> Process:
    return Process(["archive", "-c", str(config)])


def _table_equal(journal: Path, database: str | Path) -> bool:
    record = journal_streams(journal).get("RL-01", [])
    held = read_archive(database).get((SITE, "RL-01", 0), [])
    return bool(record) and [(s, h) for s, h, _ in held] == [(s, h) for s, h, _ in record]


def _count(database: str | Path) -> int:
    return len(read_archive(database).get((SITE, "RL-01", 0), []))


def _archive_through_faults(tmp: Path, broker, database: str | Path, pg: Postgres | None) -> None:
    sim, pty = start_sim(tmp, SCENARIO, SPEED)
    config = write_archive_config(
        tmp, broker.url, database=database if isinstance(database, str) else None
    )
    archive = start_archive(config)
    daemon = start_daemon(write_config(tmp, broker.url, pty))
    journal = tmp / "journal.db"

    async def faults() -> None:
        nonlocal archive
        await wait_until(lambda: _count(database) >= 3, 30, "the daemon's first events")
        await open_table(broker.url)
        await wait_until(lambda: _count(database) >= 15, 30, "15 events archived")
        archive.kill()  # SIGKILL, mid-stream
        await asyncio.sleep(1.0)
        archive = start_archive(config)
        if pg is not None:
            await wait_until(lambda: _count(database) >= 25, 30, "archiving again")
            pg.stop()
            await asyncio.sleep(1.5)
            pg.start()
        broker.kill()
        await asyncio.sleep(1.0)
        broker.start()
        at = _count(database)
        await wait_until(lambda: _count(database) > at + 5, 30, "archiving after the faults")

    try:
        asyncio.run(faults())
        sim.kill()  # the table goes quiet: its journal stops growing
        deadline = time.monotonic() + 45
        while not _table_equal(journal, database):
            assert time.monotonic() < deadline, "the archive's record never equalled the journal"
            time.sleep(0.2)
    finally:
        assert daemon.terminate() == 0
        archive_exit = archive.terminate()
        sim.kill()
    assert archive_exit == 0, archive.stderr_tail()
    assert read_breaks(database) == []
    record = journal_streams(journal)
    rows = read_archive(database)
    gaps = read_gaps(database)
    for stream, events in record.items():
        if stream == "RL-01":
            continue
        held = {s: h for s, h, _ in rows.get((SITE, stream, 0), [])}
        assert held, f"nothing archived of {stream}"
        journal_of = {s: h for s, h, _ in events}
        assert all(journal_of.get(s) == h for s, h in held.items()), stream
        lacking = [s for s in journal_of if s not in held and s < max(held)]
        recorded = [
            (a, b) for site, name, a, b, fillable in gaps if name == stream and not fillable
        ]
        assert all(any(a <= s <= b for a, b in recorded) for s in lacking), (lacking, recorded)


def test_archive_on_sqlite_survives_sigkill_and_a_broker_drop(broker, tmp_path: Path) -> None:
    _archive_through_faults(tmp_path, broker, tmp_path / "archive.db", None)


@requires_postgres
def test_archive_on_postgresql_survives_sigkill_a_database_restart_and_a_broker_drop(
    broker, tmp_path: Path
) -> None:
    pg = Postgres()
    try:
        _archive_through_faults(tmp_path, broker, pg.new_database(), pg)
    finally:
        pg.close()


def test_a_device_stream_is_whole_after_a_sigkill_mid_stream(broker, tmp_path: Path) -> None:
    """The archive acknowledges an event only once it is stored: what it had taken and
    not committed when it was killed, the broker sends again to its persistent session,
    so even a device stream (no replay for the archive) loses nothing."""
    from archive_support import FakeBox, chained

    wheel = chained(SITE, "RL-01/devices/wheel", "RL-01", 600)
    database = tmp_path / "archive.db"
    config = write_archive_config(tmp_path, broker.url, batch={"events": 100, "ms": 500})
    archive = start_archive(config)

    def held() -> list[int]:
        rows = read_archive(database).get((SITE, "RL-01/devices/wheel", 0), [])
        return [s for s, _, _ in rows]

    async def run() -> None:
        nonlocal archive
        await wait_until(lambda: read_archive(database) is not None and database.exists(), 20, "db")
        async with FakeBox(broker.url, SITE, "RL-01", []) as box:
            topic = box.topics.device_events("wheel")
            await asyncio.sleep(1.0)  # the archive's session is subscribed

            async def publish() -> None:
                for body in wheel:
                    await box.send_raw(topic, body)
                    await asyncio.sleep(0.003)

            publishing = asyncio.create_task(publish())
            await wait_until(lambda: len(held()) >= 150, 20, "the first events stored")
            archive.kill()  # SIGKILL mid-stream: some taken, not yet committed
            lost_then = held()
            await publishing
            archive = start_archive(config)
            await wait_until(lambda: held() == list(range(1, 601)), 30, "the stream whole")
            assert lost_then[-1] < 600

    try:
        asyncio.run(run())
    finally:
        code = archive.terminate()
    assert code == 0, archive.stderr_tail()
    assert read_gaps(database) == [] and read_breaks(database) == []
