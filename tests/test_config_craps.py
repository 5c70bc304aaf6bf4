"""A Craps table's Rules Submission odds and devices, refused by `floord check` below the
minimums of 58 Pa. Code § 537.5(b) and (g), and the Fire Bet at Craps only (§ 537.12(a))."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from floord.cli.main import main
from floord.config.load import ConfigError, load_config
from floord.contract import cite
from floord.engine.craps.fire import MINI_CRAPS_POLICY

pytestmark = pytest.mark.unit

TRACKER = {"id": "dice", "profile": "ref-dice-tracker", "port": "/dev/ttyUSB5"}
SHAKER = {"id": "shaker", "profile": "ref-paigow-shaker", "port": "/dev/ttyUSB6"}


def write(tmp_path: Path, rules: dict | None = None, game: str = "craps",
          devices: list | None = None) -> Path:  # fmt: skip
    table = {"id": "CR", "game": game, "devices": devices or [TRACKER]}
    if rules is not None:
        table["rules"] = rules
    config = {"site": "s", "broker": {"url": "mqtt://127.0.0.1:1883"}, "journal": "j.db",
              "tables": [table]}  # fmt: skip
    path = tmp_path / "floord.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def check(tmp_path: Path, **kwargs) -> list[str]:
    try:
        load_config(write(tmp_path, **kwargs))
    except ConfigError as exc:
        return exc.problems
    return []


def test_the_minimum_odds_and_higher_ones_pass(tmp_path: Path) -> None:
    assert check(tmp_path) == []
    rules = {"payout_odds": {"place_win_4": "9 to 5", "field_2_or_12": "3 to 1"},
             "fire_bet": "B", "fire_bet_odds": {6: 999}, "lay_bets": True}  # fmt: skip
    assert check(tmp_path, rules=rules) == []
    assert check(tmp_path, game="mini_craps") == []
    assert check(tmp_path, rules={"stickperson_calls": True}) == []
    assert "stickperson_calls" in "\n".join(check(tmp_path, rules={"stickperson_calls": "maybe"}))


def test_floord_check_refuses_odds_below_537_5_b(tmp_path: Path, capsys) -> None:
    """§ 537.5(b): "The payout odds for winning wagers at the game of Craps or Mini-Craps
    may not be less than the following payout odds"."""
    path = write(tmp_path, {"payout_odds": {"hard_10": "6 to 1"}})
    assert main(["check", "-c", str(path)]) != 0
    err = capsys.readouterr()
    said = err.out + err.err
    assert (
        f"rules.payout_odds.hard_10: 6 to 1 is below the minimum 7 to 1 of {cite('537.5(b)')}"
        in said
    )


def test_floord_check_refuses_a_fire_table_below_537_5_g(tmp_path: Path, capsys) -> None:
    """§ 537.5(g): "at no less than the odds set forth in Table A or Table B preselected"."""
    path = write(tmp_path, {"fire_bet": "A", "fire_bet_odds": {5: 199}})
    assert main(["check", "-c", str(path)]) != 0
    err = capsys.readouterr()
    assert "fire_bet_odds.5: 199 to 1 is below 249 to 1, Table A" in err.out + err.err


def test_the_fire_bet_at_mini_craps_is_refused_under_floords_policy(tmp_path: Path) -> None:
    """§ 537.3(a) lists the Fire Bet among the wagers of Craps and Mini-Craps; § 537.2(f)
    and § 537.12 give its layout and procedures "in the game of Craps" only: floord's
    refusal at Mini-Craps is its policy, and says so, citing no paragraph as its reason."""
    problems = check(tmp_path, rules={"fire_bet": "A"}, game="mini_craps")
    [problem] = [p for p in problems if "fire_bet" in p]
    assert "floord offers the Fire Bet at Craps only" in problem
    assert MINI_CRAPS_POLICY in problem


def test_a_craps_table_has_one_two_dice_tracker(tmp_path: Path) -> None:
    problems = "\n".join(check(tmp_path, devices=[SHAKER]))
    assert "a dice tracker of two dice expected" in problems
    two = "\n".join(check(tmp_path, devices=[TRACKER, {**TRACKER, "id": "dice2"}]))
    assert "exactly one dice tracker expected, found 2" in two
