"""`floord demo --seconds N`: runs the whole floor and ends with exit status 0.

Piped (no terminal), it prints one plain line per event. Run once with the private
Mosquitto the demo prefers, and once with the embedded amqtt broker it falls back to
on a machine where nothing is installed.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest


@pytest.mark.parametrize("embedded", [False, True], ids=["mosquitto", "embedded-amqtt"])
def test_demo_runs_and_ends_cleanly(embedded: bool) -> None:
    env = dict(os.environ)
    if embedded:
        env["FLOORD_DEMO_EMBEDDED_BROKER"] = "1"
    done = subprocess.run(
        [sys.executable, "-m", "floord", "demo", "--seconds", "12", "--speed", "6"],
        capture_output=True,
        text=True,
        timeout=90,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    assert "Subscribe from another terminal:" in out
    assert ("embedded amqtt" in out) is embedded
    assert "\x1b[" not in out, "no terminal: plain lines only"
    for kind in ("device.identified", "operator.inspection", "table.opened", "roulette.result"):
        assert f" {kind} " in out, kind
    # The double-zero wheel used as single zero shows its 00 void early in the scenario.
    assert "roulette.no_spin" in out
    assert "floord demo: stopped after" in out
