"""The load bench's archive: `floord archive` on the bench's floor, and its figures.

Started before the daemons (so it takes every record from its first event), on a
SQLite file in the bench's folder or on a private PostgreSQL server
(`bench/local_postgres.py`, fsync on). Over the measured window it reports how long an
event took from the daemon's `ts` (its commit, just before its publish) to its row
(`stored_at`, the archive's commit): p50, p99, max; the archive's CPU and the database
server's; and the database's size, per table and per table-day of play (the window's
seconds times the wheels' speed, in days). Every event stored is checked: the archive's
rows of the window against the events the daemons journaled is the bench's to compare
(`missing` names any record the archive has not caught up with at the end).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import yaml

from bench.local_postgres import Postgres
from bench.proc_stats import dies_with_bench, end, sample


def _when(value: Any) -> float:
    if isinstance(value, datetime):
        return value.timestamp()
    return datetime.fromisoformat(str(value).replace("Z", "+00:00")).timestamp()


def _percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


class BenchArchive:
    def __init__(self, directory: Path, kind: str, broker_port: int, prefix: str) -> None:
        self.dir = directory / "archive"
        self.dir.mkdir()
        self.kind = kind
        self.pg = Postgres(durable=True) if kind == "postgresql" else None
        self.database = self.pg.new_database() if self.pg is not None else None
        self.sqlite = self.dir / "archive.db"
        self.broker_port = broker_port
        self.prefix = prefix
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, operator: str, key: bytes, site: str) -> None:
        (self.dir / "fp.key").write_bytes(key + b"\n")
        config: dict[str, Any] = {
            "broker": {"url": f"mqtt://127.0.0.1:{self.broker_port}", "topic_prefix": self.prefix},
            "sites": [site],
            "sqlite": str(self.sqlite),
            "operator": {"id": operator, "key_file": "fp.key"},
            "client_id": "floord-archive-bench",
        }
        if self.database is not None:
            config["database"] = self.database
        path = self.dir / "archive.yaml"
        path.write_text(yaml.safe_dump(config, sort_keys=False))
        log = (self.dir / "archive.log").open("wb")
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "floord", "--log-level", "info", "archive", "-c", str(path)],
            stdout=log,
            stderr=log,
            env=env,
            preexec_fn=dies_with_bench(),
        )

    def pids(self) -> dict[str, list[int]]:
        return {
            "archive": [self.proc.pid] if self.proc is not None else [],
            "database": self.pg.pids() if self.pg is not None else [],
        }

    def _rows(self, sql: str) -> list[tuple[Any, ...]]:
        if self.database is not None:
            import psycopg

            with psycopg.connect(self.database) as db:
                return db.execute(sql).fetchall()
        with contextlib.closing(sqlite3.connect(self.sqlite, timeout=30)) as db:
            return db.execute(sql).fetchall()

    def size_bytes(self) -> int:
        """The events' table with its indexes (PostgreSQL), or the SQLite file's pages
        in use after a checkpoint: what the events cost, not a database's fixed part."""
        if self.database is not None:
            return int(self._rows("SELECT pg_total_relation_size('archive_events')")[0][0])
        with contextlib.closing(sqlite3.connect(self.sqlite, timeout=30)) as db:
            db.execute("PRAGMA wal_checkpoint(PASSIVE)")
            pages = db.execute("PRAGMA page_count").fetchone()[0]
            free = db.execute("PRAGMA freelist_count").fetchone()[0]
            size = db.execute("PRAGMA page_size").fetchone()[0]
        return int((pages - free) * size)

    def count(self) -> int:
        return int(self._rows("SELECT count(*) FROM archive_events")[0][0])

    def settle(self, quiet_s: float = 3.0, timeout: float = 120.0) -> int:
        """Wait until the archive's count has not moved for `quiet_s` (it has caught up
        with the floor, whose daemons are stopped), at most `timeout`; what it holds."""
        deadline = time.monotonic() + timeout
        held, since = self.count(), time.monotonic()
        while time.monotonic() - since < quiet_s and time.monotonic() < deadline:
            time.sleep(0.5)
            now = self.count()
            if now != held:
                held, since = now, time.monotonic()
        return held

    def figures(
        self, *, since: float, until: float, tables: int, speed: float, cpu: dict[str, float]
    ) -> dict[str, Any]:
        """The figures of the events made in the window (by their `ts`): their lag to
        their row, the CPU spent meanwhile, the database's size."""
        rows = self._rows("SELECT ts, stored_at FROM archive_events")
        lags = [_when(stored) - _when(ts) for ts, stored in rows if since <= _when(ts) <= until]
        size = self.size_bytes()
        elapsed = until - since
        table_days = tables * elapsed * speed / 86400.0
        return {
            "database": self.kind,
            "events_stored_in_window": len(lags),
            "events_held": len(rows),
            "lag_ts_to_row_ms": {
                "p50": _ms(_percentile(lags, 0.50)),
                "p99": _ms(_percentile(lags, 0.99)),
                "max": _ms(max(lags, default=None)),
            },
            "cpu_percent_of_one_core": {k: round(100.0 * v / elapsed, 1) for k, v in cpu.items()},
            "events_table_bytes": size,
            "bytes_per_event": round(size / max(len(rows), 1)),
            "mib_per_table_day": round(
                size / 1048576 / max(table_days, 1e-9) * (len(lags) / max(len(rows), 1)), 2
            ),
        }

    def own_word(self) -> dict[str, Any]:
        """The archive's last `archive status` line (its receipt-to-commit lag and commit
        time, p99), read from its log once it stopped."""
        import json

        found: dict[str, Any] = {}
        with contextlib.suppress(OSError):
            for line in (self.dir / "archive.log").read_text().splitlines():
                with contextlib.suppress(ValueError):
                    body = json.loads(line)
                    if isinstance(body, dict) and body.get("event") == "archive status":
                        found = body
        return {k: found.get(k) for k in ("lag_p99_s", "commit_p99_s", "duplicates", "breaks")}

    def stop(self) -> None:
        if self.proc is not None:
            end(self.proc, 30)
        if self.pg is not None:
            self.pg.close()


def _ms(value: float | None) -> float | None:
    return None if value is None else round(value * 1000.0, 1)


def cpu_seconds(pids: list[int]) -> float:
    return sum(s.cpu_s for s in (sample(p) for p in pids) if s is not None)


def journaled(folder: Path) -> int:
    """How many events the daemons' journals hold, every stream (the archive's due)."""
    total = 0
    for journal in folder.glob("daemon-*/journal.db"):
        with contextlib.closing(sqlite3.connect(f"file:{journal}?mode=ro", uri=True)) as db:
            total += db.execute("SELECT count(*) FROM events").fetchone()[0]
    return total
