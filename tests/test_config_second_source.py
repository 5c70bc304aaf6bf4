"""A roulette table's `second_source:` setting, read strictly: one line per mistake."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from config_support import config_problems

pytestmark = pytest.mark.unit

WHEEL = {"id": "wheel", "profile": "cammegh-ss2", "port": "/dev/ttyUSB0"}
KIT = {"id": "kit", "profile": "ref-wheel-sensor", "port": "/dev/ttyUSB1"}


def check(tmp_path: Path, source: Any, devices: list[dict[str, Any]] | None = None) -> list[str]:
    table = {
        "id": "RL-01",
        "game": "roulette",
        "rules": {"wheel": "single_zero"},
        "devices": devices or [WHEEL],
        "second_source": source,
    }
    return config_problems(tmp_path, [table])


def test_a_dealer_call_or_a_wheel_device_of_the_table(tmp_path: Path) -> None:
    assert check(tmp_path, {"command": "dealer_call"}) == []
    assert check(tmp_path, {"command": "dealer_call", "window_s": 2.5, "on_silence": "warn"}) == []
    assert check(tmp_path, {"device": "kit", "on_silence": "hold"}, [WHEEL, KIT]) == []


@pytest.mark.parametrize(
    ("source", "words"),
    [
        ({}, "second_source: a device or command: dealer_call expected"),
        ({"device": "kit", "command": "dealer_call"}, "exactly one of them"),
        ({"command": "shout"}, "second_source.command"),
        ({"command": "dealer_call", "window_s": 0}, "second_source.window_s"),
        ({"command": "dealer_call", "window_s": 601}, "second_source.window_s"),
        ({"command": "dealer_call", "on_silence": "ignore"}, "second_source.on_silence"),
        ({"command": "dealer_call", "camera": "x"}, "second_source.camera"),
    ],
)
def test_each_mistake_is_one_line_naming_the_key(
    tmp_path: Path, source: dict[str, Any], words: str
) -> None:
    problems = check(tmp_path, source)
    assert len(problems) == 1, problems
    assert words in problems[0] and "\n" not in problems[0]


def test_the_device_must_be_a_wheel_of_the_table(tmp_path: Path) -> None:
    [missing] = check(tmp_path, {"device": "camera"})
    assert "second_source.device: a device of this table expected, found 'camera'" in missing
    problems = check(tmp_path, {"device": "wheel"})
    assert any("exactly one roulette wheel device besides the second source" in p for p in problems)


def test_a_big_six_table_takes_one_too(tmp_path: Path) -> None:
    wheel = {"id": "bigsix", "profile": "ref-big-six", "port": "/dev/ttyUSB4"}
    camera = {"id": "camera", "profile": "ref-big-six", "port": "/dev/ttyUSB5"}
    table = {"id": "B6", "game": "big_six", "devices": [wheel, camera]}
    source = {"device": "camera", "on_silence": "warn"}
    assert config_problems(tmp_path, [{**table, "second_source": source}]) == []
    [problem] = config_problems(tmp_path, [table])
    assert "exactly one big six wheel device expected, found 2" in problem
    wrong = config_problems(
        tmp_path, [{**table, "devices": [wheel, KIT], "second_source": {"device": "kit"}}]
    )
    assert any("second_source.device: a big six wheel device expected" in p for p in wrong)


def test_a_craps_table_takes_one_too(tmp_path: Path) -> None:
    tracker = {"id": "dice", "profile": "ref-dice-tracker", "port": "/dev/ttyUSB6"}
    table = {"id": "CR", "game": "craps", "devices": [tracker]}
    source = {"command": "dealer_call", "on_silence": "hold"}
    assert config_problems(tmp_path, [{**table, "second_source": source}]) == []


def test_a_baccarat_table_takes_the_dealers_call_only(tmp_path: Path) -> None:
    shoe = {"id": "shoe", "profile": "ref-shoe-recognition", "port": "/dev/ttyUSB7"}
    table = {"id": "BA", "game": "baccarat", "devices": [shoe]}
    call = {"command": "dealer_call"}
    assert config_problems(tmp_path, [{**table, "second_source": call}]) == []
    [refused] = config_problems(tmp_path, [{**table, "second_source": {"device": "shoe"}}])
    assert "second_source.device: command: dealer_call expected at a Baccarat table" in refused
