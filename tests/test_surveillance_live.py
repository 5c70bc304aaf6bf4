"""Live surveillance on a wheel table: alerts raised from the engine's results, kept
until acknowledged, restored after a restart."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from floord.analytics.report import WheelResult, WheelSetup
from floord.analytics.wheel_watch import roulette_order
from floord.config.load import load_config
from floord.contract import EventType
from floord.engine.core.types import Decision
from floord.processes.daemon import Daemon
from floord.table.shuffle_surveillance import ShuffleSurveillance
from floord.table.surveillance import TableSurveillance

pytestmark = pytest.mark.unit


def _setup() -> WheelSetup:
    return WheelSetup("single_zero", tuple(roulette_order("single_zero")), 370, 0.001, 8)


def _result(number: str) -> Decision:
    return Decision(EventType.ROULETTE_RESULT, {"number": number}, None, "R-1")


def test_a_wheel_stuck_on_one_pocket_raises_one_alert_kept_until_acknowledged() -> None:
    watcher = TableSurveillance(_setup())
    rng = random.Random(3)
    pockets = list(roulette_order("single_zero"))
    alerts: list[Decision] = []
    for spin in range(370):
        number = "17" if spin % 4 == 0 else rng.choice(pockets)
        alerts += watcher.on_decisions([_result(number)])
    pocket_alerts = [a for a in alerts if a.data["test"] == "pocket"]
    assert len(pocket_alerts) == 1, "once per excursion below the level"
    alert = pocket_alerts[0]
    assert alert.type == EventType.SURVEILLANCE_ALERT and alert.rule is None
    assert alert.round == "R-1" and alert.data["over_represented"][0]["label"] == "17"
    assert any(a["id"] == alert.data["id"] for a in watcher.snapshot()["alerts"])
    restored = TableSurveillance(_setup(), watcher.snapshot())
    closed = restored.acknowledge(alert.data["id"], "SUP-1", "wheel checked")
    assert closed is not None and closed.type == EventType.SURVEILLANCE_ALERT_ACKNOWLEDGED
    assert all(a["id"] != alert.data["id"] for a in restored.snapshot()["alerts"])
    assert restored.acknowledge(alert.data["id"], "SUP-1", "again") is None


def test_the_daemon_watches_the_wheel_and_the_shoe_that_reads_cards(tmp_path: Path) -> None:
    config = {
        "site": "s",
        "broker": {"url": "mqtt://127.0.0.1:1"},
        "journal": "journal.db",
        "surveillance": {"window": 500, "level": 0.001},
        "tables": [
            {"id": "RL", "game": "roulette", "rules": {"wheel": "double_zero"},
             "devices": [{"id": "wheel", "profile": "cammegh-ss2", "port": "/dev/null"}]},
            {"id": "BJ", "game": "blackjack", "rules": {"decks": 6}, "devices": [
                {"id": "reader", "profile": "ref-card-reader", "port": "/dev/null"},
                {"id": "shoe", "profile": "ref-shoe-recognition", "port": "/dev/null"}]},
        ],
    }  # fmt: skip
    path = tmp_path / "floord.yaml"
    path.write_text(yaml.safe_dump(config))
    daemon = Daemon(load_config(path))
    try:
        watcher = daemon.tables["RL"].runner.surveillance
        assert watcher is not None and watcher.setup.window == 500
        assert watcher.setup.kind == "double_zero"
        # A Blackjack table's recognition shoe runs the shuffle tests, no wheel's.
        shoe = daemon.tables["BJ"].runner.surveillance
        assert isinstance(shoe, ShuffleSurveillance) and shoe.shoes == {"shoe"}
        assert daemon.tables["RL"].runner.state()["alerts"] == []
    finally:
        daemon.journal.close()


def _signed_result(number: str, dealer: str, release: str) -> Decision:
    data = {"number": number, "dealer": dealer, "release_pocket": release}
    return Decision(EventType.ROULETTE_RESULT, data, None, "R-2")


def test_a_dealer_who_aims_is_alerted_live_and_a_fair_dealer_is_not() -> None:
    """Dealer signature, live: DL-AIM lands the ball 10 to 13 pockets clockwise of the
    release half the time; DL-FAIR's distances are uniform. Only DL-AIM is alerted."""
    setup = WheelSetup("single_zero", tuple(roulette_order("single_zero")), 370, 0.001, 0,
                       dealer_window=200, dealer_bins=8)  # fmt: skip
    watcher = TableSurveillance(setup)
    order = list(setup.order)
    rng = random.Random(11)
    alerts: list[Decision] = []
    history: list[WheelResult] = []
    for spin in range(400):
        dealer = "DL-AIM" if spin % 2 else "DL-FAIR"
        release = rng.randrange(37)
        aimed = dealer == "DL-AIM" and rng.random() < 0.5
        distance = rng.randrange(10, 14) if aimed else rng.randrange(37)
        number = order[(release + distance) % 37]
        alerts += watcher.on_decisions([_signed_result(number, dealer, order[release])])
        history.append(WheelResult(spin + 1, "t", number, None, dealer, order[release]))
    signature = [a for a in alerts if a.data["test"] == "dealer_signature"]
    assert [a.data["dealer"] for a in signature] == ["DL-AIM"]
    assert signature[0].data["over_represented"][0]["label"] == "9..12"  # arcs 0..3, 4..8, 9..12
    # A result without a release pocket (a wheel with no encoder) feeds only the wheel.
    assert watcher.on_decisions([_result("5")]) == []
    # After a restart the windows are refilled from the journal's results: the aiming
    # dealer is already below the level, so no second alert for the same excursion.
    warmed = TableSurveillance(setup, watcher.snapshot())
    warmed.warm_up(history)
    assert warmed.dealers is not None and warmed.dealers.statistics("DL-AIM")["p_value"] < 0.001


def test_the_warm_up_reads_its_results_once_and_refills_every_window_as_it_was() -> None:
    """A table's record of months is read one result at a time (a generator, read once):
    the pocket and sector tests keep the last `window` of them, the dealer test each
    dealer's last `dealer_window`, as they stood before the restart."""
    setup = WheelSetup("single_zero", tuple(roulette_order("single_zero")), 370, 0.001, 8,
                       dealer_window=200, dealer_bins=8)  # fmt: skip
    live = TableSurveillance(setup)
    order = list(setup.order)
    rng = random.Random(5)
    history: list[WheelResult] = []
    for spin in range(1500):
        dealer, release, number = f"DL-{spin // 40 % 3}", rng.choice(order), rng.choice(order)
        live.on_decisions([_signed_result(number, dealer, release)])
        history.append(WheelResult(spin + 1, "t", number, None, dealer, release))
    read = 0

    def once() -> Iterator[WheelResult]:
        nonlocal read
        for past in history:
            read += 1
            yield past

    warmed = TableSurveillance(setup, live.snapshot())
    warmed.warm_up(once())
    assert read == len(history)
    assert warmed.watch.statistics() == live.watch.statistics()
    assert warmed.watch.pocket.counts == live.watch.pocket.counts
    assert live.dealers is not None and warmed.dealers is not None
    for dealer in ("DL-0", "DL-1", "DL-2"):
        assert warmed.dealers.statistics(dealer) == live.dealers.statistics(dealer)


def test_check_refuses_surveillance_settings_a_wheel_cannot_run(tmp_path: Path) -> None:
    """A window too small for a wheel's rarest cell is a config error, not a daemon that
    fails to start: Big Six needs 270 (the joker is 1/54), single zero 185."""
    from floord.config.load import ConfigError

    device = {"id": "w", "profile": "ref-big-six", "port": "/dev/ttyUSB0"}
    wheel = {"id": "w", "profile": "cammegh-ss2", "port": "/dev/ttyUSB1"}
    config = {
        "site": "s",
        "broker": {"url": "mqtt://127.0.0.1:1"},
        "journal": "journal.db",
        "surveillance": {"window": 200},
        "tables": [
            {"id": "B6", "game": "big_six", "devices": [device]},
            {"id": "RL", "game": "roulette", "rules": {"wheel": "single_zero"}, "devices": [wheel]},
        ],
    }
    path = tmp_path / "floord.yaml"
    path.write_text(yaml.safe_dump(config))
    try:
        load_config(path)
    except ConfigError as exc:
        problems = exc.problems
    else:
        raise AssertionError("a 200-result window passed for a Big Six wheel")
    assert problems == [
        f"{path}: surveillance: settings that fit table 'B6' (big_six) expected: window 200 is "
        "too small for the pocket test: its rarest cell expects 3.70 results; a window of at "
        "least 270 is needed"
    ]
    config["surveillance"] = {"window": 200, "enabled": False}
    path.write_text(yaml.safe_dump(config))
    assert load_config(path).config.surveillance.enabled is False
