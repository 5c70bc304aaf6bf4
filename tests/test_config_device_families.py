"""A device of a family a game's engine takes no events from is refused at its entry.

Every game declares the device families its engine takes events from
(`GameDefinition.families`). A device of any other family would have each of its events
recorded as an unknown device event and, being required, halt the table on its first
fault; `floord check` and `run` refuse it instead, naming the device's entry. Each table
below passes alone and is refused with a device of each other family added. The Baccarat
family's card shuffler is refused with floord's reason (58 Pa. Code § 541.4(d) needs
§ 541.3(b), which the seeds do not contain).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, get_args

import pytest
from config_support import config_problems

from floord.games.registry import definition, definitions
from floord.profiles import DeviceProfile, load_profile

pytestmark = pytest.mark.unit

FAMILIES: tuple[str, ...] = get_args(DeviceProfile.model_fields["family"].annotation)
# A profile of each family, and a second of the dice family (three dice: a Pai Gow shaker).
PROFILES = {
    "roulette_wheel": "cammegh-ss2",
    "card_reader": "ref-card-reader",
    "dealing_shoe": "ref-shoe-manual",
    "card_shuffler": "ref-shuffler-csm",
    "big_six_wheel": "ref-big-six",
    "dice_tracker": "ref-dice-tracker",
}


def _device(name: str, profile: str, n: int) -> dict[str, str]:
    return {"id": name, "profile": profile, "port": f"/dev/ttyUSB{n}"}


SHUFFLER = _device("shuffler", "ref-shuffler-csm", 3)
SHOE = _device("shoe", "ref-shoe-manual", 2)
# A table of each definition that passes `check` alone: (table, devices).
TABLES: dict[str, tuple[dict[str, Any], list[dict[str, str]]]] = {
    "roulette": ({"game": "roulette", "rules": {"wheel": "single_zero"}},
                 [_device("wheel", "cammegh-ss2", 0)]),
    "big_six": ({"game": "big_six"}, [_device("bigsix", "ref-big-six", 0)]),
    "blackjack": ({"game": "blackjack", "rules": {"shuffler": "continuous", "decks": 6}},
                  [_device("reader", "ref-card-reader", 1), SHOE, SHUFFLER]),
    "minibaccarat": ({"game": "minibaccarat"}, [_device("shoe", "ref-shoe-recognition", 2)]),
    "mississippi_stud": ({"game": "mississippi_stud", "rules": {"dealing": "manual_shoe"}},
                         [SHOE, SHUFFLER]),
    "three_card_poker": ({"game": "three_card_poker"}, [SHUFFLER]),
    "poker": ({"game": "poker"}, [SHUFFLER]),
    "war": ({"game": "war", "rules": {"shuffler": "automated"}}, [SHOE, SHUFFLER]),
    "pai_gow": ({"game": "pai_gow", "rules": {"count_order": ["dealer", 1, 2, 3, 4, 5, 6]}},
                [_device("shaker", "ref-paigow-shaker", 0)]),
    "craps": ({"game": "craps"}, [_device("tracker", "ref-dice-tracker", 0)]),
}  # fmt: skip


def _problems(tmp_path: Path, table: dict[str, Any], devices: list[dict[str, str]]) -> list[str]:
    return config_problems(tmp_path, [{"id": "T1", **table, "devices": devices}])


def test_every_game_has_a_table_here_that_uses_each_family_it_takes() -> None:
    covered = {definition(game).games for game in TABLES}
    assert {d.games for d in definitions()} == covered
    for game, (_, devices) in TABLES.items():
        used = {load_profile(d["profile"]).family for d in devices}
        assert used == definition(game).families, game


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("game", sorted(TABLES))
def test_a_device_of_a_family_the_game_does_not_take_is_refused_at_its_entry(
    tmp_path: Path, game: str, family: str
) -> None:
    table, devices = TABLES[game]
    assert _problems(tmp_path, table, devices) == []
    if family in definition(game).families:
        return
    extra = _device("extra", PROFILES[family], 5)
    [problem] = _problems(tmp_path, table, [*devices, extra])
    assert f"tables.0.devices.{len(devices)}: a " in problem, problem
    assert f"on a {game.replace('_', ' ')} table expected" in problem, problem
    assert f"found device 'extra' of profile {PROFILES[family]!r} ({family})" in problem


@pytest.mark.parametrize("game", ["roulette", "blackjack", "poker", "war", "big_six"])
def test_a_pai_gow_shaker_is_refused_where_no_dice_are_played(tmp_path: Path, game: str) -> None:
    table, devices = TABLES[game]
    [problem] = _problems(tmp_path, table, [*devices, _device("dice", "ref-paigow-shaker", 5)])
    assert "of profile 'ref-paigow-shaker' (dice_tracker)" in problem, problem


@pytest.mark.parametrize("game", ["minibaccarat", "midibaccarat", "baccarat"])
def test_a_card_shuffler_at_a_baccarat_table_is_refused_saying_why_541_4_d(
    tmp_path: Path, game: str
) -> None:
    """§ 541.4(d): "two batches of six to eight decks ... as permitted under § 541.3(b)";
    § 541.3(b) is not in the seeds, and the engine routes no shuffler event."""
    devices = [_device("shoe", "ref-shoe-recognition", 2), SHUFFLER]
    [problem] = _problems(tmp_path, {"game": game}, devices)
    assert problem == (
        f"{tmp_path / 'floord.yaml'}: tables.0.devices.1: a dealing shoe's profile on a {game} "
        "table expected (floord's policy: the Baccarat family is dealt from a stack the dealer "
        "shuffles; an automated shuffler at Minibaccarat, 58 Pa. Code § 541.4(d), needs the "
        'batches "permitted under § 541.3(b)", which floord\'s sources do not contain), '
        "found device 'shuffler' of profile 'ref-shuffler-csm' (card_shuffler)"
    )
