"""Each game in a config gets its engine, restored from the journal's snapshot."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from floord.config.load import ConfigError, load_config
from floord.engine import BaccaratEngine, BlackjackEngine, RouletteEngine, StudEngine
from floord.engine.big_six.engine import BigSixEngine
from floord.engine.carnival.engine import CarnivalEngine
from floord.engine.craps.engine import CrapsEngine
from floord.engine.pai_gow.engine import PaiGowEngine
from floord.engine.poker.engine import PokerEngine
from floord.engine.war.engine import WarEngine
from floord.journal.store import Journal
from floord.processes.table_units import build_engine

pytestmark = pytest.mark.unit

SHOE = {"id": "shoe", "profile": "ref-shoe-recognition", "port": "/dev/ttyUSB2"}
READER = {"id": "reader", "profile": "ref-card-reader", "port": "/dev/ttyUSB1"}
SHUFFLER = {"id": "shuffler", "profile": "ref-shuffler-batch", "port": "/dev/ttyUSB3"}
WHEEL = {"id": "wheel", "profile": "cammegh-ss2", "port": "/dev/ttyUSB0"}
BIG_SIX = {"id": "bigsix", "profile": "ref-big-six", "port": "/dev/ttyUSB4"}
SHAKER = {"id": "shaker", "profile": "ref-paigow-shaker", "port": "/dev/ttyUSB5"}
DICE = {"id": "dice", "profile": "ref-dice-tracker", "port": "/dev/ttyUSB6"}


def test_every_game_gets_its_engine(tmp_path: Path) -> None:
    config = {
        "site": "s",
        "broker": {"url": "mqtt://127.0.0.1:1883"},
        "journal": "journal.db",
        "tables": [
            {"id": "RL", "game": "roulette", "rules": {"wheel": "single_zero"},
             "devices": [WHEEL]},
            {"id": "BJ", "game": "blackjack", "rules": {"decks": 6}, "devices": [READER, SHOE]},
            {"id": "S21", "game": "spanish21", "rules": {"decks": 8},
             "devices": [READER, SHOE]},
            {"id": "BA", "game": "baccarat", "rules": {"ez_baccarat": True}, "devices": [SHOE]},
            {"id": "MS", "game": "mississippi_stud",
             "rules": {"dealing": "hand", "shuffler": "counting"}, "devices": [SHUFFLER]},
            {"id": "PG", "game": "pai_gow_poker", "rules": {"shuffler": "counting"},
             "devices": [SHUFFLER]},
            {"id": "TC", "game": "three_card_poker", "rules": {"shuffler": "none"}},
            {"id": "B6", "game": "big_six", "devices": [BIG_SIX]},
            {"id": "PK", "game": "poker", "devices": [SHUFFLER]},
            {"id": "PH", "game": "poker", "rules": {"shuffler": "none", "idle_minutes": 20}},
            {"id": "WR", "game": "war", "rules": {"decks": 8}, "devices": [SHOE]},
            {"id": "PGT", "game": "pai_gow",
             "rules": {"count_order": [1, 2, 3, 4, 5, 6, "dealer", "dead_hand"]},
             "devices": [SHAKER]},
            {"id": "CR", "game": "craps", "rules": {"fire_bet": "A"}, "devices": [DICE]},
            {"id": "MC", "game": "mini_craps", "devices": [DICE]},
        ],
    }  # fmt: skip
    path = tmp_path / "floord.yaml"
    path.write_text(yaml.safe_dump(config))
    loaded = load_config(path)
    kinds = {
        "RL": RouletteEngine,
        "BJ": BlackjackEngine,
        "S21": BlackjackEngine,
        "BA": BaccaratEngine,
        "MS": StudEngine,
        "PG": CarnivalEngine,
        "TC": CarnivalEngine,
        "B6": BigSixEngine,
        "PK": PokerEngine,
        "PH": PokerEngine,
        "WR": WarEngine,
        "PGT": PaiGowEngine,
        "CR": CrapsEngine,
        "MC": CrapsEngine,
    }
    journal = Journal(loaded.journal_path)
    try:
        for table in loaded.config.tables:
            engine = build_engine(table, loaded, journal.load_snapshot(table.id))
            assert isinstance(engine, kinds[table.id])
            snap = engine.snapshot()
            again = build_engine(table, loaded, snap)
            assert again.snapshot() == snap
            assert engine.public_state()["state"] == "closed"
    finally:
        journal.close()


def test_a_carnival_table_is_checked_by_its_chapter(tmp_path: Path) -> None:
    tables = [
        {"id": "CS", "game": "caribbean_stud", "rules": {"shuffler": "counting"}},
        {"id": "LR", "game": "let_it_ride",
         "rules": {"shuffler": "none", "decks": 2, "deck_backs": ["red", "blue"]}},
        {"id": "FC", "game": "four_card_poker", "rules": {"shuffler": "none"},
         "devices": [SHOE]},
    ]  # fmt: skip
    config = {"site": "s", "broker": {"url": "mqtt://127.0.0.1:1883"}, "journal": "j.db"}
    path = tmp_path / "floord.yaml"
    path.write_text(yaml.safe_dump({**config, "tables": tables}))
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    text = "\n".join(caught.value.problems)
    assert "tables.0.devices: 1 card shuffler device(s) expected" in text
    assert "tables.1.rules: two decks are used with an automated shuffler" in text
    assert "559.4(d)" in text
    assert "tables.2.devices.0: a card shuffler's profile on a four card poker table" in text


def test_poker_and_war_tables_are_checked_by_their_chapters(tmp_path: Path) -> None:
    """§ 553.5(a): two decks received (two different names); § 567.4(a): six or more
    decks; a War stack goes into a dealing shoe (§ 567.5(e)); a shuffler unless `none`."""
    tables = [
        {"id": "PK", "game": "poker", "rules": {"deck_backs": ["red", "red"]},
         "devices": [SHUFFLER]},
        {"id": "PH", "game": "poker", "rules": {"shuffler": "none"}, "devices": [SHOE]},
        {"id": "WR", "game": "war", "rules": {"shuffler": "automated"}, "devices": [SHOE]},
        {"id": "WS", "game": "war"},
    ]  # fmt: skip
    config = {"site": "s", "broker": {"url": "mqtt://127.0.0.1:1883"}, "journal": "j.db"}
    path = tmp_path / "floord.yaml"
    path.write_text(yaml.safe_dump({**config, "tables": tables}))
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    text = "\n".join(caught.value.problems)
    assert "tables.0.rules: deck_backs must name the two decks received" in text
    assert "553.5(a)" in text
    assert "tables.1.devices.0: a card shuffler's profile on a poker table expected" in text
    assert "tables.2.devices: 1 card shuffler device(s) expected" in text
    assert "tables.3.devices: 1 dealing shoe device(s) expected" in text
    few = [{"id": "WD", "game": "war", "rules": {"decks": 4}, "devices": [SHOE]}]
    path.write_text(yaml.safe_dump({**config, "tables": few}))
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert "tables.0.rules.decks" in "\n".join(caught.value.problems)
