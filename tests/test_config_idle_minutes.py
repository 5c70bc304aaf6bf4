"""`floord check` reads `idle_minutes` (no gaming activity) through each game's engine.

§ 541.5(h) (Minibaccarat), § 571.5(f) (Mississippi Stud), § 55x.5(f) and § 561.5(g) (the
carnival games) say what is done when an open table has no gaming activity; the time is
the table's Rules Submission option. Chapters 543 and 545 in floord's sources have no such
paragraph, so a Midibaccarat or Baccarat table may not set it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from floord.config.load import ConfigError, load_config

pytestmark = pytest.mark.unit

SHOE = {"id": "shoe", "profile": "ref-shoe-recognition", "port": "/dev/ttyUSB2"}
SHUFFLER = {"id": "shuffler", "profile": "ref-shuffler-batch", "port": "/dev/ttyUSB3"}
BASE = {"site": "s", "broker": {"url": "mqtt://127.0.0.1:1883"}, "journal": "j.db"}


def _load(tmp_path: Path, tables: list[dict]) -> object:
    path = tmp_path / "floord.yaml"
    path.write_text(yaml.safe_dump({**BASE, "tables": tables}))
    return load_config(path)


def test_check_accepts_idle_minutes_where_the_chapter_has_the_paragraph(tmp_path: Path) -> None:
    tables = [
        {"id": "MB", "game": "minibaccarat", "rules": {"idle_minutes": 20}, "devices": [SHOE]},
        {"id": "MS", "game": "mississippi_stud",
         "rules": {"dealing": "manual_shoe", "idle_minutes": 30}, "devices": [SHOE, SHUFFLER]},
        {"id": "TC", "game": "three_card_poker", "rules": {"idle_minutes": 15},
         "devices": [SHUFFLER]},
    ]  # fmt: skip
    assert _load(tmp_path, tables) is not None


def test_check_refuses_idle_minutes_without_its_paragraph_or_out_of_range(tmp_path: Path) -> None:
    baccarat = [{"id": "BA", "game": "baccarat", "rules": {"idle_minutes": 20}, "devices": [SHOE]}]
    with pytest.raises(ConfigError) as caught:
        _load(tmp_path, baccarat)
    text = "\n".join(caught.value.problems)
    assert "tables.0.rules: idle_minutes is Minibaccarat's (§ 541.5(h)" in text, text
    tables = [
        {"id": "MS", "game": "mississippi_stud", "rules": {"dealing": "hand", "idle_minutes": 0},
         "devices": [SHUFFLER]},
        {"id": "TC", "game": "three_card_poker", "rules": {"idle_minutes": 5000},
         "devices": [SHUFFLER]},
    ]  # fmt: skip
    with pytest.raises(ConfigError) as caught:
        _load(tmp_path, tables)
    text = "\n".join(caught.value.problems)
    assert "tables.0.rules.idle_minutes" in text, text
    assert "tables.1.rules.idle_minutes" in text, text
