"""A killed `floord run` (SIGKILL: no `daemon.stopped`, no save at the stop) leaves its
table's live tests where it last kept them, and the next `floord run` takes them up from
there and replays only the results recorded after them: its tests are then exactly
those a replay of the whole record builds.

The keep here is the one a start makes once it has replayed results
(`floord.processes.table_watchers`); the keep during play, five minutes of the table's
clock after the last one, is tested in-process (tests/test_watch_kept_in_play.py),
since a real daemon's clock cannot be moved forward. The results are appended between
the daemons as a month of a busy wheel is (`bench.aged_journal`), chained and with the
table's snapshot, as the start check expects them.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from e2e_support import SITE, Process, collecting, start_daemon, start_sim, write_config
from table_turns import restore

from bench.aged_journal import age
from floord.config.load import load_config
from floord.journal.readers import saved_watch
from floord.journal.watch_states import SavedWatch
from floord.processes.daemon import Daemon
from floord.table.surveillance import TableSurveillance

pytestmark = pytest.mark.system

TABLE = "RL-01"


def _kept(journal: Path, beyond: int = -1, timeout: float = 20.0) -> SavedWatch:
    """The table's tests as kept on the record, once kept past seq `beyond` (read beside
    the running daemon, as any reader may)."""
    deadline = time.monotonic() + timeout
    while True:
        kept = saved_watch(journal, TABLE)
        if isinstance(kept, SavedWatch) and kept.after_seq > beyond:
            return kept
        if time.monotonic() > deadline:
            raise AssertionError(f"the live tests were not kept past seq {beyond}: {kept}")
        time.sleep(0.05)


def _types(journal: Path) -> list[str]:
    db = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT body FROM events WHERE stream = ? ORDER BY seq", (TABLE,))
        return [json.loads(body)["type"] for (body,) in rows]
    finally:
        db.close()


def _whole_replay(tmp: Path, broker_url: str, journal: Path) -> dict[str, Any]:
    """The tests a start builds from every result on a copy of `journal` that keeps none."""
    replay = tmp / "replay"
    replay.mkdir()
    src = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
    dst = sqlite3.connect(replay / "journal.db")
    try:
        src.backup(dst)
        dst.execute("DELETE FROM watch_states")
        dst.commit()
    finally:
        src.close()
        dst.close()
    daemon = Daemon(load_config(write_config(replay, broker_url, "/dev/null")))
    try:
        restore(daemon)
        watcher = daemon.tables[TABLE].runner.surveillance
        assert isinstance(watcher, TableSurveillance)
        state: dict[str, Any] = json.loads(json.dumps(watcher.watch_state()))
        return state
    finally:
        daemon.journal.close()


def _killed_after_its_keep(
    config: Path, journal: Path, beyond: int
) -> tuple[SavedWatch, list[dict[str, Any]]]:
    """A `floord run` killed once it has kept its tests past `beyond`: what it kept, and
    its lines about them."""
    daemon: Process = start_daemon(config)
    try:
        kept = _kept(journal, beyond)
    finally:
        daemon.kill()
    lines = [json.loads(line) for line in daemon.stderr_tail(1 << 30).splitlines()]
    return kept, [line for line in lines if line["event"].startswith("live tests")]


def _said(line: dict[str, Any]) -> tuple[int, bool, int]:
    assert line["event"] == "live tests replayed" and line["what"] == "results", line
    return line["count"], line["taken_up"], line["after_seq"]


def test_a_start_after_a_killed_daemon_takes_up_its_kept_tests(broker, tmp_path: Path) -> None:
    sim, pty = start_sim(tmp_path, {"pockets": 37, "seed": 1, "steps": [{"idle": 3000}]}, 5.0)
    config = write_config(tmp_path, broker.url, pty)
    journal = tmp_path / "journal.db"
    try:
        first = start_daemon(config)

        async def online() -> None:
            async with collecting(broker.url) as c:
                await c.event("device.identified")

        asyncio.run(online())
        assert first.terminate() == 0
        at_stop = _kept(journal)  # the clean stop's save, after `daemon.stopped`

        age(journal, SITE, [TABLE], 40)
        kept, lines = _killed_after_its_keep(config, journal, at_stop.after_seq)
        assert [_said(line) for line in lines] == [(40, True, at_stop.after_seq)]
        stopped = _types(journal).count("daemon.stopped")
        assert stopped == 1, "the first daemon's stop only: the second was killed"

        # The play the killed daemon's keep missed.
        age(journal, SITE, [TABLE], 15)
        again, lines = _killed_after_its_keep(config, journal, kept.after_seq)
        # Taken up where the killed daemon kept them: only the fifteen replayed.
        assert [_said(line) for line in lines] == [(15, True, kept.after_seq)]
        assert _types(journal).count("daemon.stopped") == stopped
        assert _types(journal).count("roulette.result") == 55
        assert again.state != kept.state  # the fifteen results went through the tests
        assert again.state == _whole_replay(tmp_path, broker.url, journal)
    finally:
        sim.kill()
