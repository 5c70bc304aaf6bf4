"""Test support: what `floord check` says of a config holding the given tables."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from floord.config.load import ConfigError, load_config


def config_problems(folder: Path, tables: list[dict[str, Any]]) -> list[str]:
    """`load_config`'s problems with a box of these tables (one site, one broker), written
    to `folder/floord.yaml`; [] when it loads."""
    config = {"site": "s", "broker": {"url": "mqtt://127.0.0.1:1883"}, "journal": "j.db",
              "tables": tables}  # fmt: skip
    path = folder / "floord.yaml"
    path.write_text(yaml.safe_dump(config))
    try:
        load_config(path)
    except ConfigError as exc:
        return exc.problems
    return []
