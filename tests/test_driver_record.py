"""Each table's `daemon.started` names, for each device whose driver runs in the daemon,
the driver module and the installed package its driver family came from (`drivers`,
docs/contract.md): floord's own families are `floord` at floord's version. A device whose
adapter runs as its own process (`adapter: remote`) is not named: its driver runs there.
tests/test_plugins_system.py checks a plugin's (`floord-linewheel 1.0.0`) end to end.
"""

from __future__ import annotations

import importlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import yaml
from table_turns import restore

import floord
from floord.config.load import load_config
from floord.processes.daemon import Daemon
from floord.processes.driver_record import driver_record
from floord.profiles import load_profile

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[1]


def _started(tmp_path: Path, body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each table's `daemon.started` data, from a daemon started on `body`'s journal."""
    body["journal"] = str(tmp_path / "journal.db")
    for op in body["operators"]:
        op["key_file"] = str(ROOT / "examples" / op["key_file"])
    config = tmp_path / "floord.yaml"
    config.write_text(yaml.safe_dump(body))
    daemon = Daemon(load_config(config))
    restore(daemon)
    daemon.journal.close()
    db = sqlite3.connect(tmp_path / "journal.db")
    try:
        rows = db.execute("SELECT stream, body FROM events ORDER BY stream, seq").fetchall()
    finally:
        db.close()
    bodies = [(stream, json.loads(text)) for stream, text in rows]
    return {s: b["data"] for s, b in bodies if b["type"] == "daemon.started"}


def test_daemon_started_names_each_devices_driver_and_its_package(tmp_path: Path) -> None:
    body = yaml.safe_load((ROOT / "examples" / "box.yaml").read_text())
    [blackjack] = [t for t in body["tables"] if t["id"] == "BJ-01"]
    for device in blackjack["devices"]:
        if device["id"] == "shuffler":
            device.pop("port")
            device["adapter"] = "remote"
    started = _started(tmp_path, body)
    assert started["RL-01"]["drivers"] == {
        "wheel": {
            "driver": "cammegh_ss2.driver",
            "module": "drivers.cammegh_ss2.driver",
            "family": "cammegh_ss2",
            "distribution": "floord",
            "version": floord.__version__,
        }
    }
    drivers = started["BJ-01"]["drivers"]
    # The shuffler's adapter is its own process: its driver is not the daemon's.
    assert set(drivers) == {"reader", "shoe"}
    assert set(started["BJ-01"]["profiles"]) == {"reader", "shoe", "shuffler"}
    for device, driver in drivers.items():
        assert (driver["family"], driver["distribution"]) == ("flf1", "floord"), device
        assert driver["version"] == floord.__version__
        assert importlib.import_module(driver["module"]).DRIVER is not None


def test_a_driver_named_by_its_old_name_is_recorded_by_its_new_one(tmp_path: Path) -> None:
    """A profile written before the modules were grouped by protocol (`driver:
    card_reader`) still loads; the record says the module that read the device."""
    body = yaml.safe_load((ROOT / "device_profiles" / "ref-card-reader.yaml").read_text())
    body["driver"] = "card_reader"
    old = tmp_path / "old-reader.yaml"
    old.write_text(yaml.safe_dump({**body, "model": "old-reader"}))
    record = driver_record(load_profile(str(old)))
    assert record["driver"] == "flf1.card_reader"
    assert record["module"] == "drivers.flf1.card_reader"
    assert (record["family"], record["distribution"]) == ("flf1", "floord")
