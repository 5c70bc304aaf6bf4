"""`floord demo` is floord's command, but the demo is a rig's package (`floord_demo`, in
`floord-rig` beside the simulators): the command finds it installed and loads it by name.

Where the demo or the simulators are missing, as on a table box, the command stops with
one line naming the rig's package, before anything starts; where both are installed it
hands its options to `floord_demo.run_demo` unchanged.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

import floord_demo
from floord.cli.main import main
from floord.system.extras import MissingExtra, require_demo

pytestmark = pytest.mark.unit


def _hide(monkeypatch: pytest.MonkeyPatch, *names: str) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name in names else real(name, *a)
    )


@pytest.mark.parametrize(
    ("hidden", "named"),
    [
        (("floord_demo",), "floord_demo is not installed"),
        (("simulators",), "simulators is not installed"),
        (("floord_demo", "simulators"), "floord_demo and simulators are not installed"),
    ],
)
def test_a_box_without_the_rigs_packages_is_told_in_one_line(
    monkeypatch: pytest.MonkeyPatch, hidden: tuple[str, ...], named: str
) -> None:
    _hide(monkeypatch, *hidden)
    with pytest.raises(MissingExtra) as stopped:
        main(["demo", "--seconds", "5"])
    message = str(stopped.value.code)
    assert message.count("\n") == 0, message
    assert message.startswith(f"floord demo belongs on a test rig: {named}"), message
    assert "apt install floord-rig" in message


def test_the_check_passes_where_both_are_installed() -> None:
    require_demo("floord demo")  # the test venv has the wheel's packages, the rig's too


def test_the_command_hands_its_options_to_the_demo(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    seen: dict[str, Any] = {}

    async def run_demo(**options: Any) -> int:
        seen.update(options)
        return 0

    monkeypatch.setattr(floord_demo, "run_demo", run_demo)
    journal = tmp_path / "demo.db"
    args = ["--seconds", "7", "--speed", "2", "--seed", "11", "--journal", str(journal)]
    assert main(["demo", *args]) == 0
    assert seen == {
        "seconds": 7.0,
        "broker_url": None,
        "speed": 2.0,
        "journal": journal.resolve(),
        "seed": 11,
    }
