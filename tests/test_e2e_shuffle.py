"""End to end: a shuffle-quality alert from a card-recognition shoe, through the daemon
process and a real Mosquitto. The rig's simulated USB shoe (`usb://sim:`) is loaded with
a stack and deals 40 cards, then loaded again and deals the same 40 cards in the same
order (a false shuffle); `surveillance.alert` `shuffle_slug` arrives over MQTT within
the first cards of the second shoe, is acknowledged with a signed `ack_alert`, and
`floord report shuffle` over the journal lists the very alert the table raised."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path

import pytest
import yaml
from e2e_support import collecting, command, start_daemon, write_tables_config

from bench.shuffle_models import new_decks
from floord.cli.main import main

pytestmark = pytest.mark.system

TABLE = "BA-01"
SEC, SEC_KEY = "SEC-5001", b"security-5001-secret"


def write_config(tmp: Path, broker_url: str, scenario: Path) -> Path:
    device = {"id": "shoe", "profile": "ref-usb-shoe", "port": f"usb://sim:{scenario.resolve()}"}
    table = {"id": TABLE, "game": "baccarat", "rules": {"decks": 8}, "devices": [device]}
    path = write_tables_config(tmp, broker_url, [table], rig=True)
    config = yaml.safe_load(path.read_text())
    (tmp / "sec.key").write_bytes(SEC_KEY + b"\n")
    config["operators"].append({"id": SEC, "role": "security", "key_file": "sec.key"})
    path.write_text(yaml.safe_dump(config))
    return path


def test_a_false_shuffle_alerts_over_mqtt_and_the_report_replays_it(
    broker, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stack = new_decks(8)
    random.Random(5).shuffle(stack)
    dealt = stack[:40]
    steps = [
        {"wait": 3.0},
        {"type": "NEW"},
        {"draw": dealt},
        {"wait": 1.0},
        {"type": "NEW"},
        {"draw": dealt},
        {"wait": 600.0},
    ]
    scenario = tmp_path / "usb-shoe.yaml"
    scenario.write_text(
        yaml.safe_dump(
            {
                "profile": "ref-usb-shoe",
                "serial_number": "RIG-1",
                "interval_s": 0.02,
                "steps": steps,
            }
        )
    )
    config = write_config(tmp_path, broker.url, scenario)
    daemon = start_daemon(config)

    async def run() -> dict:
        async with collecting(broker.url, TABLE) as c:
            alert = await c.event("surveillance.alert", timeout=30.0)
            data = alert["data"]
            assert alert["rule"] is None and data["test"] == "shuffle_slug"
            assert data["shoe"] == 2 and data["compared"] == [1] and data["run"]["at"] == 1
            assert data["run"]["cards"] == dealt[: data["statistic"]]
            reply = await command(
                broker.url,
                "ack_alert",
                {"alert": data["id"], "note": "video"},
                by=SEC,
                key=SEC_KEY,
                table=TABLE,
            )
            assert reply["ok"], reply
            acked = await c.event("surveillance.alert_acknowledged")
            assert acked["data"]["id"] == data["id"]
            return alert

    try:
        alert = asyncio.run(run())
    finally:
        assert daemon.terminate() == 0
    assert main(["report", "shuffle", "-c", str(config), "--json"]) == 0
    [replayed] = json.loads(capsys.readouterr().out)[TABLE]["alerts"]
    assert {k: v for k, v in replayed.items() if k not in ("seq", "ts")} == {
        k: v for k, v in alert["data"].items() if k not in ("id", "policy")
    }
    assert replayed["seq"] < alert["seq"]
