"""What `check` refuses across tables: the vigorish of every Baccarat table (§ 545.13(g)),
the payout odds of every Craps and Mini-Craps table (§ 537.5(b)), within one config and
against the facility's floor rules file."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from floord.config.load import ConfigError, load_config

pytestmark = pytest.mark.unit

SHOE = {"profile": "ref-shoe-recognition"}
TRACKER = {"profile": "ref-dice-tracker"}


def _floor(tmp: Path, *tables: tuple[str, str, dict], **top: object) -> Path:
    (tmp / "fp.key").write_text("secret\n")
    body = {
        **top,
        "site": "casino-1",
        "broker": {"url": "mqtt://127.0.0.1:1883"},
        "journal": "journal.db",
        "operators": [{"id": "FP-1001", "role": "floorperson", "key_file": "fp.key"}],
        "tables": [
            {
                "id": table_id,
                "game": game,
                "rules": rules,
                "devices": [
                    {
                        "id": "dice" if "craps" in game else "shoe",
                        **(TRACKER if "craps" in game else SHOE),
                        "port": f"socket://127.0.0.1:{4000 + i}",
                    }
                ],
            }
            for i, (table_id, game, rules) in enumerate(tables)
        ],
    }
    path = tmp / "floord.yaml"
    path.write_text(yaml.safe_dump(body))
    return path


def test_check_refuses_baccarat_tables_that_differ_in_vigorish_545_13_g(tmp_path: Path) -> None:
    """§ 545.13(g): "The percentage of vigorish charged at a Baccarat table shall apply to
    all players at that table. The same percentage of vigorish shall be used for all
    Baccarat tables located within a licensed facility."
    """
    path = _floor(
        tmp_path,
        ("BA-01", "baccarat", {"vigorish_percent": 5}),
        ("BA-02", "baccarat", {"vigorish_percent": 4}),
        ("BA-03", "baccarat", {}),  # the default, 5
    )
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert caught.value.problems == [
        f"{path}: tables.1.rules.vigorish_percent: the same vigorish on every Baccarat table "
        "of the facility (58 Pa. Code § 545.13(g)) expected, 5 as on table 'BA-01' "
        "(tables.0), found 4"
    ]
    # EZ Baccarat charges none; chapters 541 and 543 hold no such paragraph in the seeds.
    same = _floor(
        tmp_path,
        ("BA-01", "baccarat", {"vigorish_percent": 4}),
        ("BA-02", "baccarat", {"vigorish_percent": 4, "vigorish_collection": "deferred"}),
        ("BA-03", "baccarat", {"ez_baccarat": True}),
        ("MB-01", "minibaccarat", {"vigorish_percent": 5}),
    )
    loaded = load_config(same)
    assert loaded.table("BA-02").rules.vigorish_collection == "deferred"
    with pytest.raises(ConfigError) as caught:
        load_config(_floor(tmp_path, ("BA-01", "baccarat", {"vigorish_collection": "later"})))
    [problem] = caught.value.problems
    assert problem.startswith(f"{path}: tables.0.rules.vigorish_collection: ")
    assert "one of at_payout or deferred expected, found 'later'" in problem


def test_check_refuses_craps_tables_paying_other_odds_537_5_b(tmp_path: Path) -> None:
    """§ 537.5(b): "A Certificate Holder may use payout odds for winning wagers at higher
    odds than those in the following list. Payout odds shall be uniform within the
    licensed facility." Craps and Mini-Craps alike: (b) names "the game of Craps or
    Mini-Craps"."""
    path = _floor(
        tmp_path,
        ("CR-01", "craps", {"payout_odds": {"place_win_6": "7 to 5", "craps_2": "31 to 1"}}),
        ("CR-02", "craps", {"payout_odds": {"place_win_6": "14 to 10", "craps_2": "31 to 1"}}),
        ("MC-01", "mini_craps", {"payout_odds": {"place_win_6": "7 to 5"}}),
    )
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    # "14 to 10" is "7 to 5"; Mini-Craps pays the 2 at the minimum, 30 to 1.
    assert caught.value.problems == [
        f"{path}: tables.2.rules.payout_odds.craps_2: the same payout odds on every Craps "
        "and Mini-Craps table of the facility (58 Pa. Code § 537.5(b)) expected, 31 to 1 as "
        "on table 'CR-01' (tables.0), found 30 to 1"
    ]
    same = _floor(
        tmp_path,
        ("CR-01", "craps", {"payout_odds": {"hard_4": "8 to 1"}}),
        ("MC-01", "mini_craps", {"payout_odds": {"hard_4": "16 to 2"}}),
        ("BA-01", "baccarat", {}),
    )
    assert load_config(same).table("MC-01").rules.payout_odds == {"hard_4": "16 to 2"}


def test_a_table_whose_own_odds_are_refused_is_not_compared_as_well(tmp_path: Path) -> None:
    """One mistake, one line: odds below the minimum are the table's own check's."""
    path = _floor(
        tmp_path,
        ("CR-01", "craps", {}),
        ("CR-02", "craps", {"payout_odds": {"hard_4": "6 to 1"}}),
    )
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    [problem] = caught.value.problems
    assert problem.startswith(f"{path}: tables.1.rules.payout_odds.hard_4: 6 to 1 is below")


def _rules_file(tmp: Path, body: object) -> Path:
    path = tmp / "floor-rules.yaml"
    path.write_text(body if isinstance(body, str) else yaml.safe_dump(body))
    return path


def test_the_floor_rules_file_holds_every_box_to_the_facility_s_values(tmp_path: Path) -> None:
    """One box's config sees only its tables; the floor rules file, installed on every
    box, is the facility's value, so each table is compared with it (§ 545.13(g),
    § 537.5(b))."""
    rules = _rules_file(
        tmp_path,
        {"baccarat": {"vigorish_percent": 4}, "craps": {"payout_odds": {"eleven": "16 to 1"}}},
    )
    path = _floor(
        tmp_path,
        ("BA-01", "baccarat", {"vigorish_percent": 5}),
        ("CR-01", "craps", {"payout_odds": {"eleven": "16 to 1"}}),
        ("MC-01", "mini_craps", {}),
        floor_rules="floor-rules.yaml",
    )
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert caught.value.problems == [
        f"{path}: tables.0.rules.vigorish_percent: the same vigorish on every Baccarat table "
        f"of the facility (58 Pa. Code § 545.13(g)) expected, 4 in {rules}, found 5",
        f"{path}: tables.2.rules.payout_odds.eleven: the same payout odds on every Craps and "
        f"Mini-Craps table of the facility (58 Pa. Code § 537.5(b)) expected, 16 to 1 in "
        f"{rules}, found 15 to 1",
    ]
    # A section the file leaves out binds nothing there: the config's tables agree.
    _rules_file(tmp_path, {"craps": {"payout_odds": {"eleven": "16 to 1"}}})
    agreeing = _floor(
        tmp_path,
        ("BA-01", "baccarat", {"vigorish_percent": 5}),
        ("CR-01", "craps", {"payout_odds": {"eleven": "16 to 1"}}),
        floor_rules=str(rules),
    )
    assert load_config(agreeing).config.floor_rules == rules


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("craps: [", "line 1, column 9: valid YAML expected, found a syntax error: "),
        ("- 1\n", "(top): a mapping of floor rules expected, found a list"),
        ({"craps": {"payout_odds": {"eleven": "14 to 1"}}}, "craps.payout_odds: "),
        ({"craps": {"payout_odds": {"eleven": "15 for 1"}}}, "craps.payout_odds: "),
        ({"baccarat": {"vigorish_percent": 3}}, "baccarat.vigorish_percent: "),
        ({"blackjack": {}}, "blackjack: "),
    ],
)
def test_a_floor_rules_file_that_cannot_be_used_is_named(
    tmp_path: Path, body: object, expected: str
) -> None:
    rules = _rules_file(tmp_path, body)
    path = _floor(tmp_path, ("BA-01", "baccarat", {}), floor_rules="floor-rules.yaml")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    [problem] = caught.value.problems
    assert problem.startswith(f"{rules}: {expected}"), problem
