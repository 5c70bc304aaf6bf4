"""What `check` refuses across tables: the vigorish of every Baccarat table (§ 545.13(g))."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from floord.config.load import ConfigError, load_config


def _floor(tmp: Path, *tables: tuple[str, str, dict]) -> Path:
    (tmp / "fp.key").write_text("secret\n")
    body = {
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
                    {"id": "shoe", "profile": "ref-shoe-recognition", "port": f"/dev/ttyUSB{i}"}
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
