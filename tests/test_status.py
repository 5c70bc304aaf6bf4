"""`floord status` beside a running daemon: a real daemon process, a simulated wheel on a
pty, a real Mosquitto. Status reads the journal read-only while the daemon writes it,
and the broker's retained state; it still answers, from the journal, when the broker is
gone, and says it could read nothing (exit 2) when neither is there.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from e2e_support import start_daemon, start_sim, write_config

from floord.cli.main import main


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
