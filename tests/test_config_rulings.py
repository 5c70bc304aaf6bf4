"""What `floord check` refuses because 58 Pa. Code says so: the table limits of the rules.

Each test quotes the paragraph it enforces; the engine's own tests check the same limits
on the engines (`test_engine_stud_play.py`, `test_engine_blackjack_rulings.py`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from floord.config.load import ConfigError, load_config

pytestmark = pytest.mark.unit


def _body(tmp: Path, table: dict) -> dict:
    (tmp / "fp.key").write_text("secret\n")
    return {
        "site": "casino-1",
        "broker": {"url": "mqtt://127.0.0.1:1883"},
        "journal": "journal.db",
        "operators": [{"id": "FP-1001", "role": "floorperson", "key_file": "fp.key"}],
        "tables": [table],
    }


def _card_table(game: str, boxes: int) -> dict:
    return {
        "id": "BJ-01",
        "game": game,
        "rules": {"decks": 6, "boxes": boxes},
        "devices": [
            {"id": "reader", "profile": "ref-card-reader", "port": "/dev/ttyUSB1"},
            {"id": "shoe", "profile": "ref-shoe-recognition", "port": "/dev/ttyUSB2"},
        ],
    }


def _stud_table(**rules: object) -> dict:
    return {
        "id": "MS-01",
        "game": "mississippi_stud",
        "rules": {"dealing": "hand", "shuffler": "counting", **rules},
        "devices": [{"id": "shuffler", "profile": "ref-shuffler-batch", "port": "/dev/ttyUSB3"}],
    }


def _write(tmp: Path, body: dict) -> Path:
    path = tmp / "floord.yaml"
    path.write_text(yaml.safe_dump(body))
    return path


def _problems(tmp: Path, table: dict) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        load_config(_write(tmp, _body(tmp, table)))
    return caught.value.problems


@pytest.mark.parametrize("game", ["blackjack", "spanish21"])
def test_a_card_table_has_at_most_seven_boxes_549_2_b_2_551_2_b_2(tmp_path, game) -> None:
    """§ 549.2(b)(2): the Blackjack layout contains "No more than seven specific areas
    designated for the placement of wagers." § 551.2(b)(2): the Spanish 21 layout
    contains "No more than seven player positions containing a separate designated
    betting area"."""
    loaded = load_config(_write(tmp_path, _body(tmp_path, _card_table(game, 7))))
    assert loaded.table("BJ-01").rules.boxes == 7
    for boxes in (8, 9):
        [problem] = _problems(tmp_path, _card_table(game, boxes))
        assert "tables.0.rules.boxes" in problem and "7" in problem


def test_check_computes_the_stud_payout_ceiling_571_12_b(tmp_path) -> None:
    """§ 571.12(b): "the aggregate payout limit for any hand may not exceed $50,000 or the
    maximum amount that one patron could win per round when betting the minimum wager,
    whichever is greater." A $20 minimum Ante: 20 x 10 units x 500 = $100,000."""
    for limit in (25_000, 50_000, 100_000):
        table = _stud_table(minimum_ante=20, aggregate_payout_limit=limit)
        loaded = load_config(_write(tmp_path, _body(tmp_path, table)))
        assert loaded.table("MS-01").rules.aggregate_payout_limit == limit
    [problem] = _problems(tmp_path, _stud_table(minimum_ante=20, aggregate_payout_limit=100_001))
    assert "tables.0.rules:" in problem and "ceiling of $100,000" in problem
    assert "§ 571.12(b)" in problem
    [problem] = _problems(tmp_path, _stud_table(aggregate_payout_limit=1_000_000))
    assert "ceiling of $50,000" in problem and "minimum_ante" in problem
