"""A model only the site directory holds, simulated and captured as a rig would: `floord
sim` plays it on a pty (`--profiles DIR`), and `floord capture` on that pty takes the
site profile's serial settings (`-c CONFIG`, the config's `site_profiles`), as `floord
run` would. The lookups' refusals are in tests/test_sim_profile_sources.py.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from e2e_support import Process

from floord.profiles import PROFILES_DIR
from floord.tools.capture import read_capture

pytestmark = pytest.mark.system

NEW = "site-reader"
BAUD = 38400  # the packaged reader's is 19200


def test_a_site_model_is_simulated_and_captured_with_its_settings(tmp_path: Path) -> None:
    site = tmp_path / "profiles"
    site.mkdir()
    body = yaml.safe_load((PROFILES_DIR / "ref-card-reader.yaml").read_text())
    body["model"] = NEW
    body["serial"]["baudrate"] = BAUD
    (site / f"{NEW}.yaml").write_text(yaml.safe_dump(body))
    config = tmp_path / "floord.yaml"
    config.write_text(yaml.safe_dump({"site_profiles": "profiles"}))

    sim = Process(["sim", NEW, "--pty", "--profiles", str(site)])
    try:
        assert sim.proc.stdout is not None
        line = sim.proc.stdout.readline().decode().strip()
        assert line.startswith("pty: "), (line, sim.stderr_tail())
        pty = sim.alias(tmp_path, line.removeprefix("pty: "))
        out = tmp_path / "capture.jsonl"
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "floord",
                "capture",
                "--port",
                pty,
                "--profile",
                NEW,
                "-c",
                str(config),
                "--seconds",
                "1.5",
                "--out",
                str(out),
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
    finally:
        assert sim.terminate() == 0, sim.stderr_tail()
    head, chunks = read_capture(out)
    assert (head["profile"], head["baud"]) == (NEW, BAUD)
    # The simulator identifies as the site's model: it was built from the site's file.
    assert f"|IDN|floord reference|{NEW}|".encode() in b"".join(c.data for c in chunks)
