"""A dice tracker or shaker on a table of a game that has no dice is refused by `floord check`.

A game that plays no dice (every game below; Pai Gow takes its shaker, as
`tests/test_config_pai_gow.py` checks) must refuse the device rather than take its events
for the table's own: each table below passes alone and is refused with a dice device added.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from floord.config.load import ConfigError, load_config

pytestmark = pytest.mark.unit


def _device(name: str, profile: str, n: int) -> dict[str, str]:
    return {"id": name, "profile": profile, "port": f"/dev/ttyUSB{n}"}


SHUFFLER = _device("shuffler", "ref-shuffler-batch", 3)
TABLES = {
    "roulette": ({"game": "roulette", "rules": {"wheel": "single_zero"}},
                 [_device("wheel", "cammegh-ss2", 0)]),
    "big_six": ({"game": "big_six"}, [_device("bigsix", "ref-big-six", 0)]),
    "blackjack": ({"game": "blackjack", "rules": {"shuffler": "none", "decks": 6}},
                  [_device("reader", "ref-card-reader", 1), _device("shoe", "ref-shoe-manual", 2)]),
    "baccarat": ({"game": "baccarat"}, [_device("shoe", "ref-shoe-recognition", 2)]),
    "mississippi_stud": ({"game": "mississippi_stud"}, [SHUFFLER]),
    "three_card_poker": ({"game": "three_card_poker"}, [SHUFFLER]),
}  # fmt: skip
REFUSED = {
    "roulette": "a roulette wheel's profile on a roulette table expected, found '{profile}'",
    "big_six": "no dice tracker on a Big Six table expected, found 1",
    "blackjack": "0 dice tracker device(s) expected for shuffler 'none', found 1",
    "baccarat": "0 dice tracker device(s) expected for a Baccarat table, found 1",
    "mississippi_stud": "0 dice tracker device(s) expected for dealing 'hand'",
    "three_card_poker": "0 dice tracker device(s) expected for three_card_poker",
}


def _problems(tmp_path: Path, table: dict, devices: list[dict]) -> list[str]:
    config = {"site": "s", "broker": {"url": "mqtt://127.0.0.1:1883"}, "journal": "j.db",
              "tables": [{"id": "T1", **table, "devices": devices}]}  # fmt: skip
    path = tmp_path / "floord.yaml"
    path.write_text(yaml.safe_dump(config))
    try:
        load_config(path)
    except ConfigError as exc:
        return exc.problems
    return []


@pytest.mark.parametrize("profile", ["ref-dice-tracker", "ref-paigow-shaker"])
@pytest.mark.parametrize("game", sorted(TABLES))
def test_no_game_takes_a_dice_device_yet(tmp_path: Path, game: str, profile: str) -> None:
    table, devices = TABLES[game]
    assert _problems(tmp_path, table, devices) == []
    [problem] = _problems(tmp_path, table, [*devices, _device("dice", profile, 5)])
    assert REFUSED[game].format(profile=profile) in problem, problem
