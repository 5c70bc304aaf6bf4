"""End to end: a profile dropped into the site directory drives `floord run`.

A Blackjack table's card-recognition shoe on a real pty, the real daemon and a real
Mosquitto. The site directory holds `ref-shoe-recognition.yaml` with a protocol-error
budget of its own (a fault after 6 errors, where the packaged profile says 30): six broken
frames fault the shoe and halt the table, and `daemon.started` names the site file and its
SHA-256. An override that removes the shoe's card recognition stops `floord run` with
the config's key, the profile's file and key, and what was expected.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from e2e_support import (
    bad_frame,
    collecting,
    start_daemon,
    start_device_sim,
    write_tables_config,
)
from test_sim_control import control_socket

from floord.profiles import PROFILES_DIR

pytestmark = pytest.mark.system

SHOE = "ref-shoe-recognition"
FAULT_AFTER = 6  # the site's budget; the packaged profile's is 30
WAIT_S = 60.0


def site_shoe(site: Path, **quirks: Any) -> Path:
    """The packaged shoe's profile with the site's protocol-error budget (and quirks)."""
    body = yaml.safe_load((PROFILES_DIR / f"{SHOE}.yaml").read_text())
    body["protocol_errors"] = {"interval_s": 60.0, "kinds": 8, "fault_after": FAULT_AFTER}
    body["quirks"] = {**body["quirks"], **quirks}
    site.mkdir(exist_ok=True)
    path = site / f"{SHOE}.yaml"
    path.write_text(yaml.safe_dump(body, sort_keys=False))
    return path


def blackjack(tmp: Path, broker_url: str, reader: str, shoe: str) -> Path:
    """A Blackjack box whose config names `profiles/` as its site directory."""
    table = {
        "id": "BJ-01",
        "game": "blackjack",
        "rules": {"decks": 6},
        "devices": [
            {"id": "reader", "profile": "ref-card-reader", "port": reader},
            {"id": "shoe", "profile": SHOE, "port": shoe},
        ],
    }
    config = write_tables_config(tmp, broker_url, [table])
    body = yaml.safe_load(config.read_text())
    config.write_text(yaml.safe_dump({**body, "site_profiles": "profiles"}))
    return config


def test_a_site_profile_overrides_the_packaged_budget_in_floord_run(broker, tmp_path: Path) -> None:
    site = site_shoe(tmp_path / "profiles")
    sock = str(tmp_path / "shoe.sock")
    shoe_sim, shoe_pty = start_device_sim(
        tmp_path, SHOE, {"steps": [{"idle": 6000}]}, control=f"unix:{sock}"
    )
    reader_sim, reader_pty = start_device_sim(
        tmp_path, "ref-card-reader", {"steps": [{"idle": 6000}]}
    )
    daemon = start_daemon(blackjack(tmp_path, broker.url, reader_pty, shoe_pty))
    seen: dict[str, dict[str, Any]] = {}

    async def watch() -> None:
        async with collecting(broker.url, "BJ-01") as c:
            seen["started"] = await c.event("daemon.started", timeout=WAIT_S)
            identified = await c.event("device.identified", lambda b: b["source"] == "shoe", WAIT_S)
            async with control_socket(sock) as ask:
                garbage = "".join(bad_frame(i) for i in range(FAULT_AFTER))
                reply = await ask(json.dumps({"raw": garbage}))
                assert reply.startswith("ok raw"), reply
            fault = await c.event("device.fault", lambda b: b["seq"] > identified["seq"], WAIT_S)
            assert (fault["source"], fault["data"]["origin"]) == ("shoe", "protocol_errors")
            halted = await c.event("table.halted", lambda b: b["seq"] > fault["seq"], WAIT_S)
            seen["halted"] = halted

    try:
        asyncio.run(watch())
    finally:
        assert daemon.terminate() == 0, daemon.stderr_tail()
        shoe_sim.kill()
        reader_sim.kill()

    halted = seen["halted"]["data"]
    assert (halted["code"], halted["device"]) == ("device_fault", "shoe")
    assert f"{FAULT_AFTER} protocol errors within 60" in halted["detail"]
    profiles = seen["started"]["data"]["profiles"]
    assert profiles["shoe"] == {
        "name": SHOE,
        "model": SHOE,
        "origin": "site",
        "path": str(site),
        "sha256": hashlib.sha256(site.read_bytes()).hexdigest(),
        "overrides": str(PROFILES_DIR / f"{SHOE}.yaml"),
    }
    reader = profiles["reader"]
    assert (reader["origin"], reader["path"], reader["overrides"]) == (
        "packaged",
        str(PROFILES_DIR / "ref-card-reader.yaml"),
        None,
    )
    assert reader["sha256"] == hashlib.sha256(Path(reader["path"]).read_bytes()).hexdigest()


def test_run_refuses_an_override_that_removes_the_shoes_recognition(
    tmp_path: Path,
) -> None:
    site = site_shoe(tmp_path / "profiles", recognition=False)
    config = blackjack(
        tmp_path, "mqtt://127.0.0.1:1", "socket://127.0.0.1:1", "socket://127.0.0.1:2"
    )
    run = subprocess.run(
        [sys.executable, "-m", "floord", "run", "-c", str(config)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 1, run.stderr
    assert "Traceback" not in run.stderr
    [line] = run.stderr.splitlines()
    assert line.startswith(
        f"{config}: tables.0.devices.1.profile: a usable device profile expected, found: "
        f"{site}: quirks.recognition: true expected (the profile it overrides, "
    )
    assert line.endswith("found false")
    assert not (tmp_path / "journal.db").exists()
