"""The report agrees with the floor: `floord report wheel`, run as
docs/analytics.md shows (no tuning flags), replays exactly the alerts the live table
raised over the same results, because it takes the table's `surveillance:` settings.

The live side is the daemon's own runner (`live_wheel_support.LiveWheel`): its engine
decides each result and its `TableSurveillance` raises `surveillance.alert` in the same
transaction. The wheel runs fair, then with 17 over-represented, fair again (the tests
re-arm), biased again; a signed-in dealer aims for part of it.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
import yaml
from e2e_support import write_config
from live_wheel_support import LiveWheel
from test_journal_disk_full import table_events

from floord.cli.main import main
from floord.cli.report import table_report
from floord.contract import EventType
from floord.engine.roulette.layout import SINGLE_ZERO_ORDER

pytestmark = pytest.mark.unit

SURVEILLANCE = {"window": 185, "level": 0.001, "roulette_sectors": 8,
                "dealer_window": 80, "dealer_bins": 8}  # fmt: skip
# The live alert's own fields; the report adds where the result is (`seq`, `ts`).
COMPARED = ("test", "statistic", "dof", "p_value", "level", "window", "over_represented",
            "wheel", "spins", "dealer")  # fmt: skip


def _play(config: Path) -> None:
    wheel = LiveWheel(config)
    try:
        wheel.open()
        wheel.dealer_in()
        rng = random.Random(14)
        order = SINGLE_ZERO_ORDER
        phases = [("fair", 150), ("hot 17", 120), ("fair", 260), ("aims", 140), ("hot 17", 120)]
        for phase, spins in phases:
            for _ in range(spins):
                release = rng.randrange(37)
                if phase == "hot 17" and rng.random() < 0.3:
                    number = "17"
                elif phase == "aims" and rng.random() < 0.6:
                    number = order[(release + rng.randrange(10, 14)) % 37]
                else:
                    number = order[(release + rng.randrange(37)) % 37]
                wheel.spin(number, release=order[release])
    finally:
        wheel.stop()


def _live_alerts(journal: Path) -> list[dict[str, Any]]:
    """Each live alert with the seq of the result it was raised on (recorded with it)."""
    alerts, result_seq = [], None
    for event in table_events(journal, "RL-01"):
        if event["type"] == EventType.ROULETTE_RESULT:
            result_seq = event["seq"]
        elif event["type"] == EventType.SURVEILLANCE_ALERT:
            alerts.append({"seq": result_seq, **{k: event["data"].get(k) for k in COMPARED}})
    return alerts


def _replayed(report: dict[str, Any]) -> list[dict[str, Any]]:
    found = [*report["alerts"], *report["dealer_signature"]["alerts"]]
    found.sort(key=lambda a: (a["seq"], a["test"] == "dealer_signature"))
    return [{"seq": a["seq"], **{k: a.get(k) for k in COMPARED}} for a in found]


def test_the_report_replays_exactly_the_alerts_the_live_table_raised(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path, "mqtt://127.0.0.1:1", "/dev/null")
    raw = yaml.safe_load(config.read_text())
    raw["surveillance"] = SURVEILLANCE
    config.write_text(yaml.safe_dump(raw))
    _play(config)
    capsys.readouterr()

    live = _live_alerts(tmp_path / "journal.db")
    tests = [a["test"] for a in live]
    assert tests.count("pocket") >= 2, f"two excursions of the pocket test expected: {tests}"
    assert "sector" in tests and "dealer_signature" in tests, tests
    report = table_report(config, "RL-01", None)
    assert _replayed(report) == live
    assert report["settings"] == {
        "window": {"value": 185, "from": "surveillance.window"},
        "level": {"value": 0.001, "from": "surveillance.level"},
        "sectors": {"value": 8, "from": "surveillance.roulette_sectors"},
    }

    # As docs/analytics.md runs it: the same count, and where each setting came from.
    assert main(["report", "wheel", "-c", str(config), "--table", "RL-01"]) == 0
    out = capsys.readouterr().out
    settings = ("settings: window 185 (from surveillance.window), level 0.001 (from "
                "surveillance.level), sectors 8 (from surveillance.roulette_sectors)")  # fmt: skip
    assert settings in out
    wheel_alerts = sum(1 for a in live if a["test"] != "dealer_signature")
    assert f"running watch (window 185, level 0.001, sectors 8): {wheel_alerts} alert(s)" in out
    assert out.count("  alert ") == len(live) - wheel_alerts  # the dealer's, one line each

    # The old defaults (window 1000, level 0.01) did not see what the floor saw.
    assert main(["report", "wheel", "-c", str(config), "--table", "RL-01",
                 "--window", "1000", "--level", "0.01"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "window 1000 (from --window), level 0.01 (from --level)" in out
    assert "running watch (window 1000, level 0.01, sectors 8): 0 alert(s)" in out
    assert json.dumps(report["alerts"][0]["over_represented"][0]["label"]) == '"17"'
