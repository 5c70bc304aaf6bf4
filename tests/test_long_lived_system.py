"""`floord run` freezes what it built to start once it is ready
(`floord.processes.long_lived`): the collector's full passes under play walk only what
play made. A real daemon in this process, a simulated wheel on a pty, a real Mosquitto."""

from __future__ import annotations

import asyncio
import gc
from pathlib import Path

import pytest
from e2e_support import Process, daemon_running, start_sim, write_config

from floord.config.load import load_config
from floord.processes.daemon import Daemon

pytestmark = pytest.mark.system

WAIT_S = 20.0


def _walked(target: object) -> bool:
    return any(o is target for o in gc.get_objects())


def test_a_ready_daemon_has_frozen_its_tables_and_not_what_play_makes(
    broker, tmp_path: Path
) -> None:
    sim, pty = start_sim(tmp_path, {"pockets": 37, "steps": [{"idle": 60000}]}, 20.0)
    gc.unfreeze()
    daemon = Daemon(load_config(write_config(tmp_path, broker.url, pty)))
    engine = daemon.tables["RL-01"].runner.engine
    seen: dict[str, bool] = {}

    async def scenario() -> None:
        assert gc.get_freeze_count() == 0
        assert _walked(engine), "before it is ready, the collector walks the table's engine"
        async with daemon_running(daemon, 3 * WAIT_S) as run:
            loop = asyncio.get_running_loop()
            deadline = loop.time() + WAIT_S
            while gc.get_freeze_count() == 0:
                assert loop.time() < deadline, "the daemon froze nothing"
                assert not run.done(), "the daemon ended"
                await asyncio.sleep(0.05)
            made_in_play = [engine]
            seen["engine"] = _walked(engine)
            seen["made in play"] = _walked(made_in_play)

    try:
        asyncio.run(scenario())
    finally:
        sim.kill()
    assert seen == {"engine": False, "made in play": True}


def test_floord_adapter_freezes_what_it_built_once_ready(broker, tmp_path: Path) -> None:
    """A real `floord adapter` process, its device's port refusing: ready once it was
    tried, and its ready line counts what it froze."""
    config = write_config(tmp_path, broker.url, "socket://127.0.0.1:9")
    adapter = Process(["adapter", "-c", str(config), "--table", "RL-01", "--device", "wheel"])
    try:
        ready = adapter.until_said("adapter ready")
    finally:
        adapter.terminate()
    # The modules, pydantic's validators, the config and the adapter: tens of thousands.
    assert ready["objects_frozen"] > 10_000, ready
