"""The game registry: every game the config accepts has one definition, and each builds
its engine from a minimal config; the defaults of a game's rules are its engine's."""

from __future__ import annotations

import dataclasses
import importlib
from pathlib import Path
from typing import Any

import pytest
import yaml

from floord.config.load import ConfigError, FloordConfig, load_config
from floord.engine.baccarat import rules as baccarat_rules
from floord.engine.blackjack import rules as blackjack_rules
from floord.engine.blackjack.rules import GAMES as BLACKJACK_GAMES
from floord.engine.carnival import rules as carnival_rules
from floord.engine.craps import rules as craps_rules
from floord.engine.pai_gow import rules as pai_gow_rules
from floord.engine.poker import rules as poker_rules
from floord.engine.stud import rules as stud_rules
from floord.engine.war import rules as war_rules
from floord.games import baccarat, blackjack, carnival, poker, stud, war
from floord.games.registry import (
    GAMES,
    MODULES,
    config_model,
    definition,
    definitions,
    driver_options,
    setup_for_table,
)
from floord.journal.store import Journal
from floord.processes.table_units import build_engine

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[1]
WHEEL = {"id": "wheel", "profile": "cammegh-ss2", "port": "/dev/ttyUSB0"}
BIG_SIX = {"id": "bigsix", "profile": "ref-big-six", "port": "/dev/ttyUSB1"}
DICE = {"id": "dice", "profile": "ref-dice-tracker", "port": "/dev/ttyUSB5"}
READER = {"id": "reader", "profile": "ref-card-reader", "port": "/dev/ttyUSB2"}
SHOE = {"id": "shoe", "profile": "ref-shoe-recognition", "port": "/dev/ttyUSB3"}
SHUFFLER = {"id": "shuffler", "profile": "ref-shuffler-csm", "port": "/dev/ttyUSB4"}
SHAKER = {"id": "shaker", "profile": "ref-paigow-shaker", "port": "/dev/ttyUSB5"}

# The least a table of each game needs: the rules without a default, and the devices
# its default rules ask for.
MINIMAL: dict[str, dict[str, Any]] = {
    "roulette": {"rules": {"wheel": "double_zero"}, "devices": [WHEEL]},
    "big_six": {"devices": [BIG_SIX]},
    "blackjack": {"rules": {"decks": 6}, "devices": [READER, SHOE]},
    "spanish21": {"rules": {"decks": 8}, "devices": [READER, SHOE]},
    **{g: {"devices": [SHOE]} for g in baccarat_rules.GAMES},
    "mississippi_stud": {"devices": [SHUFFLER]},
    **{g: {"devices": [SHUFFLER]} for g in carnival_rules.GAMES},
    "poker": {"devices": [SHUFFLER]},
    "war": {"devices": [SHOE]},
    "pai_gow": {"rules": {"count_order": ["dealer", 1, 2, 3, 4, 5, 6]}, "devices": [SHAKER]},
    **{g: {"devices": [DICE]} for g in craps_rules.GAMES},
}


def _load(tmp_path: Path, tables: list[dict[str, Any]]) -> Any:
    config = {"site": "s", "broker": {"url": "mqtt://127.0.0.1:1883"}, "journal": "j.db"}
    path = tmp_path / "floord.yaml"
    path.write_text(yaml.safe_dump({**config, "tables": tables}))
    return load_config(path)


def test_the_registry_covers_every_game_the_config_accepts() -> None:
    schema = config_model(FloordConfig, frozenset(GAMES)).model_json_schema()
    accepted = set(schema["properties"]["tables"]["items"]["discriminator"]["mapping"])
    assert accepted == set(MODULES) == set(GAMES) == set(MINIMAL)
    assert len(GAMES) == sum(len(d.games) for d in definitions()), "a game defined twice"
    for game in GAMES:  # each name's module defines a game of that name
        assert game in definition(game).games, game
    # The engines name the games they play; the registry plays exactly those.
    engines = {"roulette", "big_six", *BLACKJACK_GAMES, *baccarat_rules.GAMES,
               *stud_rules.GAMES, *carnival_rules.GAMES, poker_rules.GAME,
               war_rules.GAME, pai_gow_rules.GAME, *craps_rules.GAMES}  # fmt: skip
    assert engines == set(GAMES)


def test_every_engine_package_has_its_definition() -> None:
    packages = {
        p.name for p in (ROOT / "floord" / "engine").iterdir() if (p / "engine.py").is_file()
    }
    assert packages == {
        "roulette", "big_six", "blackjack", "baccarat", "stud", "carnival", "poker", "war",
        "pai_gow",
        "craps",
    }  # fmt: skip
    for name in packages:
        module = importlib.import_module(f"floord.games.{name}")
        assert module.DEFINITION in definitions(), f"floord/games/{name}.py is not registered"


def test_an_unknown_game_is_refused_naming_the_registrys_games(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        _load(tmp_path, [{"id": "X", "game": "faro", "devices": [SHOE]}])
    text = "\n".join(caught.value.problems)
    assert "faro" in text and all(g in text for g in GAMES)


@pytest.mark.parametrize("game", sorted(MINIMAL))
def test_each_definition_builds_its_engine_from_a_minimal_config(tmp_path: Path, game: str) -> None:
    loaded = _load(tmp_path, [{"id": "T1", "game": game, **MINIMAL[game]}])
    [table] = loaded.config.tables
    journal = Journal(loaded.journal_path)
    try:
        engine = build_engine(table, loaded, journal.load_snapshot(table.id))
    finally:
        journal.close()
    package = definition(game).build_engine.__module__.rsplit(".", 1)[1]
    assert type(engine).__module__ == f"floord.engine.{package}.engine"
    state = engine.public_state()
    assert state["state"] == "closed"
    assert build_engine(table, loaded, engine.snapshot()).snapshot() == engine.snapshot()


def test_a_stud_table_without_a_shuffler_setting_gets_a_counting_shuffler(
    tmp_path: Path,
) -> None:
    """The default every release has used (the config's); the engine now says the same."""
    loaded = _load(tmp_path, [{"id": "MS", "game": "mississippi_stud", "devices": [SHUFFLER]}])
    [table] = loaded.config.tables
    assert table.rules.shuffler == "counting"
    assert build_engine(table, loaded, None).rules.shuffler == "counting"
    assert stud_rules.StudRules(dealing="manual_shoe").shuffler == "counting"


@pytest.mark.parametrize(
    ("model", "defaults"),
    [
        (stud.StudRulesConfig, stud_rules.StudRules),
        (carnival.CarnivalRulesConfig, carnival_rules.CarnivalRules),
        (poker.PokerRulesConfig, poker_rules.PokerRules),
        (war.WarRulesConfig, war_rules.WarRules),
        (baccarat.BaccaratRulesConfig, baccarat_rules.BaccaratRules),
        (blackjack.CardTableRules, blackjack_rules.GameRules),
    ],
)
def test_a_games_config_defaults_are_its_engines(model: Any, defaults: Any) -> None:
    """Each key the config leaves out takes the engine's default, read from the engine's
    rules class (its fields' defaults; a list in the file is a tuple there)."""
    # A family's rules are made for one of its games (its chapter); Blackjack's decks
    # have no default.
    game, given = MADE_WITH.get(model, ([], {}))
    assert model(**given).engine_rules(*game) == defaults(*game, **given)
    engine = {f.name: f.default for f in dataclasses.fields(defaults)}
    fields = model.model_fields
    keys = [k for k in fields if k in engine and not fields[k].is_required()]
    found = {k: fields[k].get_default(call_default_factory=True) for k in keys}
    found = {k: tuple(v) if isinstance(v, list) else v for k, v in found.items()}
    assert found == {k: engine[k] for k in keys}
    assert len(keys) >= len(fields) - 2  # all but Blackjack's decks and pay table


MADE_WITH: dict[Any, tuple[list[str], dict[str, Any]]] = {
    baccarat.BaccaratRulesConfig: (["baccarat"], {}),
    carnival.CarnivalRulesConfig: (["let_it_ride"], {}),
    blackjack.CardTableRules: (["blackjack"], {"decks": 6}),
}


def test_driver_options_and_wheels_come_from_the_game(tmp_path: Path) -> None:
    kinds = ["single_zero", "double_zero", "double_zero_as_single"]
    wheels = [{"id": f"R{n}", "game": "roulette", "rules": {"wheel": kind}, "devices": [WHEEL]}
              for n, kind in enumerate(kinds)]  # fmt: skip
    card = {"id": "BJ", "game": "blackjack", **MINIMAL["blackjack"]}
    loaded = _load(tmp_path, [*wheels, card])
    *roulettes, blackjack_table = loaded.config.tables
    pockets = [driver_options(t, "roulette_wheel") for t in roulettes]
    assert pockets == [{"pockets": 37}, {"pockets": 38}, {"pockets": 38}]
    assert driver_options(blackjack_table, "dealing_shoe") == {}
    assert setup_for_table(roulettes[0], 1000, 0.001, None).sectors == 8
    with pytest.raises(ValueError, match="it has no wheel to report on"):
        setup_for_table(blackjack_table, 1000, 0.001, None)
