"""A simulated USB port is refused by `floord check`, `floord run` and `floord adapter`,
each run as its own process, unless the config is a rig's. The rig port itself is
checked in `test_usb_rig.py`.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from test_usb_rig import _config, scenario

pytestmark = pytest.mark.system


@pytest.mark.parametrize("command", ["check", "run"])
def test_a_simulated_port_is_refused_unless_the_config_is_a_rig(tmp_path, command) -> None:
    """A box's config (no `rig: true`) never gets a simulator inside its daemon: `check`
    and `run` refuse it with the file, the key and what was expected, and nothing else."""
    port = f"usb://sim:{scenario(tmp_path, {'profile': 'ref-usb-shoe'})}"
    config = _config(tmp_path, port, rig=False)
    done = subprocess.run(
        [sys.executable, "-m", "floord", command, "-c", str(config)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert (done.stdout + done.stderr).strip().splitlines() == [
        f"{config}: tables.0.devices.0.port: a real device's port expected (a simulated device "
        f"is for a test rig only: set 'rig: true' at the top of a rig's config), found {port!r}"
    ]
    assert not (tmp_path / "j.db").exists()


def test_an_adapters_own_simulated_port_is_refused_unless_the_config_is_a_rig(
    tmp_path,
) -> None:
    port = f"usb://sim:{scenario(tmp_path, {'profile': 'ref-usb-shoe'})}"
    config = _config(tmp_path, "/dev/ttyUSB0", rig=False)
    args = ["adapter", "-c", str(config), "--table", "BA-01", "--device", "shoe", "--port", port]
    done = subprocess.run(
        [sys.executable, "-m", "floord", *args], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        f"{config}: --port: a real device's port expected (a simulated device is for a test "
        f"rig only: set 'rig: true' at the top of a rig's config), found {port!r}"
    ]
