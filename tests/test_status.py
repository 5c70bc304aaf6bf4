"""`floord status` beside a running daemon: a real daemon process, a simulated wheel on a
pty, a real Mosquitto. Status reads the journal read-only while the daemon writes it,
and the broker's retained state; it still answers, from the journal, when the broker is
gone, and says it could read nothing (exit 2) when neither is there. It lists each
wheel table's open surveillance alerts until they are acknowledged.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from e2e_support import command, start_daemon, start_sim, write_config
from live_wheel_support import LiveWheel

from floord.cli.main import main
from floord.engine.roulette.layout import SINGLE_ZERO_ORDER

pytestmark = pytest.mark.system


def _status(capsys, config: Path, *extra: str) -> tuple[int, str]:
    code = main(["status", "-c", str(config), *extra])
    return code, capsys.readouterr().out


def _until(
    capsys, config: Path, ok: Callable[[dict[str, Any]], bool], what: str, timeout: float = 30
) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    body: dict[str, Any] = {}
    while time.monotonic() < deadline:
        code, out = _status(capsys, config, "--json", "--broker-timeout", "5")
        assert code == 0, out
        body = json.loads(out)
        if ok(body):
            return body
        time.sleep(0.3)
    raise AssertionError(f"timed out waiting for {what}; last status: {body}")


def test_status_sees_tables_devices_halts_and_backlog(broker, tmp_path: Path, capsys) -> None:
    sim, pty = start_sim(tmp_path, {"pockets": 37, "steps": [{"idle": 60000}]}, 20.0)
    config = write_config(tmp_path, broker.url, pty)
    daemon = start_daemon(config)
    try:

        def up(body: dict[str, Any]) -> bool:
            [table] = body["tables"]
            [wheel] = table["devices"]
            return (
                table["online"] is True
                and wheel["online"] is True
                and wheel["last_type"] is not None
                and table["backlog"] == 0
            )

        body = _until(capsys, config, up, "the table online with its wheel heard")
        assert body["journal"]["error"] is None and body["broker"]["error"] is None
        [table] = body["tables"]
        assert table["id"] == "RL-01" and table["game"] == "roulette"
        assert table["state"] == "closed" and table["state_from"] == "broker"
        assert table["devices"][0]["id"] == "wheel"
        assert table["devices"][0]["last_ts"].endswith("Z")

        sim.kill()  # the wheel goes away: a required device offline halts the table

        def halted(body: dict[str, Any]) -> bool:
            [table] = body["tables"]
            reasons = [(r["code"], r["device"]) for r in table["halt_reasons"]]
            return (
                table["state"] == "halted"
                and ("device_offline", "wheel") in reasons
                and table["devices"][0]["last_type"] == "device.offline"
                and table["backlog"] == 0
            )

        _until(capsys, config, halted, "the halt for the wheel going offline")
        code, text = _status(capsys, config)
        assert code == 0
        assert "table RL-01 (roulette): halted (from the broker)" in text
        assert "  halt: device_offline [wheel]: " in text
        assert "  backlog: 0 event(s) not yet acknowledged by the broker" in text
        assert "  device wheel: last device.offline at " in text

        broker.kill()
        code, text = _status(capsys, config, "--broker-timeout", "1")
        assert code == 0, text
        assert "broker: NOT READ: " in text and "(journal's view only)" in text
        assert "table RL-01 (roulette): halted (from the journal)" in text
        assert "  halt: device_offline [wheel]: " in text
        assert "  device wheel: last device.offline at " in text
        code, out = _status(capsys, config, "--json", "--broker-timeout", "1")
        body = json.loads(out)
        assert code == 0 and body["broker"]["error"] and body["journal"]["error"] is None
        assert body["tables"][0]["state_from"] == "journal"
        assert body["tables"][0]["backlog"] is not None
    finally:
        daemon.terminate()
        sim.kill()


def test_status_with_neither_journal_nor_broker_exits_2(broker, tmp_path: Path, capsys) -> None:
    config = write_config(tmp_path, broker.url, "/dev/floord/none")
    raw = yaml.safe_load(config.read_text())
    raw["journal"] = str(tmp_path / "never-written.db")
    config.write_text(yaml.safe_dump(raw))
    broker.kill()
    code, text = _status(capsys, config, "--broker-timeout", "0.5")
    assert code == 2
    assert "journal: NOT READ: " in text and "no such file" in text
    assert "broker: NOT READ: " in text
    assert not (tmp_path / "never-written.db").exists(), "status must not create a journal"


SUP = "SUP-3001"
SUP_KEY = b"supervisor-3001-secret"


def _raise_alerts(config: Path) -> list[str]:
    """Play a wheel stuck on 17 every fourth spin through the daemon's own runner (its
    engine, its live surveillance, its journal) until the watch raises an alert; the
    table's snapshot then holds them open. Returns the alerts' ids (pocket and sector:
    this bias shows in both on the same result)."""
    wheel = LiveWheel(config)
    try:
        wheel.open()
        watcher = wheel.runner.surveillance
        assert watcher is not None
        rng = random.Random(5)
        while not watcher.alerts and wheel.spins < 400:
            wheel.spin("17" if wheel.spins % 4 == 3 else rng.choice(SINGLE_ZERO_ORDER))
        return [str(a["id"]) for a in watcher.alerts]
    finally:
        wheel.stop()


def test_status_lists_open_alerts_until_acknowledged(broker, tmp_path: Path, capsys) -> None:
    """Open alerts from the journal (no daemon yet: the snapshot keeps them), from the
    broker's retained `P/state` once the daemon runs, and none once acknowledged."""
    sim, pty = start_sim(tmp_path, {"pockets": 37, "steps": [{"idle": 60000}]}, 20.0)
    config = write_config(tmp_path, broker.url, pty)
    raw = yaml.safe_load(config.read_text())
    (tmp_path / "sup.key").write_bytes(SUP_KEY + b"\n")
    raw["operators"].append({"id": SUP, "role": "supervisor", "key_file": "sup.key"})
    raw["surveillance"] = {"window": 185, "level": 0.001, "roulette_sectors": 8}
    config.write_text(yaml.safe_dump(raw))
    ids = _raise_alerts(config)
    capsys.readouterr()  # the in-process daemon's log lines
    assert ids == ["A00001", "A00002"]

    code, out = _status(capsys, config, "--json", "--broker-timeout", "2")
    [table] = json.loads(out)["tables"]
    assert code == 0 and table["alerts_from"] == "journal"  # no daemon: no P/state yet
    assert [a["test"] for a in table["alerts"]] == ["pocket", "sector"]
    assert [a["id"] for a in table["alerts"]] == ids
    code, text = _status(capsys, config, "--broker-timeout", "2")
    for alert in table["alerts"]:
        assert alert["p_value"] < 0.001 and alert["window"] == 185
        line = next(x for x in text.splitlines() if x.startswith(f"  alert {alert['id']} OPEN"))
        assert line.startswith(f"  alert {alert['id']} OPEN: {alert['test']} test, p ")
        assert f"p {alert['p_value']:.3g} below 0.001 over the last 185 results" in line
        assert f"{alert['over_represented'][0]['label']} (" in line
        assert line.endswith(f"; close with ack_alert alert={alert['id']}")

    daemon = start_daemon(config)
    try:

        def from_broker(body: dict[str, Any]) -> bool:
            [table] = body["tables"]
            return table["online"] is True and table["alerts_from"] == "broker"

        body = _until(capsys, config, from_broker, "the daemon's P/state with its alerts")
        assert [a["id"] for a in body["tables"][0]["alerts"]] == ids, "restored on start"
        for closing, left in ((ids[0], ids[1:]), (ids[1], [])):
            acked = asyncio.run(command(broker.url, "ack_alert",
                                        {"alert": closing, "note": "wheel checked"},
                                        by=SUP, key=SUP_KEY))  # fmt: skip
            assert acked["ok"], acked

            def open_now(body: dict[str, Any], left: list[str] = left) -> bool:
                [table] = body["tables"]
                return (
                    table["alerts_from"] == "broker" and [a["id"] for a in table["alerts"]] == left
                )

            _until(capsys, config, open_now, f"{left} open after acknowledging {closing}")
            code, text = _status(capsys, config)
            assert (f"  alert {ids[1]} OPEN: " in text) is bool(left)
            assert f"  alert {ids[0]} OPEN: " not in text
        code, text = _status(capsys, config)
        assert "  alerts: none open (from the broker)" in text and "OPEN" not in text
    finally:
        daemon.terminate()
        sim.kill()
    broker.kill()
    code, text = _status(capsys, config, "--broker-timeout", "1")
    assert code == 0 and "  alerts: none open (from the journal)" in text
