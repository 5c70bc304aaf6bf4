"""Live dice surveillance on a Craps table (statistics, not regulations):
the daemon's own runner decides each roll and raises `surveillance.alert` for a loaded
die, kept until acknowledged, restored after a restart; `floord check` refuses windows
too small for the cells; `floord report dice` replays exactly the live alerts."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import pytest
import yaml
from table_turns import finish, restore, take
from test_journal_disk_full import table_events

from floord.adapters.local import Received
from floord.cli.dice_report import table_dice_report
from floord.cli.main import main
from floord.config.load import ConfigError, load_config
from floord.contract import EventType
from floord.events import DeviceEvent
from floord.instants import utc_instant
from floord.journal.readers import saved_watch
from floord.journal.watch_states import SavedWatch
from floord.operator.commands import build_command
from floord.processes.daemon import Daemon
from floord.table.dice_surveillance import DiceSurveillance

pytestmark = pytest.mark.unit

TABLE = "CR-01"
FP, FP_KEY = "FP-1001", b"floorperson-1001-secret"
STICK, STICK_KEY = "ST-4001", b"stickperson-4001-secret"
SEC, SEC_KEY = "SEC-5001", b"security-5001-secret"
KEYS = {FP: (FP_KEY, "floorperson"), STICK: (STICK_KEY, "stickperson"),
        SEC: (SEC_KEY, "security")}  # fmt: skip
INSPECTION = {"layout_approved": True, "no_call_bets_shown": True, "drop_box_and_tip_box": True}
CAPS = ["die_ids", "rest", "cocked", "far_end", "together"]
SET = ["D1", "D2", "D3", "D4", "D5"]
SURVEILLANCE = {"window": 180, "level": 0.001, "shooter_window": 60, "shooter_bins": 5}
# The live alert's own fields; the report adds where the roll is (`seq`, `ts`).
COMPARED = ("test", "statistic", "dof", "p_value", "level", "window", "over_represented",
            "dice_set", "die", "shooter", "rolls")  # fmt: skip


def write_config(tmp: Path, surveillance: dict[str, Any] | None = None) -> Path:
    operators = []
    for who, (key, role) in KEYS.items():
        (tmp / f"{who}.key").write_bytes(key + b"\n")
        operators.append({"id": who, "role": role, "key_file": f"{who}.key"})
    tracker = {"id": "dice", "profile": "ref-dice-tracker", "port": "/dev/null"}
    table = {"id": TABLE, "game": "craps", "devices": [tracker]}
    config = {"site": "s", "broker": {"url": "mqtt://127.0.0.1:1"},
              "journal": str(tmp / "journal.db"), "operators": operators,
              "surveillance": surveillance or SURVEILLANCE, "tables": [table]}  # fmt: skip
    path = tmp / "floord.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


class LiveCraps:
    """A Craps table driven through the daemon's own runner, in this process."""

    def __init__(self, config: Path) -> None:
        self.daemon = Daemon(load_config(config))
        restore(self.daemon)
        self.runner = self.daemon.tables[TABLE].runner
        self.throws = 0

    def device(self, etype: str, **data: Any) -> None:
        take(self.runner, Received("dice", DeviceEvent(EventType(etype), data), utc_instant(), 0))

    def command(self, who: str, name: str, **args: Any) -> None:
        body = build_command(name, who, args, KEYS[who][0], utc_instant())
        asyncio.run(self.runner.on_command(json.dumps(body).encode()))

    def open(self) -> None:
        self.device(EventType.DEVICE_ONLINE, port="/dev/pts/9")
        self.device(EventType.DEVICE_IDENTIFIED, maker="m", model="ref-dice-tracker",
                    serial="1", firmware="1", capabilities=CAPS)  # fmt: skip
        self.device(EventType.DICE_SET, dice=SET)
        self.command(FP, "inspect", checklist=INSPECTION)
        self.command(FP, "open")

    def throw(self, d2: int, d4: int, seat: int) -> None:
        """One throw of D2 and D4; a new shooter at `seat` when the dice were passed."""
        if getattr(self.runner.engine, "shooter", None) is None:
            self.command(STICK, "shooter", seat=seat)
            self.device(EventType.DICE_SELECTED, dice=["D2", "D4"])
        self.throws += 1
        dice = [{"id": i, "face": f, "rest": "table", "lie": "flat", "far_end": True}
                for i, f in (("D2", d2), ("D4", d4))]  # fmt: skip
        self.device(EventType.DICE_THROW, throw=self.throws, together=True, dice=dice)

    def stop(self) -> None:
        try:
            finish(self.runner, utc_instant())
        finally:
            self.daemon.journal.close()


def _play(table: LiveCraps, rng: random.Random, rolls: int, loaded: bool) -> None:
    for n in range(rolls):
        d2 = 6 if loaded and rng.random() < 0.6 else rng.randint(1, 6)
        table.throw(d2, rng.randint(1, 6), seat=n % 4 + 1)


def _live_alerts(journal: Path) -> list[dict[str, Any]]:
    alerts, roll_seq = [], None
    for event in table_events(journal, TABLE):
        if event["type"] == EventType.CRAPS_ROLL:
            roll_seq = event["seq"]
        elif event["type"] == EventType.SURVEILLANCE_ALERT:
            assert event["rule"] is None and "not a regulation" in event["data"]["policy"]
            alerts.append({"seq": roll_seq, **{k: event["data"].get(k) for k in COMPARED}})
    return alerts


def test_a_loaded_die_alerts_live_kept_until_acknowledged_and_after_a_restart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path)
    rng = random.Random(16)
    table = LiveCraps(config)
    try:
        table.open()
        assert isinstance(table.runner.surveillance, DiceSurveillance)
        _play(table, rng, 150, loaded=False)
        assert table.runner.state()["alerts"] == [], "fair dice, no window full yet"
        _play(table, rng, 250, loaded=True)
        open_alerts = table.runner.state()["alerts"]
        faces = [a for a in open_alerts if a["test"] == "dice_faces"]
        assert [a["die"] for a in faces] == ["D2"], open_alerts
        assert faces[0]["dice_set"] == "D1,D2,D3,D4,D5"
        assert faces[0]["over_represented"][0]["label"] == "6"
        table.command(SEC, "ack_alert", alert=faces[0]["id"], note="dice taken for inspection")
        assert all(a["id"] != faces[0]["id"] for a in table.runner.state()["alerts"])
        still_open = table.runner.state()["alerts"]
    finally:
        table.stop()

    # After a restart: the open alerts are back, the windows refilled from the journal's
    # rolls, so the loaded die (still below the level) raises no second alert.
    again = LiveCraps(config)
    try:
        assert again.runner.state()["alerts"] == still_open
        watcher = again.runner.surveillance
        assert isinstance(watcher, DiceSurveillance) and watcher.dice.rolls == 400
        assert sum(watcher.dice.faces["D2"].counts) == 180
        _play(again, rng, 40, loaded=True)
        assert [a for a in again.runner.state()["alerts"] if a.get("die") == "D2"] == []
        at_stop = watcher.watch_state()
    finally:
        again.stop()

    # That start replayed the rolls and kept the tests (`floord.table.watch_state`): the
    # next takes them up and replays only the 40 rolls after, to the same tests exactly.
    kept = saved_watch(tmp_path / "journal.db", TABLE)
    assert isinstance(kept, SavedWatch) and kept.state["dice"]["rolls"] == 400
    third = LiveCraps(config)
    try:
        watcher = third.runner.surveillance
        assert isinstance(watcher, DiceSurveillance)
        assert watcher.watch_state() == at_stop and watcher.dice.rolls == 440
        assert not watcher.dice.faces["D2"].armed  # still below the level: no new alert
    finally:
        third.stop()

    live = _live_alerts(tmp_path / "journal.db")
    report = table_dice_report(config, TABLE, None)
    replayed = [{"seq": a["seq"], **{k: a.get(k) for k in COMPARED}} for a in report["alerts"]]
    assert replayed == live and live
    assert report["settings"]["window"] == {"value": 180, "from": "surveillance.window"}
    assert report["settings"]["shooter_bins"] == {"value": 5, "from": "surveillance.shooter_bins"}

    assert main(["report", "dice", "-c", str(config), "--table", TABLE]) == 0
    out = capsys.readouterr().out
    assert ("settings: window 180 (from surveillance.window), level 0.001 (from "
            "surveillance.level), shooter_window 60 (from surveillance.shooter_window), "
            "shooter_bins 5 (from surveillance.shooter_bins)") in out  # fmt: skip
    assert f"shooter bins 5): {len(live)} alert(s)" in out
    assert "dice_faces test of die D2 over all" in out and "BELOW LEVEL" in out
    assert main(["report", "dice", "-c", str(config), "--table", TABLE, "--window", "400"]) == 0
    assert "window 400 (from --window)" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("settings", "needed"),
    [
        ({"window": 150}, "window 150 is too small for the dice_totals test"),
        ({"window": 1000, "shooter_window": 50, "shooter_bins": 5},
         "window 50 is too small for the shooter_signature test"),
    ],
)  # fmt: skip
def test_check_refuses_windows_too_small_for_the_dice_tests(
    tmp_path: Path, settings: dict[str, Any], needed: str
) -> None:
    path = write_config(tmp_path, settings)
    with pytest.raises(ConfigError) as refused:
        load_config(path)
    assert len(refused.value.problems) == 1
    assert refused.value.problems[0].startswith(
        f"{path}: surveillance: settings that fit table 'CR-01' (craps) expected: {needed}"
    )
    # Off, nothing is built, nothing refused.
    path = write_config(tmp_path, {**settings, "enabled": False})
    assert load_config(path).config.surveillance.enabled is False


def test_a_table_without_dice_has_no_dice_report(tmp_path: Path) -> None:
    config = write_config(tmp_path, {**SURVEILLANCE, "window": 370})
    raw = yaml.safe_load(config.read_text())
    raw["tables"].append({"id": "RL", "game": "roulette", "rules": {"wheel": "single_zero"},
                          "devices": [{"id": "w", "profile": "cammegh-ss2",
                                       "port": "/dev/ttyUSB1"}]})  # fmt: skip
    config.write_text(yaml.safe_dump(raw))
    with pytest.raises(ValueError, match="it has no dice to report on"):
        table_dice_report(config, "RL", None)
