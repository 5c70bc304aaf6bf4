"""End to end: a spin voided by a daemon restart gets no result.

A simulated SS2 on a real pty, the real daemon (`floord run`), a real Mosquitto. The
daemon is killed with SIGKILL while a spin is in its betting phase and started again;
it voids that spin's round (`daemon_restart`), the wheel reconnects before the ball is
launched, and the launch of the voided spin opens no round (`launch_after_void`), its
number is no result (`number_after_void`), and the next spin plays normally.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

import pytest
from e2e_support import collecting, open_table, start_daemon, start_sim, topics, write_config

pytestmark = pytest.mark.system

SPEED = 1.0  # the betting phase (states 1 and 2) lasts 5 s: time for a restart


def _journal(path: Path) -> list[tuple[int, str, str | None, dict]]:
    """(seq, type, round, data) of every event of the table, from the journal itself."""
    with sqlite3.connect(path) as db:
        rows = db.execute(
            "SELECT seq, body FROM events WHERE stream = 'RL-01' ORDER BY seq"
        ).fetchall()
    bodies = [(seq, json.loads(body)) for seq, body in rows]
    return [(seq, b["type"], b.get("round"), b.get("data") or {}) for seq, b in bodies]


def test_a_spin_voided_at_a_restart_gets_no_result(broker, tmp_path: Path) -> None:
    scenario = {
        "pockets": 37,
        "seed": 5,
        "steps": [{"idle": 2}, *[{"spin": {"number": n}} for n in ("19", "4", "7")]],
    }
    scenario["steps"].append({"idle": 600})
    sim, pty = start_sim(tmp_path, scenario, SPEED)
    config = write_config(tmp_path, broker.url, pty)
    daemon = start_daemon(config)
    t = topics()
    voided: dict = {}

    async def first_run() -> None:
        async with collecting(broker.url) as c:
            await c.event("device.identified")
            await open_table(broker.url)
            betting = await c.event(
                "round.started",
                lambda b: b["data"]["opened_by"] == "wheel.game_started",
                timeout=60,
            )
            voided.update(round=betting["round"], spin=betting["data"]["spin"])
            daemon.kill()  # SIGKILL in the betting phase

    restarted = None
    try:
        asyncio.run(first_run())
    finally:
        daemon.kill()

    async def second_run() -> None:
        nonlocal restarted
        async with collecting(broker.url) as c:
            restarted = start_daemon(config)
            void = await c.event("round.voided", lambda b: b["round"] == voided["round"])
            assert void["data"]["reason"] == "daemon_restart"
            assert void["data"]["spin"] == voided["spin"]
            refused = await c.event(
                "procedure.violation", lambda b: b["data"]["what"] == "launch_after_void"
            )
            assert refused["data"]["spin"] == voided["spin"] and refused["rule"] is None
            assert refused["data"]["voided_round"] == voided["round"]
            online = [b for b in c.events(t.events) if b["type"] == "device.online"]
            assert online and online[0]["seq"] < refused["seq"], "reconnected before the launch"
            late = await c.event(
                "procedure.violation", lambda b: b["data"]["what"] == "number_after_void"
            )
            assert late["data"]["spin"] == voided["spin"]
            following = await c.event("roulette.result", timeout=60)
            assert following["data"]["spin"] != voided["spin"]
            results = [b for b in c.events(t.events) if b["type"] == "roulette.result"]
            assert all(b["data"]["spin"] != voided["spin"] for b in results)

    try:
        asyncio.run(second_run())
    finally:
        if restarted is not None:
            assert restarted.terminate() == 0
        sim.kill()
    record = _journal(tmp_path / "journal.db")
    spin = voided["spin"]
    assert not [r for r in record if r[1] == "roulette.result" and r[3].get("spin") == spin]
    started = [r for r in record if r[1] == "round.started" and r[3].get("spin") == spin]
    assert [r[2] for r in started] == [voided["round"]], "no second round for the voided spin"
    after = [r for r in record if r[1] == "roulette.result"]
    assert after and after[-1][3]["spin"] != spin
