"""Faults of the floor itself: the broker dies, the daemon is killed.

- A broker killed and restarted mid-run loses no event and leaves no gap: the journal
  holds every event in one seq order, the backlog goes out first on reconnect, and a
  subscriber that fills its gap with a `replay` sees every seq exactly once.
- A daemon killed with SIGKILL and restarted keeps its halt (latched) and its seq.
"""

from __future__ import annotations

import asyncio
import sqlite3
import tempfile
from pathlib import Path

import pytest
from e2e_support import (
    collecting,
    command,
    open_table,
    start_daemon,
    start_device_sim,
    start_sim,
    topics,
    write_config,
)
from test_sim_control import control_socket

pytestmark = pytest.mark.system

SPEED = 20.0


def _journal_seqs(path: Path, stream: str) -> tuple[list[int], int]:
    with sqlite3.connect(path) as db:
        rows = db.execute(
            "SELECT seq, published FROM events WHERE stream = ? ORDER BY seq", (stream,)
        ).fetchall()
    return [r[0] for r in rows], sum(1 for r in rows if not r[1])


def test_broker_killed_and_restarted_loses_nothing(broker, tmp_path: Path) -> None:
    scenario = {"pockets": 37, "seed": 11, "loop": True, "steps": [{"idle": 20}, {"spin": {}}]}
    sim, pty = start_sim(tmp_path, scenario, SPEED)
    config = write_config(tmp_path, broker.url, pty)
    daemon = start_daemon(config)
    t = topics()

    async def run() -> None:
        async with collecting(broker.url) as c:
            await c.event("device.identified")
            await open_table(broker.url)
            await c.event("roulette.result")
            broker.kill()
            seqs_at_kill, _ = _journal_seqs(tmp_path / "journal.db", "RL-01")
            # The wheel goes on spinning while the broker is down: events are journaled.
            # (Not told by the rows' `published` flags, which the watermarks stand for
            # while the daemon runs: by seq.)
            await asyncio.sleep(4)
            seqs_down, _ = _journal_seqs(tmp_path / "journal.db", "RL-01")
            assert seqs_down[-1] > seqs_at_kill[-1], "events made while the broker was down"
            broker.start()
            # After reconnecting, the backlog goes out; then live events follow.
            last_down = seqs_down[-1]
            await c.wait_for(
                lambda tp, b: tp == t.events and b["seq"] > last_down + 2,
                timeout=30,
                what="live events after the restart",
            )
            seen = {b["seq"] for b in c.events(t.events)}
            top = max(seen)
            missing = sorted(set(range(1, top + 1)) - seen)
            if missing:
                reply = await command(
                    broker.url, "replay", {"from_seq": missing[0], "to_seq": missing[-1]}
                )
                assert reply["ok"], reply
                await c.wait_for(
                    lambda tp, b: tp == t.replay and b["seq"] == missing[-1], what="replay"
                )
                replayed = {b["seq"]: b for b in c.events(t.replay)}
                for seq in missing:
                    assert seq in replayed
                    assert replayed[seq]["table"] == "RL-01"
                seen |= set(replayed)
            assert seen >= set(range(1, top + 1))

    try:
        asyncio.run(run())
    finally:
        assert daemon.terminate() == 0
        sim.kill()
    seqs, backlog = _journal_seqs(tmp_path / "journal.db", "RL-01")
    assert seqs == list(range(1, len(seqs) + 1)), "the journal has no gap and no duplicate"
    assert backlog == 0, "everything journaled was published"


def test_daemon_sigkill_keeps_halt_and_seq(broker, tmp_path: Path) -> None:
    # The wheel stands still; its fault (permanent: the wheel powers down, so it is not
    # healthy after the restart) is injected once the table is open (through the
    # simulator's control channel), so a loaded machine cannot open the table after it.
    scenario = {"pockets": 37, "seed": 3, "steps": [{"idle": 60000}]}
    sock = f"{tempfile.mkdtemp(prefix='floord-res-')}/ss2.sock"  # a unix socket path is short
    sim, pty = start_device_sim(tmp_path, "cammegh-ss2", scenario, SPEED, control=f"unix:{sock}")
    config = write_config(tmp_path, broker.url, pty)
    daemon = start_daemon(config)
    t = topics()

    # One persistent session for both runs: the broker keeps what the restarted daemon
    # publishes before the second run's console has subscribed (its daemon.started).
    console = "sigkill-console"

    async def first_run() -> int:
        async with collecting(broker.url, client_id=console) as c:
            await c.event("device.identified")
            await open_table(broker.url)
            await c.event("table.opened")
            async with control_socket(sock) as ask:
                assert (await ask("fault code=5 permanent=true")).startswith("ok fault"), (
                    "the fault"
                )
            halted = await c.event("table.halted")
            assert halted["data"]
            await asyncio.sleep(0.5)
            return max(b["seq"] for b in c.events(t.events))

    try:
        last_seq = asyncio.run(first_run())
    finally:
        daemon.kill()

    restarted = start_daemon(config)

    async def second_run() -> None:
        async with collecting(broker.url, client_id=console) as c:
            started = await c.event("daemon.started")
            assert started["seq"] > last_seq
            state = await c.wait_for(
                lambda tp, b: tp == t.state and b.get("state") == "halted", what="halted state"
            )
            assert state["halt_reasons"]
            # The halt is lifted only by an authorised command with the wheel healthy.
            refused = await command(broker.url, "resume", {"reason": "try"})
            assert not refused["ok"]
            seqs = [b["seq"] for b in c.events(t.events)]
            assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)

    try:
        asyncio.run(second_run())
    finally:
        assert restarted.terminate() == 0
        sim.kill()
    seqs, _ = _journal_seqs(tmp_path / "journal.db", "RL-01")
    assert seqs == list(range(1, len(seqs) + 1))
