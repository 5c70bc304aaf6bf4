"""`floord report floor --archive postgresql://...` on a real PostgreSQL server, as the
report's read-only role (docs/deployment.md): the same report as from a SQLite archive of
the same events, and nothing written.

The server is Debian's `postgresql`, started for this module in a temporary directory
(initdb, pg_ctl) as the `postgres` user on a free loopback port; the test is skipped,
saying why, where there is no server to start or no psycopg.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from archive_fixture import build_archive
from support import free_port
from test_floor_report_figures import Record, dealer_in, spin, write

from floord.cli.main import main

pytestmark = pytest.mark.system

BIN = sorted(Path("/usr/lib/postgresql").glob("*/bin"))
SCHEMA = """
CREATE TABLE archive_events (
  site TEXT NOT NULL, stream TEXT NOT NULL, epoch INTEGER NOT NULL DEFAULT 0,
  seq BIGINT NOT NULL, table_id TEXT NOT NULL, device TEXT, ts TIMESTAMPTZ NOT NULL,
  type TEXT NOT NULL, source TEXT NOT NULL, round TEXT, rule TEXT, hash TEXT NOT NULL,
  prev TEXT NOT NULL, body TEXT NOT NULL, stored_at TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (site, stream, epoch, seq));
CREATE ROLE floord_report LOGIN PASSWORD 'report-secret';
GRANT CONNECT ON DATABASE floord TO floord_report;
GRANT SELECT ON archive_events TO floord_report;
"""


def _as_postgres(folder: Path, *argv: str) -> None:
    subprocess.run(
        ["runuser", "-u", "postgres", "--", *argv],
        check=True,
        cwd=folder,
        capture_output=True,
        timeout=120,
    )


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[int, Path]]:
    pytest.importorskip("psycopg", reason="the 'archive' extra (psycopg) is not installed")
    if not BIN or os.geteuid() != 0 or shutil.which("runuser") is None:
        pytest.skip("no PostgreSQL server to start (Debian's postgresql, run as root)")
    # Not under pytest's own temporary folder: that is root's alone, and the server runs
    # as `postgres`.
    folder = Path(tempfile.mkdtemp(prefix="floord-report-pg-"))
    os.chmod(folder, 0o777)
    data, port = folder / "data", free_port()
    bin_ = BIN[-1]
    _as_postgres(
        folder,
        str(bin_ / "initdb"),
        "-D",
        str(data),
        "-U",
        "postgres",
        "--no-sync",
        "--auth-local=trust",
        "--auth-host=scram-sha-256",
    )
    _as_postgres(
        folder,
        str(bin_ / "pg_ctl"),
        "-D",
        str(data),
        "-w",
        "-l",
        str(folder / "log"),
        "-o",
        f"-p {port} -k {folder} -c listen_addresses=127.0.0.1",
        "start",
    )
    try:
        _as_postgres(folder, str(bin_ / "createdb"), "-h", str(folder), "-p", str(port), "floord")
        yield port, folder
    finally:
        _as_postgres(folder, str(bin_ / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop")
        shutil.rmtree(folder, ignore_errors=True)


def load(port: int, socket_dir: Path, archive: Path) -> None:
    """The SQLite archive's rows into the server's `archive_events` (as the owner)."""
    import psycopg

    rows = sqlite3.connect(archive).execute("SELECT * FROM archive_events").fetchall()
    with psycopg.connect(f"host={socket_dir} port={port} user=postgres dbname=floord") as conn:
        conn.execute(SCHEMA)
        with conn.cursor() as cur:
            cur.executemany(f"INSERT INTO archive_events VALUES ({', '.join(['%s'] * 15)})", rows)


def test_the_report_from_postgresql_is_the_one_from_sqlite(
    server: tuple[int, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record: Record = [
        dealer_in(0, "dl-a"),
        (1, "table.opened", {}),
        *spin(2, 3, 1),
        (10, "table.halted", {"code": "device_offline"}),
        (25, "table.resumed", {"by": "fp", "reason": "ok", "state": "open"}),
        *spin(30, 31, 2),
        (61, "table.closed", {"state": "closed"}),
    ]
    write(tmp_path, "RL-01", record)
    archive = tmp_path / "archive.db"
    build_archive(archive, [tmp_path / "box.db"])
    port, socket_dir = server
    load(port, socket_dir, archive)

    def report(url: str, *argv: str) -> dict[str, Any]:
        assert main(["report", "floor", "--archive", url, *argv, "--format", "json"]) == 0
        return dict(json.loads(capsys.readouterr().out))

    url = f"postgresql://floord_report:report-secret@127.0.0.1:{port}/floord"
    period = ("--from", "2026-12-01T18:05:00Z", "--to", "2026-12-01T19:00:00Z")
    assert report(url) == report(str(archive))
    assert report(url, *period) == report(str(archive), *period)
    assert report(url)["tables"][0]["minutes_halted"] == 15.0

    # The role reads and cannot write; a wrong password is one line without the password.
    psycopg = pytest.importorskip("psycopg")

    with psycopg.connect(url) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute("DELETE FROM archive_events")
    bad = url.replace("report-secret", "wrong-secret")
    assert main(["report", "floor", "--archive", bad]) == 1
    err = capsys.readouterr().err
    assert "cannot connect" in err and "wrong-secret" not in err and "Traceback" not in err
