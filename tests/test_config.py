"""Config validation: every problem named as FILE: KEY.PATH: expected, found."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from floord.config.load import ConfigError, load_config
from floord.profiles import ProfileError, load_profile

pytestmark = pytest.mark.unit


def _valid(tmp: Path) -> dict:
    (tmp / "fp.key").write_text("secret\n")
    return {
        "site": "casino-1",
        "broker": {"url": "mqtt://127.0.0.1:1883"},
        "journal": "journal.db",
        "operators": [{"id": "FP-1001", "role": "floorperson", "key_file": "fp.key"}],
        "tables": [
            {
                "id": "RL-01",
                "game": "roulette",
                "rules": {"wheel": "double_zero_as_single"},
                "devices": [{"id": "wheel", "profile": "cammegh-ss2", "port": "/dev/ttyUSB0"}],
            }
        ],
    }


def _write(tmp: Path, body: dict) -> Path:
    path = tmp / "floord.yaml"
    path.write_text(yaml.safe_dump(body))
    return path


def _problems(tmp: Path, body: dict) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        load_config(_write(tmp, body))
    return caught.value.problems


def test_valid_config_loads_and_resolves_paths(tmp_path: Path) -> None:
    loaded = load_config(_write(tmp_path, _valid(tmp_path)))
    assert loaded.journal_path == tmp_path.resolve() / "journal.db"
    assert loaded.operator_key("FP-1001") == b"secret"
    assert loaded.config.broker.nodes == ("mqtt://127.0.0.1:1883",)
    assert loaded.config.broker.topic_prefix == "floor/v1"


def test_unknown_key_is_named_with_its_path(tmp_path: Path) -> None:
    body = _valid(tmp_path)
    body["tables"][0]["devices"][0]["baud"] = 9600
    [problem] = _problems(tmp_path, body)
    assert problem.startswith(f"{tmp_path / 'floord.yaml'}: tables.0.devices.0.baud: ")
    assert "unknown key (allowed keys: id, profile, port," in problem


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    body = _valid(tmp_path)
    body["tables"][0]["rules"]["wheel"] = "triple_zero"
    body["operators"][0]["role"] = "pit_boss"
    del body["journal"]
    problems = _problems(tmp_path, body)
    keys = sorted(p.split(": ")[1] for p in problems)
    assert keys == ["journal", "operators.0.role", "tables.0.rules.wheel"]
    wheel = next(p for p in problems if "rules.wheel" in p)
    assert "one of single_zero, double_zero or double_zero_as_single expected" in wheel
    assert "found 'triple_zero'" in wheel


def test_cross_checks_profiles_ids_keys_ports(tmp_path: Path) -> None:
    body = _valid(tmp_path)
    body["operators"].append({"id": "FP-1001", "role": "dealer", "key_file": "missing.key"})
    body["tables"][0]["devices"][0]["profile"] = "no-such-wheel"
    body["tables"][0]["devices"].append({"id": "wheel", "profile": "cammegh-ss2", "port": "COM3"})
    problems = "\n".join(_problems(tmp_path, body))
    assert "operators.1.id: a unique id expected, found 'FP-1001' twice" in problems
    assert "operators.1.key_file: a readable file expected" in problems
    assert "tables.0.devices.0.profile: one of cammegh-ss2, " in problems
    assert "or the path of a .yaml profile expected, found 'no-such-wheel'" in problems
    assert "tables.0.devices.1.port:" in problems
    assert "tables.0.devices.1.id: a unique id expected" in problems


def test_roulette_table_needs_exactly_one_wheel(tmp_path: Path) -> None:
    body = _valid(tmp_path)
    body["tables"][0]["devices"].append(
        {"id": "wheel2", "profile": "cammegh-ss2", "port": "/dev/ttyUSB1"}
    )
    problems = _problems(tmp_path, body)
    assert any("exactly one roulette wheel device expected, found 2" in p for p in problems)


def test_yaml_syntax_error_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("site: [unclosed\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    [problem] = caught.value.problems
    assert problem.startswith(f"{path}: line 2, column 1: valid YAML expected")
    assert "<unicode string>" not in problem


def test_profile_loads_and_unknown_key_fails(tmp_path: Path) -> None:
    profile = load_profile("cammegh-ss2")
    assert profile.spec == 1 and profile.serial.baudrate == 9600
    source = Path(__file__).resolve().parents[1] / "device_profiles" / "cammegh-ss2.yaml"
    raw = yaml.safe_load(source.read_text())
    raw["timeouts"]["silense_s"] = 3
    bad = tmp_path / "typo.yaml"
    bad.write_text(yaml.safe_dump(raw))
    with pytest.raises(ProfileError) as caught:
        load_profile(str(bad))
    assert f"{bad}: timeouts.silense_s: unknown key" in str(caught.value)


def _card_table(tmp: Path, game: str = "blackjack", **rules: object) -> dict:
    body = _valid(tmp)
    body["tables"] = [
        {
            "id": "BJ-01",
            "game": game,
            "rules": {"decks": 6, **rules},
            "devices": [
                {"id": "reader", "profile": "ref-card-reader", "port": "/dev/ttyUSB1"},
                {"id": "shoe", "profile": "ref-shoe-recognition", "port": "/dev/ttyUSB2"},
            ],
        }
    ]
    return body


def test_card_table_config_loads(tmp_path: Path) -> None:
    loaded = load_config(_write(tmp_path, _card_table(tmp_path)))
    table = loaded.table("BJ-01")
    assert table.game == "blackjack" and table.rules.shoe == "single"


def test_card_table_rules_are_checked_against_the_game_and_devices(tmp_path: Path) -> None:
    body = _card_table(tmp_path, "spanish21", decks=7, shuffler="batch", batch_backs=["red"])
    problems = "\n".join(_problems(tmp_path, body))
    assert "tables.0.rules.decks: 6 or 8 decks for Spanish 21 (58 Pa. Code § 551.3(a))" in problems
    assert "tables.0.rules.batch_backs: two different back colours" in problems
    assert "tables.0.devices: 1 card shuffler device(s) expected for shuffler 'batch'" in problems
    body = _card_table(tmp_path, shoe="double")
    problems = "\n".join(_problems(tmp_path, body))
    assert "a double shoe expected (rules.shoe), found device 'shoe'" in problems


def test_card_table_rule_errors_name_the_key_without_the_game_tag(tmp_path: Path) -> None:
    body = _card_table(tmp_path, shoe="triple")
    [problem] = _problems(tmp_path, body)
    assert problem.startswith(f"{tmp_path / 'floord.yaml'}: tables.0.rules.shoe: one of ")


def test_baccarat_and_stud_tables_need_their_devices(tmp_path: Path) -> None:
    body = _valid(tmp_path)
    shoe = {"id": "shoe", "profile": "ref-shoe-recognition", "port": "/dev/ttyUSB2"}
    body["tables"] = [
        {
            "id": "BA-01",
            "game": "midibaccarat",
            "rules": {"vigorish_percent": 4},
            "devices": [shoe],
        },
        {
            "id": "MS-01",
            "game": "mississippi_stud",
            "rules": {"dealing": "hand", "shuffler": "counting"},
            "devices": [
                {"id": "shuffler", "profile": "ref-shuffler-batch", "port": "/dev/ttyUSB3"}
            ],
        },
    ]
    loaded = load_config(_write(tmp_path, body))
    assert loaded.table("BA-01").rules.vigorish_percent == 4
    body["tables"][0]["rules"] = {"vigorish_percent": 3, "dragon_bonus_table": "D"}
    body["tables"][1]["rules"] = {"dealing": "automated_shoe", "shuffler": "counting"}
    body["tables"][1]["devices"] = []
    problems = "\n".join(_problems(tmp_path, body))
    assert "tables.0.rules.vigorish_percent: one of 4 or 5 expected, found 3" in problems
    assert "tables.0.rules.dragon_bonus_table:" in problems
    body["tables"][0]["rules"] = {}
    problems = "\n".join(_problems(tmp_path, body))
    assert "tables.1.devices: 1 dealing shoe device(s) expected" in problems
    assert "tables.1.devices: 1 card shuffler device(s) expected" in problems
    body["tables"][1]["rules"] = {"dealing": "hand", "shuffler": "none"}
    problems = "\n".join(_problems(tmp_path, body))
    assert "tables.1.rules: " in problems and "571.9(a)(1)" in problems
