"""`check` validates Spanish 21's pay table, a Rules Submission option (§ 551.6(g), (h))."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from floord.config.load import ConfigError, load_config

pytestmark = pytest.mark.unit


def _config(tmp: Path, game: str, payouts: object) -> Path:
    (tmp / "fp.key").write_text("secret\n")
    body = {
        "site": "casino-1",
        "broker": {"url": "mqtt://127.0.0.1:1883"},
        "journal": "journal.db",
        "operators": [{"id": "FP-1001", "role": "floorperson", "key_file": "fp.key"}],
        "tables": [
            {
                "id": "SP-01",
                "game": game,
                "rules": {"decks": 6, "spanish21_payouts": payouts},
                "devices": [
                    {"id": "reader", "profile": "ref-card-reader", "port": "/dev/ttyUSB1"},
                    {"id": "shoe", "profile": "ref-shoe-recognition", "port": "/dev/ttyUSB2"},
                ],
            }
        ],
    }
    path = tmp / "floord.yaml"
    path.write_text(yaml.safe_dump(body))
    return path


def test_check_validates_the_spanish21_pay_table(tmp_path: Path) -> None:
    """§ 551.2(g)(1) and § 551.12(e) refer to the additional payouts of § 551.6(g) and
    (h), which the seeds do not contain: the pay table is the Rules Submission's, and
    each config error names the file, the key and what was expected."""
    good = [
        {"name": "five_card_21", "paragraph": "551.6(h)", "odds": "3 to 2", "cards": 5},
        {"name": "seven_up", "paragraph": "551.6(g)", "odds": "2 to 1", "ranks": ["7"] * 3,
         "suits": "same"},
    ]  # fmt: skip
    loaded = load_config(_config(tmp_path, "spanish21", good))
    assert loaded.table("SP-01").rules.spanish21_payouts == good
    bad = [
        {"name": "Five Card", "paragraph": "551.6(i)", "odds": "3:2", "cards": 1},
        {"name": "any", "paragraph": "551.6(g)", "odds": "1 to 1", "ranks": ["T"], "extra": 1},
        {"name": "nothing", "paragraph": "551.6(h)", "odds": "2 to 1", "suits": "clubs"},
    ]
    path = _config(tmp_path, "spanish21", bad)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    key = f"{path}: tables.0.rules.spanish21_payouts"
    assert caught.value.problems == [
        f"{key}.0.name: a name of a-z, 0-9 and _ expected, found 'Five Card'",
        f"{key}.0.paragraph: '551.6(g)' or '551.6(h)' expected, found '551.6(i)'",
        f"{key}.0.odds: odds such as '3 to 2' expected, found '3:2'",
        f"{key}.0.cards: a number of cards from 2 to 21 expected, found 1",
        f"{key}.1.extra: a known key expected (unknown key)",
        f"{key}.1.ranks: a list of ranks of A, 2, 3, 4, 5, 6, 7, 8, 9, J, Q, K expected, "
        "found ['T']",
        f"{key}.2.suits: one of any, mixed, same, spades expected, found 'clubs'",
        f"{key}.2: cards, min_cards or ranks expected (which hands of 21 it pays), found none",
    ]
    path = _config(tmp_path, "blackjack", good)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert caught.value.problems == [
        f"{path}: tables.0.rules.spanish21_payouts: only on a Spanish 21 table (§ 551.6) "
        "expected, found game 'blackjack'"
    ]
