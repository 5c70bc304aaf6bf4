"""The Cammegh SS2 simulator's scenario files, arguments and wire forms, in one process.

The pty behaviour is in `test_simulator_ss2.py`, the TCP link and `run_simulator` on a
pty in `test_simulator_ss2_links_system.py`. Here: `run_simulator` refuses bad arguments;
scenario files fail naming file, key and what was found; and the frame, grammar and
statistics helpers give the reference's exact forms.
"""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from simulators.cammegh_ss2.stats import chi_squared, p_value, statistics_reply
from simulators.cammegh_ss2.wire import Status, parse_command, status_frame
from simulators.run import run_simulator
from simulators.scenario import ScenarioError, load_scenario, pocket_labels

pytestmark = pytest.mark.unit

SCENARIOS = Path(__file__).resolve().parent.parent / "simulators" / "scenarios"
FRAME = re.compile(rb"\*X;([1-7]);(\d{3});(  | \d|\d\d);([0-9A-F]);(\d{3});([01])")
HANG_S = 15.0  # a guard against a hung test, not a claim about speed


def is_frame(line: bytes) -> bool:
    return FRAME.fullmatch(line) is not None


# ----- TCP -------------------------------------------------------------------------


async def _tcp_line(reader: asyncio.StreamReader, wanted: Callable[[bytes], bool]) -> bytes:
    while True:
        line = await asyncio.wait_for(reader.readuntil(b"\r\n"), HANG_S)
        if wanted(line[:-2]):
            return line[:-2]


def test_run_simulator_refuses_bad_arguments(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("pockets: 37\nsteps:\n  - spinn: {}\n", encoding="utf-8")
    said: list[str] = []
    runs = [
        {"pty": True, "tcp": "127.0.0.1:0", "scenario_path": None},
        {"pty": False, "tcp": None, "scenario_path": None},
        {"pty": True, "tcp": None, "scenario_path": str(bad)},
        {"pty": False, "tcp": "nohost", "scenario_path": None},
    ]
    for run in runs:
        code = asyncio.run(run_simulator("cammegh-ss2", speed=1.0, announce=said.append, **run))
        assert code == 2
    assert said == []
    assert "steps.0.spinn" in capsys.readouterr().err


# ----- scenario files ----------------------------------------------------------------


@pytest.mark.parametrize("name", ["fair", "faults", "demo"])
def test_example_scenarios_load(name: str) -> None:
    loaded = load_scenario(SCENARIOS / f"{name}.yaml")
    assert loaded.steps and loaded.mode & 128


@pytest.mark.parametrize(
    ("text", "key", "found"),
    [
        ("pockets: 37\ncolour: red\n", "colour", "'red'"),
        ("steps:\n  - spin: {number: '5', speed: 3}\n", "steps.0.spin.speed", "3"),
        ("steps:\n  - spin: {number: 00}\n", "steps.0.spin.number", "the number 0"),
        ("steps:\n  - spin: {number: '00'}\n", "steps.0.spin.number", "'00'"),
        ("pockets: 39\n", "pockets", "39"),
        ("steps:\n  - {idle: 1, silence: 2}\n", "steps.0", "['idle', 'silence']"),
        ("steps:\n  - fault: {code: 9}\n", "steps.0.fault", "9"),
        ("steps:\n  - spin: {respin_number: '3'}\n", "steps.0.spin", "warn None"),
        ("steps:\n  - spin: {warn: sideways}\n", "steps.0.spin.warn", "'sideways'"),
        ('steps:\n  - raw: "a\\rb"\n', "steps.0", "'a\\rb'"),
        ("steps:\n  - idle: '3'\n", "steps.0.idle", "'3'"),
        ("mode: 1158\nloop: 'yes'\n", "loop", "'yes'"),
    ],
)
def test_scenario_errors_name_file_key_and_what_was_found(
    tmp_path: Path, text: str, key: str, found: str
) -> None:
    path = tmp_path / "wrong.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: {key}"), message
    assert f"found {found}" in message, message


def test_scenario_file_that_is_not_a_mapping_or_missing(tmp_path: Path) -> None:
    listed = tmp_path / "list.yaml"
    listed.write_text("- idle: 1\n", encoding="utf-8")
    with pytest.raises(ScenarioError, match="a mapping expected, found a list"):
        load_scenario(listed)
    with pytest.raises(ScenarioError, match="not found"):
        load_scenario(tmp_path / "absent.yaml")


# ----- the wire helpers and statistics ------------------------------------------------


def test_wire_forms_and_command_grammar() -> None:
    assert status_frame(Status(2, 1, "", 0, 158, False)) == b"*X;2;001;  ;0;158;0\r\n"
    assert status_frame(Status(5, 1, "32", 0xA, 172, True)) == b"*X;5;001;32;A;172;1\r\n"
    with pytest.raises(ValueError):
        status_frame(Status(5, 257, "3", 0, 172, True))
    assert parse_command(b"*o 1158") is not None and parse_command(b"*o 1158 ") is None
    assert parse_command(b"*T Z").arg == "Z"  # type: ignore[union-attr]


def test_chi_squared_statistics() -> None:
    labels = pocket_labels(37)
    assert abs(p_value(36.0, 36) - 0.4686) < 1e-3
    assert abs(p_value(50.998, 36) - 0.05) < 1e-3
    assert abs(p_value(3.841, 1) - 0.05) < 1e-3
    skewed = Counter({"17": 37})
    assert chi_squared(skewed, labels) == pytest.approx(36 * 37)
    assert statistics_reply(skewed, labels) == "*w 1332.00 0.0"
    assert statistics_reply(Counter({label: 2 for label in labels}), labels) == "*w 0.00 100.0"
