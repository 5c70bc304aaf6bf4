"""A box imports only the games its config names: their table models, rules and engines.

Every game's module imported at start cost a box of roulette tables about a tenth of a
second and 2 MiB resident (`bench/startup.py`); the config's table union is built from
the games its tables name (`floord.games.registry.config_model`), and an engine is
imported when its table is built. Each case runs in a fresh interpreter, since the suite's
own process has imported every game already.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

pytestmark = pytest.mark.system

GAME_PACKAGES = {"roulette", "big_six", "blackjack", "baccarat", "stud", "carnival", "poker",
                 "war", "pai_gow", "craps"}  # fmt: skip
# Loads the config and builds each table's engine as `floord run` does; prints the games
# whose definition (floord/games/<m>.py), rules or engine (floord/engine/<m>/) were
# imported. (The wheel reports' layouts, floord/engine/roulette/layout.py, are the
# analytics' and may be imported without the game.)
SCRIPT = """
import json, sys
from floord.config.load import load_config
from floord.processes.table_units import build_engine
loaded = load_config(sys.argv[1])
for table in loaded.config.tables:
    build_engine(table, loaded, None)
games = {m.split(".")[2] for m in sys.modules if m.startswith("floord.games.")}
engines = {m.split(".")[2] for m in sys.modules
           if m.startswith("floord.engine.") and m.endswith((".engine", ".rules"))}
print(json.dumps(sorted(games | engines)))
"""


def _imported(tmp_path: Path, tables: list[dict[str, Any]]) -> set[str]:
    config = {"site": "s", "broker": {"url": "mqtt://127.0.0.1:1883"}, "journal": "j.db",
              "tables": tables}  # fmt: skip
    path = tmp_path / "floord.yaml"
    path.write_text(yaml.safe_dump(config))
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(path)],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout)) & GAME_PACKAGES


def _device(name: str, profile: str) -> dict[str, str]:
    return {"id": name, "profile": profile, "port": f"/dev/ttyUSB-{name}"}


def test_a_box_of_roulette_tables_imports_roulette_alone(tmp_path: Path) -> None:
    tables = [
        {"id": f"RL-{i}", "game": "roulette", "rules": {"wheel": "single_zero"},
         "devices": [_device("wheel", "cammegh-ss2")]}
        for i in range(3)
    ]  # fmt: skip
    assert _imported(tmp_path, tables) == {"roulette"}


def test_a_box_imports_each_game_its_config_names(tmp_path: Path) -> None:
    tables = [
        {"id": "BA", "game": "baccarat", "devices": [_device("shoe", "ref-shoe-recognition")]},
        {"id": "CR", "game": "craps", "devices": [_device("dice", "ref-dice-tracker")]},
    ]
    assert _imported(tmp_path, tables) == {"baccarat", "craps"}
