"""The archive's reader on a SQLite archive: its order, its filters, read-only, and the
one-line errors of an archive it cannot read."""

from __future__ import annotations

import importlib.util
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from archive_fixture import build_archive

from floord.archive.reader import ArchiveError, open_archive
from floord.contract import Envelope, format_ts
from floord.journal.store import Journal

pytestmark = pytest.mark.unit

T0 = datetime(2026, 12, 1, 18, 0, tzinfo=UTC)


def box(path: Path, site: str, table: str, times: list[int]) -> Path:
    """A box's journal: its table's events at T0 + each minute, and one device event."""
    journal = Journal(path)
    try:
        for i, minute in enumerate(times):
            ts = format_ts(T0 + timedelta(minutes=minute))
            kind = "round.ended" if i % 2 else "round.started"
            journal.append(
                table,
                lambda seq, ts=ts, kind=kind: Envelope(
                    site, table, seq, ts, kind, "engine", {"n": seq}
                ),
            )
        ts = format_ts(T0 + timedelta(minutes=times[0]))
        journal.append(
            f"{table}/devices/wheel",
            lambda seq: Envelope(site, table, seq, ts, "device.online", "wheel", {"port": "p"}),
        )
    finally:
        journal.close()
    return path


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    a = box(tmp_path / "a.db", "s1", "RL-01", [0, 2, 4, 6])
    b = box(tmp_path / "b.db", "s2", "RL-01", [1, 2, 5])
    c = box(tmp_path / "c.db", "s1", "BJ-01", [3])
    path = tmp_path / "archive.db"
    assert build_archive(path, [a, b, c]) == 4 + 3 + 1 + 3
    return path


def test_events_come_in_time_order_and_filter(archive: Path) -> None:
    with open_archive(f"sqlite://{archive}") as reader:
        every = list(reader.events())
        assert len(every) == reader.count() == 11
        keys = [(e["ts"], e["site"], e["table"]) for e in every]
        assert keys == sorted(keys)
        # Two events at one time: the site decides, then the stream (table before device).
        at_2 = [(e["site"], e["seq"]) for e in every if e["ts"].endswith("18:02:00.000000Z")]
        assert at_2 == [("s1", 2), ("s2", 2)]
        tables = list(reader.events(tables_only=True))
        assert len(tables) == 8 and all(e["type"] != "device.online" for e in tables)
        since, until = T0 + timedelta(minutes=2), T0 + timedelta(minutes=5)
        window = list(reader.events(since=since, until=until, tables_only=True))
        assert [e["ts"][11:16] for e in window] == ["18:02", "18:02", "18:03", "18:04"]
        assert reader.count(since=since, until=until, tables_only=True) == 4
        s2 = list(reader.events(site="s2", table="RL-01", types=["round.ended"]))
        assert [e["seq"] for e in s2] == [2]
        assert list(reader.events(types=[])) == []
        assert reader.tables() == [("s1", "BJ-01"), ("s1", "RL-01"), ("s2", "RL-01")]


def test_a_bare_path_is_a_sqlite_archive_opened_read_only(archive: Path) -> None:
    before = archive.read_bytes()
    with open_archive(str(archive)) as reader:
        assert reader.count() == 11
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            reader._conn.execute("DELETE FROM archive_events")
    assert archive.read_bytes() == before


def test_what_cannot_be_read_is_one_line(tmp_path: Path, archive: Path) -> None:
    with pytest.raises(ArchiveError, match="no such file"):
        open_archive(str(tmp_path / "none.db"))
    with pytest.raises(ArchiveError, match=r"sqlite:///<absolute path>"):
        open_archive("sqlite:archive.db")
    with pytest.raises(ArchiveError, match="empty"):
        open_archive("")
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.close()
    with pytest.raises(ArchiveError, match="no such table: archive_events"):
        open_archive(str(other))
    db = sqlite3.connect(archive)
    db.execute("UPDATE archive_events SET body = 'not json' WHERE seq = 3 AND site = 's1'")
    db.commit()
    db.close()
    with open_archive(str(archive)) as reader, pytest.raises(ArchiveError, match="is not JSON"):
        list(reader.events())
    db = sqlite3.connect(archive)  # nested deeper than the parser goes: the same line
    db.execute("UPDATE archive_events SET body = ? WHERE seq = 3", ("[" * 100_000,))
    db.commit()
    db.close()
    with open_archive(str(archive)) as reader, pytest.raises(ArchiveError, match="is not JSON"):
        list(reader.events())


def test_a_postgresql_url_without_the_extra_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "psycopg" else real(name)
    )
    with pytest.raises(ArchiveError, match=r"'archive' extra .*pip install 'floord\[archive\]'"):
        open_archive("postgresql://report:secret@db.floor/floord")
