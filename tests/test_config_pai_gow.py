"""A Pai Gow table's rules and its shaker, validated by `floord check` (58 Pa. Code § 535.2)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from config_support import config_problems

pytestmark = pytest.mark.unit

SHAKER = {"id": "shaker", "profile": "ref-paigow-shaker", "port": "/dev/ttyUSB0"}
TRACKER = {"id": "tracker", "profile": "ref-dice-tracker", "port": "/dev/ttyUSB1"}
SHOE = {"id": "shoe", "profile": "ref-shoe-manual", "port": "/dev/ttyUSB2"}
ORDER = ["dealer", 1, 2, 3, 4, 5, 6]


def check(tmp_path: Path, rules: dict[str, Any] | None, devices: list[dict[str, str]]) -> list[str]:
    table: dict[str, Any] = {"id": "PG", "game": "pai_gow", "devices": devices}
    if rules is not None:
        table["rules"] = rules
    return config_problems(tmp_path, [table])


def test_a_pai_gow_table_with_its_shaker_and_count_order_passes(tmp_path: Path) -> None:
    assert check(tmp_path, {"count_order": ORDER}, [SHAKER]) == []
    with_dead_hand = [*ORDER, "dead_hand"]
    assert check(tmp_path, {"count_order": with_dead_hand}, [SHAKER]) == []


def test_the_count_order_is_the_rules_submissions_never_a_default_535_2_d(
    tmp_path: Path,
) -> None:
    """§ 535.2(d) says the dice 'determine the starting position' but not how."""
    missing = "\n".join(check(tmp_path, None, [SHAKER]))
    assert "tables.0.rules" in missing
    empty = "\n".join(check(tmp_path, {"count_order": []}, [SHAKER]))
    assert "Rules Submission" in empty and "535.2(d) says the dice determine" in empty
    short = "\n".join(check(tmp_path, {"count_order": [1, 2, 3, 4, 5, 6]}, [SHAKER]))
    assert "the six betting areas and the dealer's place expected" in short
    assert "58 Pa. Code § 535.2(a)" in short
    wrong = "\n".join(check(tmp_path, {"count_order": [*ORDER, 7]}, [SHAKER]))
    assert "58 Pa. Code § 535.2(b)(1)" in wrong and "[7]" in wrong


def test_the_table_takes_one_shaker_of_three_dice_535_2_d_1(tmp_path: Path) -> None:
    """(d)(1): 'The Pai Gow shaker must be capable of housing three dice'."""
    tracker = "\n".join(check(tmp_path, {"count_order": ORDER}, [TRACKER]))
    assert "a Pai Gow shaker of 3 dice" in tracker and "§ 535.2(d)(1)" in tracker
    none = "\n".join(check(tmp_path, {"count_order": ORDER}, [SHOE]))
    assert "tables.0.devices.0: a dice tracker's profile on a pai gow table expected" in none
    assert "(dealing_shoe)" in none
