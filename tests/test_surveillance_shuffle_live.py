"""Live shuffle-quality surveillance on a Baccarat table dealt from a card-recognition
shoe (statistics, not regulations): the daemon's own runner hands the watcher each shoe
event; a false shuffle raises `surveillance.alert` `shuffle_slug` within the first cards
and `shuffle_correlation` when the shoe ends; an alert stays until acknowledged and
after a restart, the shoes refilled from the journal; `floord report shuffle` replays
exactly the live alerts; a shoe that only counts runs no tests."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import pytest
import structlog
import yaml
from table_turns import finish, restore, take
from test_journal_disk_full import table_events

from bench.shuffle_models import fair, new_decks
from floord.adapters.local import Received
from floord.cli.main import main
from floord.cli.shuffle_report import table_shuffle_reports
from floord.cli.status import describe_alert
from floord.config.load import ConfigError, load_config
from floord.contract import EventType
from floord.events import DeviceEvent
from floord.instants import utc_instant
from floord.journal.readers import saved_watch
from floord.journal.watch_states import SavedWatch
from floord.operator.commands import build_command
from floord.processes.daemon import Daemon
from floord.table.shuffle_surveillance import ShuffleSurveillance

pytestmark = pytest.mark.unit

TABLE = "BA-01"
SEC, SEC_KEY = "SEC-5001", b"security-5001-secret"
DEALT = 120
# The live alert's own fields; the report adds where the event is (`seq`, `ts`).
COMPARED = (
    "test",
    "statistic",
    "p_value",
    "level",
    "shoe",
    "side",
    "cards",
    "compared",
    "run",
    "pairs",
    "against",
    "suits",
    "ranks",
    "expected_runs",
)


def write_config(
    tmp: Path, profile: str = "ref-shoe-recognition", shuffle: dict[str, Any] | None = None
) -> Path:
    (tmp / "sec.key").write_bytes(SEC_KEY + b"\n")
    shoe = {"id": "shoe", "profile": profile, "port": "/dev/null"}
    table: dict[str, Any] = {
        "id": TABLE,
        "game": "baccarat",
        "rules": {"decks": 8},
        "devices": [shoe],
    }
    if shuffle is not None:
        table["shuffle_quality"] = shuffle
    config = {
        "site": "s",
        "broker": {"url": "mqtt://127.0.0.1:1"},
        "journal": str(tmp / "journal.db"),
        "operators": [{"id": SEC, "role": "security", "key_file": "sec.key"}],
        "tables": [table],
    }
    path = tmp / "floord.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


class LiveBaccarat:
    """A Baccarat table's shoe driven through the daemon's own runner, in this process."""

    def __init__(self, config: Path) -> None:
        self.daemon = Daemon(load_config(config))
        restore(self.daemon)
        self.runner = self.daemon.tables[TABLE].runner

    def shoe(self, etype: str, **data: Any) -> None:
        take(self.runner, Received("shoe", DeviceEvent(EventType(etype), data), utc_instant(), 0))

    def deal(self, stack: list[str], cards: int) -> None:
        for n, card in enumerate(stack[:cards], 1):
            self.shoe(EventType.SHOE_CARD_DRAWN, count=n, card=card, side=None)

    def load(self, stack: list[str]) -> None:
        self.shoe(EventType.SHOE_LOADED, side=None, cards=len(stack))

    def ack(self, alert: str) -> None:
        body = build_command(
            "ack_alert", SEC, {"alert": alert, "note": "reviewed on video"}, SEC_KEY, utc_instant()
        )
        asyncio.run(self.runner.on_command(json.dumps(body).encode()))

    def stop(self) -> None:
        try:
            finish(self.runner, utc_instant())
        finally:
            self.daemon.journal.close()


def _live_alerts(journal: Path) -> list[dict[str, Any]]:
    """The alerts on the record, each with the seq of the shoe event that raised it."""
    alerts, shoe_seq = [], None
    for event in table_events(journal, TABLE):
        if event["type"].startswith("shoe."):
            shoe_seq = event["seq"]
        elif event["type"] == EventType.SURVEILLANCE_ALERT:
            assert event["rule"] is None and "not a regulation" in event["data"]["policy"]
            alerts.append({"seq": shoe_seq, **{k: event["data"].get(k) for k in COMPARED}})
    return alerts


def test_a_false_shuffle_alerts_live_kept_until_acknowledged_and_after_a_restart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path)
    rng = random.Random(40)
    stack = new_decks(8)
    table = LiveBaccarat(config)
    try:
        assert isinstance(table.runner.surveillance, ShuffleSurveillance)
        for _ in range(3):
            stack = fair(stack, rng)
            table.load(stack)
            table.deal(stack, DEALT)
        assert table.runner.state()["alerts"] == [], "fair shoes"
        stack = stack[15:] + stack[:15]  # a false shuffle: the order kept, cut 15 cards in
        table.load(stack)
        table.deal(stack, 40)
        [slug] = table.runner.state()["alerts"]
        assert slug["test"] == "shuffle_slug" and slug["shoe"] == 4
        assert slug["compared"] == [1, 2, 3]
        assert slug["run"]["shoe"] == 3 and slug["run"]["at_earlier"] == 16
        assert slug["cards"] == slug["statistic"] <= 10
        table.ack(slug["id"])
        assert table.runner.state()["alerts"] == []
    finally:
        table.stop()

    # After a restart the shoes are back from the journal: the shoe being dealt raises
    # no second slug alert, and its end compares it with shoe 3.
    again = LiveBaccarat(config)
    try:
        watcher = again.runner.surveillance
        assert isinstance(watcher, ShuffleSurveillance)
        assert watcher.watch.shoes == 4 and len(watcher.watch.open[None].cards) == 40
        again.deal(stack[40:], DEALT - 40)
        assert again.runner.state()["alerts"] == []
        stack = fair(stack, rng)
        again.load(stack)
        [correlation] = again.runner.state()["alerts"]
        assert correlation["test"] == "shuffle_correlation"
        assert correlation["shoe"] == 4 and correlation["compared"] == [3]
        assert correlation["against"] == "previous_shoe"
        assert describe_alert(correlation) == (
            f"alert {correlation['id']} OPEN: shuffle correlation in shoe 4 after 120 cards: "
            f"105 neighbours as in the previous shoe vs 7.09 expected; p = 1.26e-111 below "
            f"0.001; close with ack_alert alert={correlation['id']}"
        )
        again.deal(stack, 10)
        at_stop = watcher.watch_state()
    finally:
        again.stop()

    # That start replayed the shoe events and kept the shoes (`floord.table.watch_state`):
    # the next takes them up, shoe 5 being dealt included, and replays only what followed.
    kept = saved_watch(tmp_path / "journal.db", TABLE)
    assert isinstance(kept, SavedWatch) and kept.state["shuffle"]["shoes"] == 4
    with structlog.testing.capture_logs() as logs:
        third = LiveBaccarat(config)
    [line] = [e for e in logs if e["event"] == "live tests replayed"]
    assert (line["what"], line["taken_up"], line["after_seq"]) == (
        "shoe events",
        True,
        kept.after_seq,
    )
    assert line["count"] > 0
    try:
        watcher = third.runner.surveillance
        assert isinstance(watcher, ShuffleSurveillance)
        assert watcher.watch_state() == at_stop
        assert watcher.watch.shoes == 5 and len(watcher.watch.open[None].cards) == 10
        assert [d.number for d in watcher.watch.open[None].earlier.shoes] == [1, 2, 3, 4]
    finally:
        third.stop()

    live = _live_alerts(tmp_path / "journal.db")
    [report] = table_shuffle_reports(config, TABLE, None).values()
    replayed = [{"seq": a["seq"], **{k: a.get(k) for k in COMPARED}} for a in report["alerts"]]
    assert replayed == live and len(live) == 2
    assert [s["shoe"] for s in report["ended"]] == [1, 2, 3, 4]
    assert report["open"] == [{"shoe": 5, "side": None, "cards": 10}]
    assert report["settings"]["level_slug"] == {"value": 0.001, "from": "default"}

    assert main(["report", "shuffle", "-c", str(config), "--table", TABLE]) == 0
    out = capsys.readouterr().out
    assert "table BA-01: 5 shoe(s), 490 card(s) read by shoe" in out
    assert "shoe 4, 120 cards: longest run" in out and "alerts: 2" in out
    assert main(["report", "shuffle", "-c", str(config), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[TABLE]["alerts"][0]["test"] == "shuffle_slug"


def test_new_decks_dealt_in_box_order_alert_clumping_live(tmp_path: Path) -> None:
    # Decks straight from the box, barely touched: suits and ranks sit together, so the
    # shoe's end raises the clumping test beside the correlation with the box order.
    table = LiveBaccarat(write_config(tmp_path))
    try:
        stack = new_decks(8)
        table.load(stack)
        table.deal(stack, DEALT)
        table.load(fair(stack, random.Random(7)))
        tests = {alert["test"]: alert for alert in table.runner.state()["alerts"]}
        clumping = tests["shuffle_clumping"]
        assert clumping["shoe"] == 1 and clumping["p_value"] < 0.001
        assert set(clumping["suits"]) == set(clumping["ranks"]) and clumping["suits"]
    finally:
        table.stop()


def test_a_shoe_that_only_counts_runs_no_shuffle_tests(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path, profile="ref-shoe-manual")
    table = LiveBaccarat(config)
    try:
        assert table.runner.surveillance is None
    finally:
        table.stop()
    assert main(["report", "shuffle", "-c", str(config), "--table", TABLE]) == 1
    assert "has no shoe that reads the cards" in capsys.readouterr().err


def test_shuffle_settings_off_or_out_of_range(tmp_path: Path) -> None:
    config = write_config(tmp_path, shuffle={"enabled": False})
    table = LiveBaccarat(config)
    try:
        assert table.runner.surveillance is None
    finally:
        table.stop()
    [report] = table_shuffle_reports(config, TABLE, None).values()
    assert report["live"] is False
    with pytest.raises(ConfigError) as refused:
        load_config(write_config(tmp_path, shuffle={"min_slug": 2, "level_slug": 0.7}))
    problems = "\n".join(refused.value.problems)
    assert "shuffle_quality.min_slug" in problems and "shuffle_quality.level_slug" in problems
