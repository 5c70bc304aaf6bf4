"""One config for the daemon and `floord adapter`, as the shipped units run them.

`floord-adapter@.service` runs `floord adapter -c /etc/floord/floord.yaml --table T
--device D` with no `--port`: a device configured `adapter: remote` names the port its
adapter opens, and the daemon, reading the same file, follows the device over MQTT and
never opens that port itself.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import yaml
from e2e_support import collecting, start_daemon, start_sim, write_config
from test_remote_adapter import start_adapter

from floord.config.load import ConfigError, load_config

pytestmark = pytest.mark.system

SPEED = 10.0


def one_config(tmp: Path, url: str, pty: str) -> Path:
    """The box's config: the wheel `adapter: remote`, with the port its adapter opens."""
    path = write_config(tmp, url, pty)
    body = yaml.safe_load(path.read_text())
    body["tables"][0]["devices"][0]["adapter"] = "remote"
    path.write_text(yaml.safe_dump(body))
    return path


def test_a_remote_device_may_name_its_adapters_port(tmp_path: Path) -> None:
    config = one_config(tmp_path, "mqtt://127.0.0.1:1883", "/dev/floord/RL-01-wheel")
    [device] = load_config(config).table("RL-01").devices
    assert device.remote and device.port == "/dev/floord/RL-01-wheel"


def test_a_device_with_neither_port_nor_remote_is_refused(tmp_path: Path) -> None:
    config = write_config(tmp_path, "mqtt://127.0.0.1:1883", "/dev/null")
    body = yaml.safe_load(config.read_text())
    del body["tables"][0]["devices"][0]["port"]
    config.write_text(yaml.safe_dump(body))
    with pytest.raises(ConfigError) as caught:
        load_config(config)
    assert any("a port, or adapter: remote" in p for p in caught.value.problems)


def test_the_daemon_and_the_adapter_run_from_one_config(broker, tmp_path: Path) -> None:
    sim, pty = start_sim(tmp_path, {"pockets": 37, "steps": [{"idle": 60000}]}, SPEED)
    config = one_config(tmp_path, broker.url, pty)
    adapter = start_adapter(config)  # no --port: the config names it
    daemon = start_daemon(config)

    async def run() -> None:
        async with collecting(broker.url) as c:
            # The wheel's identity reaches the table's record through the adapter: only
            # the adapter opened the pty (a pty has one reader; the daemon never tried).
            identified = await c.event("device.identified", timeout=60)
            assert identified["source"] == "wheel"
            assert identified["data"]["model"]

    try:
        asyncio.run(run())
    finally:
        assert adapter.terminate() == 0
        assert daemon.terminate() == 0
        sim.kill()
    assert not list(tmp_path.glob("*.db-journal"))
