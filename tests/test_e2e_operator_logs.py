"""The operator's log of a real `floord run`: one JSON line per state an operator must know.

The daemon runs as on a box (`python -m floord run`, stderr a file, so JSON lines)
against a simulated SS2 wheel on a real pty and a real Mosquitto. The run goes through
steady play, a broker restart, a refused command (one refused by the table, one with a
bad signature), a wheel fault and the wheel going offline; then every line of the log
must be JSON, each of those states must have its line, and steady play must have none:
no line per frame, spin or publish at INFO.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from e2e_support import FP, FP_KEY, collecting, command, open_table, topics, write_config
from test_sim_control import control_socket, running

pytestmark = pytest.mark.system

SPEED = 20.0
HANG_S = 120.0  # a guard against a hung test, not a claim about speed


def _last_seq(journal: Path) -> int:
    """The table stream's last seq in the journal. (Its rows' `published` flags say
    nothing while the daemon runs: the watermarks hold that, and are written up to a
    second after the PUBACKs, docs/journal.md.)"""
    with sqlite3.connect(journal) as db:
        row = db.execute("SELECT MAX(seq) FROM events WHERE stream = 'RL-01'").fetchone()
    return int(row[0] or 0)


def _journal_types(journal: Path) -> list[str]:
    with sqlite3.connect(journal) as db:
        rows = db.execute("SELECT body FROM events WHERE stream = 'RL-01'").fetchall()
    return [json.loads(r[0])["type"] for r in rows]


def _lines(log: Path) -> list[dict[str, Any]]:
    text = log.read_text()
    assert "Traceback" not in text, text
    lines = [line for line in text.splitlines() if line.strip()]
    parsed = []
    for line in lines:
        try:
            parsed.append(json.loads(line))
        except ValueError as exc:
            raise AssertionError(f"not a JSON line: {line!r}") from exc
    return parsed


def _one(lines: list[dict[str, Any]], event: str, **where: Any) -> dict[str, Any]:
    found = [
        entry
        for entry in lines
        if entry.get("event") == event and all(entry.get(k) == v for k, v in where.items())
    ]
    assert len(found) == 1, (event, where, found, [e.get("event") for e in lines])
    return found[0]


def test_a_run_with_faults_logs_one_line_per_state(broker, tmp_path: Path) -> None:
    scenario = {"pockets": 37, "seed": 5, "loop": True, "steps": [{"idle": 10}, {"spin": {}}]}
    sock = str(tmp_path / "ss2.sock")
    journal = tmp_path / "journal.db"
    log = tmp_path / "floord.log"
    t = topics()
    with running(tmp_path, "cammegh-ss2", f"unix:{sock}", scenario, speed=SPEED) as sim:
        config = write_config(tmp_path, broker.url, sim.pty)
        with log.open("wb") as err:
            daemon = subprocess.Popen(
                [sys.executable, "-m", "floord", "run", "-c", str(config)],
                stdout=subprocess.DEVNULL,
                stderr=err,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )

        async def run() -> None:
            async with collecting(broker.url) as c, control_socket(sock) as ask:
                await c.event("device.identified")
                await open_table(broker.url)
                # Steady play: several spins, each many frames and events.
                first = await c.event("roulette.result")
                await c.event("roulette.result", lambda b: b["seq"] > first["seq"] + 20)
                # The broker goes away while the wheel spins on, then comes back.
                broker.kill()
                # Events journaled after the kill: no broker can have acknowledged them.
                at_kill = _last_seq(journal)
                while _last_seq(journal) < at_kill + 2:
                    await asyncio.sleep(0.1)
                broker.start()
                await c.wait_for(
                    lambda tp, b: tp == t.status and b.get("online") is True
                    and b.get("reason") == "connected" and len(c.events(t.status)) > 1,
                    what="the table back online",
                )  # fmt: skip
                # A command the table refuses, and one signed with the wrong key.
                refused = await command(broker.url, "resume", {"reason": "nothing halted"})
                assert not refused["ok"]
                forged = await command(broker.url, "close", {}, key=b"not-the-key")
                assert not forged["ok"]
                # The wheel faults (the table halts), then the wheel goes away.
                assert (await ask("fault 5")).startswith("ok fault")
                await c.event("table.halted")
                sim.close()
                await c.event("device.offline")

        try:
            asyncio.run(asyncio.wait_for(run(), HANG_S))
        finally:
            daemon.terminate()
            try:
                assert daemon.wait(15) == 0
            finally:
                if daemon.poll() is None:
                    daemon.kill()
                    daemon.wait()

    lines = _lines(log)
    assert all(e.get("level") in ("info", "warning", "error", "critical") for e in lines)
    daemon_start = _one(lines, "floord starting")
    assert daemon_start["tables"] == ["RL-01"]
    _one(lines, "floord ready")
    _one(lines, "broker connected", table="RL-01")
    _one(lines, "broker connection lost", table="RL-01")
    back = _one(lines, "broker connection back", table="RL-01")
    assert back["backlog"] >= 1  # the events journaled while the broker was away
    _one(lines, "device online", table="RL-01", source="wheel")
    identified = _one(lines, "device identified", table="RL-01", source="wheel")
    assert identified["maker"]
    _one(lines, "table opened", table="RL-01", by=FP)
    # The fault and the offline wheel each halt the table: a device line and a halt line.
    fault = _one(lines, "device fault", table="RL-01", source="wheel")
    assert fault["origin"] == "status_flag" and fault["text"]
    halted = _one(lines, "table halted", table="RL-01", code="device_fault")
    assert halted["device"] == "wheel" and halted["detail"] == fault["text"]
    assert "rule" in halted  # null: floord's fail-closed policy, not a regulation
    offline = _one(lines, "device offline", table="RL-01", source="wheel")
    assert "link broke" in offline["reason"]
    _one(lines, "table halted", table="RL-01", code="device_offline")
    by_table = _one(lines, "command refused", name="resume")
    assert by_table["by"] == FP and "not halted" in by_table["reason"]
    forged_line = _one(lines, "command refused", name="close")
    assert forged_line["code"] == "bad_signature"
    text = log.read_text()
    assert FP_KEY.decode() not in text and 'signature":' not in text
    _one(lines, "floord stopped")

    # Steady play made no lines: spins were played (each many frames and events), and no
    # line names a frame, a spin or a publish. (How many events the spins made depends
    # on the machine's speed, so the log is bounded by the states, not by a ratio.)
    types = _journal_types(journal)
    assert types.count("roulette.result") >= 2
    per_frame = {"wheel.number", "wheel.game_started", "roulette.result", "round.started"}
    assert not [e for e in lines if per_frame & {str(e.get("event")), str(e.get("type"))}]
    assert len(lines) < 30, [e["event"] for e in lines]
