"""The tables a config can hold: one model per game, each in its game's definition.

The models live in `floord/games/` (one module per game, `registry.py` lists them);
this module is where the config's other models find them.
"""

from __future__ import annotations

from floord.games.registry import GAMES, TableConfig
from floord.games.table_model import ID_PATTERN, ID_WORDS, DeviceConfig, StrictModel

__all__ = ["GAMES", "ID_PATTERN", "ID_WORDS", "DeviceConfig", "StrictModel", "TableConfig"]
