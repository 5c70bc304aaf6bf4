"""What a game asks of a device, it asks by a typed property of the profile, never a
free look-up of its `quirks`: a misspelt key in a game would otherwise read as "the
device cannot" without a word. The properties live on `floord.profiles.DeviceProfile`.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from floord.profiles import DeviceProfile, load_profile

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[1]
# The packages that take a device's capabilities from its profile and hand them on.
ASKERS = ("floord/games", "floord/engine", "floord/table")


def _quirks_read(path: Path) -> list[int]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr == "quirks"
    ]


def test_no_game_engine_or_table_module_reads_a_profiles_quirks() -> None:
    found = {
        str(path.relative_to(ROOT)): lines
        for folder in ASKERS
        for path in sorted((ROOT / folder).rglob("*.py"))
        if (lines := _quirks_read(path))
    }
    assert found == {}, f"ask a DeviceProfile property instead of .quirks: {found}"


def test_the_check_above_finds_a_quirks_read(tmp_path: Path) -> None:
    module = tmp_path / "game.py"
    module.write_text("def dice(profile):\n    return profile.quirks.get('dice')\n")
    assert _quirks_read(module) == [2]


@pytest.mark.parametrize(
    ("name", "dice"),
    [("ref-dice-tracker", 2), ("ref-paigow-shaker", 3), ("ref-shoe-manual", None)],
)
def test_a_dice_devices_profile_says_how_many_dice_it_reads(name: str, dice: int | None) -> None:
    assert load_profile(name).dice == dice


@pytest.mark.parametrize("quirk", ["two", True, 2.0, None])
def test_a_dice_quirk_that_is_not_a_count_is_no_count(quirk: Any) -> None:
    raw = load_profile("ref-dice-tracker").model_dump()
    profile = DeviceProfile.model_validate({**raw, "quirks": {**raw["quirks"], "dice": quirk}})
    assert profile.dice is None
