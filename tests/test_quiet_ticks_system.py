"""A real `floord run` spares an idle table its clock ticks, and still ticks it at a
deadline of its own: a window of unsigned junk on `P/cmd` is counted on the record once
it ends, with no command after it to close it (`TableRunner.wants_tick`, the daemon's
clock). The engines' deadlines through a real daemon: tests/test_e2e_second_source*.py
(a result's window that closes on a tick)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import aiomqtt
import pytest
from e2e_support import collecting, start_daemon, start_sim, topics, write_tables_config

from floord.table.refusal_limiter import RECORDED_A_WINDOW, WINDOW_S

pytestmark = pytest.mark.system


def test_a_refusal_window_is_counted_at_its_end_on_an_idle_table(broker, tmp_path: Path) -> None:
    scenario = {"pockets": 37, "seed": 1, "steps": [{"idle": 3000}]}
    sim, pty = start_sim(tmp_path, scenario, 5.0)
    table = {
        "id": "RL-01",
        "game": "roulette",
        "rules": {"wheel": "single_zero"},
        "devices": [{"id": "wheel", "profile": "cammegh-ss2", "port": pty}],
    }
    daemon = start_daemon(write_tables_config(tmp_path, broker.url, [table]))
    t = topics()
    host, port = broker.url.split("://", 1)[1].rsplit(":", 1)
    junk = RECORDED_A_WINDOW + 5

    async def run() -> None:
        async with collecting(broker.url) as c:
            await c.event("device.identified")
            async with aiomqtt.Client(host, int(port)) as client:
                for n in range(junk):
                    # JSON, though no command: the test's own subscriber reads `P/cmd` too.
                    await client.publish(t.cmd, f'{{"junk": {n}}}'.encode(), qos=1)
            sent = time.monotonic()
            first = await c.event("operator.command_refused")
            assert first["data"]["code"] == "malformed"
            counted = await c.event("operator.commands_refused", timeout=WINDOW_S + 20)
            waited = time.monotonic() - sent
            assert counted["data"]["count"] == junk - RECORDED_A_WINDOW
            assert counted["data"]["codes"] == {"malformed": junk - RECORDED_A_WINDOW}
            # At the first tick after the window's end, not at a later command.
            assert WINDOW_S - 1 <= waited <= WINDOW_S + 5, waited
            kinds = [b["type"] for b in c.events(t.events)]
            assert kinds.count("operator.command_refused") == RECORDED_A_WINDOW

    try:
        asyncio.run(run())
    finally:
        assert daemon.terminate() == 0
        sim.kill()
