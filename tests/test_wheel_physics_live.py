"""Pace and spin physics alerts, live through the daemon's own runner and replayed by
`floord report wheel`: the report gives exactly the alerts the table raised, across a
restart of the daemon (the watch is warmed up again from the journal).

The wheel's clock is virtual (each event's time is the spin's, not the machine's), so
the pace is the script's. The script plays a fair wheel, then a fast dealer, a rotor
that does not change direction, a ball spun far too hard, a rotor far off its speed and
a wheel that drops the ball in one zone; each must alert, and the fair stretches not.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml
from e2e_support import DEALER, write_config
from live_wheel_support import LiveWheel
from table_turns import take
from test_journal_disk_full import table_events

from floord.adapters.local import Received
from floord.cli.main import main
from floord.cli.report import table_report
from floord.config.load import ConfigError, load_config
from floord.contract import EventType
from floord.engine.roulette.layout import SINGLE_ZERO_ORDER
from floord.events import DeviceEvent
from floord.instants import utc_instant

pytestmark = pytest.mark.unit

PACE = {"low": 45, "high": 110, "window": 10, "break_s": 300}
SPIN = {
    "rotor_run": 2,
    "envelope_spins": 30,
    "envelope_k": 6,
    "drop_zone_window": 80,
    "drop_zone_bins": 8,
}
ORDER = SINGLE_ZERO_ORDER
# The live alert's own fields; the report adds where the result is (`seq`, `ts`).
COMPARED = ("test", "statistic", "window", "summary", "wheel", "at", "dealer", "p_value")


class ClockedWheel(LiveWheel):
    """`LiveWheel` whose device events carry the script's time."""

    def __init__(self, config: Path, now: datetime) -> None:
        super().__init__(config)
        self.now = now

    def device(self, etype: str, data: dict[str, Any], after: float = 0.5) -> None:
        self.now += timedelta(seconds=after)
        take(self.runner, Received("wheel", DeviceEvent(EventType(etype), data), self.now, 0))

    def play(self, spin: int, s: dict[str, Any]) -> None:
        self.now += timedelta(seconds=max(0.0, s["interval"] - 2.5 - s["lap_s"] * s["revolutions"]))
        rotor = s["rotor"]
        ball = "ccw" if rotor == "cw" else "cw"
        self.device(
            EventType.WHEEL_GAME_STARTED,
            {"spin": spin, "state": 1, "rotor_direction": rotor, "rotor_rpm": s["rpm"]},
        )
        self.device(
            EventType.WHEEL_BALL_LAUNCHED,
            {
                "spin": spin,
                "rotor_direction": rotor,
                "rotor_rpm": s["rpm"],
                "ball_direction": ball,
                "release_pocket": s["release"],
            },
        )
        for n in range(1, s["revolutions"] + 1):
            laps = {"spin": spin, "count": n}
            self.device(EventType.WHEEL_BALL_REVOLUTIONS, laps, after=s["lap_s"])
        self.device(EventType.WHEEL_NO_MORE_BETS, {"spin": spin})
        self.device(
            EventType.WHEEL_NUMBER, {"spin": spin, "number": s["number"], "origin": "sensor"}
        )


def _spins(rng: random.Random) -> list[tuple[str, dict[str, Any]]]:
    phases = [
        ("fair", 60),
        ("fast", 20),
        ("fair", 30),
        ("one way", 3),
        ("fair", 20),
        ("hard ball", 1),
        ("fair", 20),
        ("slow rotor", 1),
        ("fair", 10),
        ("fast ball", 1),
        ("fair", 5),
        ("drop zone", 90),
    ]
    spins, n = [], 0
    for phase, count in phases:
        for _ in range(count):
            n += 1
            release = rng.randrange(37)
            distance = rng.randrange(10, 14) if phase == "drop zone" else rng.randrange(37)
            s = {
                "interval": (20.0 if phase == "fast" else 47.0) * rng.lognormvariate(0, 0.2),
                "rotor": "cw" if n % 2 or phase == "one way" else "ccw",
                "rpm": 9.0 if phase == "slow rotor" else round(rng.gauss(17.2, 0.4), 1),
                "revolutions": 30 if phase == "hard ball" else max(4, round(rng.gauss(12, 1))),
                "lap_s": 0.4 if phase == "fast ball" else rng.gauss(0.8, 0.03),
                "release": ORDER[release],
                "number": ORDER[(release + distance) % 37],
            }
            spins.append((phase, s))
    return spins


def _live(journal: Path) -> list[dict[str, Any]]:
    alerts, result_seq = [], None
    for event in table_events(journal, "RL-01"):
        if event["type"] == EventType.ROULETTE_RESULT:
            result_seq = event["seq"]
        elif event["type"] == EventType.SURVEILLANCE_ALERT:
            alerts.append({"seq": result_seq, **{k: event["data"].get(k) for k in COMPARED}})
    return alerts


def test_pace_and_spin_physics_alerts_fire_live_and_the_report_replays_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path, "mqtt://127.0.0.1:1", "/dev/null")
    raw = yaml.safe_load(config.read_text())
    raw["surveillance"] = {"window": 1000, "dealer_bins": 0}  # the chi-square tests stay quiet
    raw["tables"][0] |= {"pace": PACE, "spin_physics": SPIN}
    config.write_text(yaml.safe_dump(raw))
    spins = _spins(random.Random(40))
    now = utc_instant() + timedelta(seconds=5)
    played = 0
    for half in (spins[:130], spins[130:]):  # the daemon restarts between the halves
        wheel = ClockedWheel(config, now)
        try:
            wheel.open()
            wheel.dealer_in()
            for _, s in half:
                played += 1
                wheel.play(played, s)
            now = wheel.now + timedelta(seconds=60)
        finally:
            wheel.stop()
    capsys.readouterr()

    live = _live(tmp_path / "journal.db")
    # One alert per crafted stretch, in order, and none in the fair ones: the fast
    # dealer's pace (the table's and the dealer's), the rotor turning cw twice, the hard
    # ball, the slow rotor, the fast ball, then the drop zone.
    assert [(a["test"], a["dealer"]) for a in live] == [
        ("pace", None),
        ("pace", DEALER),
        ("rotor_direction", None),
        ("ball_revolutions", None),
        ("rotor_speed", None),
        ("ball_speed", None),
        ("drop_zone", None),
    ]
    report = table_report(config, "RL-01", None)
    replayed = [
        {"seq": a["seq"], **{k: a.get(k) for k in COMPARED}} for a in report["physics_alerts"]
    ]
    assert replayed == live

    assert main(["report", "wheel", "-c", str(config), "--table", "RL-01"]) == 0
    out = capsys.readouterr().out
    assert f"pace and spin physics: {len(live)} alert(s)" in out
    assert "pace: low 45.0, high 110.0, window 10, break_s 300.0" in out
    assert "rotor_direction: the rotor turned cw in 2 consecutive games" in out


def test_a_bad_band_or_run_is_refused_naming_the_file_and_the_key(tmp_path: Path) -> None:
    config = write_config(tmp_path, "mqtt://127.0.0.1:1", "/dev/null")
    raw = yaml.safe_load(config.read_text())
    raw["tables"][0] |= {"pace": {"low": 100, "high": 50}, "spin_physics": {"rotor_run": 1}}
    config.write_text(yaml.safe_dump(raw))
    with pytest.raises(ConfigError) as refused:
        load_config(config)
    text = str(refused.value)
    assert f"{config}: tables.0.pace: low (100) must be below high (50)" in text
    assert f"{config}: tables.0.spin_physics: rotor_run: 0 (off) or 2 or more" in text
