"""Backups of a running box under load, and a restore into a new box.

A real daemon plays a roulette table whose simulated SS2 spins on a pty, publishing to a
real Mosquitto; `floord journal backup` (its own process, as the timer runs it) copies
the live journal several times while the wheel spins, and each copy verifies. The box is
then replaced: the last backup is restored into a new journal, a new daemon starts on
it, publishes `journal.restored` chained to the backup's head, and goes on from there.
A restore is refused while the daemon holds the journal, over the newer journal it
would roll back, and for a backup with one row edited.
"""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from e2e_support import collecting, open_table, start_daemon, start_sim, topics, write_config

pytestmark = pytest.mark.system

SPEED = 10.0
BACKUPS = 3


def floord(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "floord", *args], capture_output=True, text=True, timeout=120
    )


def spinning(seed: int) -> dict:
    steps: list[dict] = [{"idle": 60}]
    steps += [{"spin": {"number": str(n % 37), "direction": "cw"}} for n in range(1, 60)]
    return {"pockets": 37, "seed": seed, "steps": [*steps, {"idle": 6000}]}


def heads(line: str) -> dict[str, int]:
    """The head seq of each stream a backup's line names."""
    return {s: int(n) for s, n in re.findall(r"(RL-01(?:/devices/\w+)?) seq (\d+)", line)}


def test_backups_under_load_and_a_restore_into_a_new_box(broker, tmp_path: Path) -> None:
    first, second = tmp_path / "box1", tmp_path / "box2"
    first.mkdir()
    second.mkdir()
    backups = tmp_path / "backups"
    backups.mkdir()
    sim, pty = start_sim(first, spinning(7), SPEED)
    daemon = start_daemon(write_config(first, broker.url, pty))
    journal = first / "journal.db"
    t = topics()
    taken: list[tuple[Path, dict[str, int]]] = []

    async def under_load() -> None:
        async with collecting(broker.url) as c:
            await c.event("device.identified")
            await open_table(broker.url)
            for n in range(BACKUPS):
                await c.event("roulette.result", lambda b, n=n: b["data"]["spin"] > n)
                done = await asyncio.to_thread(
                    floord, "journal", "backup", "--db", str(journal), "--out", f"{backups}/",
                    "--keep", "2",
                )  # fmt: skip
                assert done.returncode == 0, done.stderr
                [line] = done.stdout.strip().splitlines()
                path = Path(line.split(" backed up to ", 1)[1].split(": whole", 1)[0])
                taken.append((path, heads(line)))
                await asyncio.sleep(1.1)  # the next backup's name is a second later
            # The wheel went on while the backups were taken.
            await c.event("roulette.result", lambda b: b["data"]["spin"] > BACKUPS)

    try:
        asyncio.run(under_load())
        for path, head in taken[-2:]:
            verified = floord("journal", "verify", "--db", str(path))
            assert verified.returncode == 0, verified.stdout + verified.stderr
            assert head["RL-01"] > 0 and head["RL-01/devices/wheel"] > 0
        assert [h["RL-01/devices/wheel"] for _, h in taken] == sorted(
            h["RL-01/devices/wheel"] for _, h in taken
        )
        assert sorted(backups.iterdir()) == sorted(p for p, _ in taken[-2:])  # --keep 2
        last, head = taken[-1]
        # The daemon holds the journal: a restore over it is refused, naming it.
        refused = floord("journal", "restore", str(last), "--journal", str(journal), "--force")
        assert refused.returncode == 1
        assert f"is in use by pid {daemon.proc.pid} (floord run -c " in refused.stderr
    finally:
        assert daemon.terminate() == 0
        sim.kill()

    # The old box's journal went on past the backup: restoring over it needs --force.
    refused = floord("journal", "restore", str(last), "--journal", str(journal))
    assert refused.returncode == 1 and " is newer than " in refused.stderr, refused.stderr
    # A backup with one row edited is never restored.
    tampered = tmp_path / "tampered.db"
    tampered.write_bytes(last.read_bytes())
    _edit_a_row(tampered)
    target = second / "journal.db"
    refused = floord("journal", "restore", str(tampered), "--journal", str(target))
    assert refused.returncode == 1 and "does not verify" in refused.stderr, refused.stderr
    assert not target.exists()

    restored = floord("journal", "restore", str(last), "--journal", str(target))
    assert restored.returncode == 0, restored.stderr
    sim, pty = start_sim(second, spinning(8), SPEED)
    daemon = start_daemon(write_config(second, broker.url, pty))

    async def new_box() -> None:
        async with collecting(broker.url) as c:
            marker = await c.event("journal.restored", timeout=60)
            assert marker["seq"] == head["RL-01"] + 1
            assert marker["data"]["head"]["seq"] == head["RL-01"]
            assert marker["prev"] == marker["data"]["head"]["hash"]
            wheel = head["RL-01/devices/wheel"]
            assert marker["data"]["streams"]["RL-01/devices/wheel"]["seq"] == wheel
            started = await c.event("daemon.started")
            assert started["seq"] > marker["seq"]
            device = await c.wait_for(
                lambda tp, b: tp == t.device_events("wheel") and b["seq"] > wheel,
                what="the wheel's stream going on",
            )
            assert device["seq"] == wheel + 1

    try:
        asyncio.run(new_box())
    finally:
        assert daemon.terminate() == 0
        sim.kill()
    verified = floord("journal", "verify", "--db", str(target))
    assert verified.returncode == 0, verified.stdout + verified.stderr
    record = _types(target, "RL-01", head["RL-01"] + 1)
    assert record[0] == "journal.restored" and "daemon.started" in record
    assert "journal.integrity" not in record  # the start check found the record whole


def _edit_a_row(path: Path) -> None:
    db = sqlite3.connect(path, isolation_level=None)
    try:
        seq, body = db.execute(
            "SELECT seq, body FROM events WHERE stream = 'RL-01' ORDER BY seq LIMIT 1 OFFSET 2"
        ).fetchone()
        edited = json.loads(body)
        edited["ts"] = "2020-01-01T00:00:00.000000Z"
        db.execute(
            "UPDATE events SET body = ? WHERE stream = 'RL-01' AND seq = ?",
            (json.dumps(edited), seq),
        )
    finally:
        db.close()


def _types(path: Path, stream: str, from_seq: int) -> list[str]:
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        rows = db.execute(
            "SELECT json_extract(body, '$.type') FROM events WHERE stream = ? AND seq >= ? "
            "ORDER BY seq",
            (stream, from_seq),
        ).fetchall()
    finally:
        db.close()
    return [r[0] for r in rows]
