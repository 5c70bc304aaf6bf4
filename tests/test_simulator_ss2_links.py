"""The Cammegh SS2 simulator's other doors: TCP, `floord sim`, scenario files, wire forms.

The pty behaviour is in `test_simulator_ss2.py`. Here: the TCP link serves one client at
a time and drops it on a `disconnect` step; `run_simulator` announces where to connect
and refuses bad arguments; scenario files fail naming file, key and what was found; and
the frame, grammar and statistics helpers give the reference's exact forms.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from floord.profiles import load_profile
from simulators.cammegh_ss2.simulator import SIMULATOR, Ss2Simulator
from simulators.cammegh_ss2.stats import chi_squared, p_value, statistics_reply
from simulators.cammegh_ss2.wire import Status, parse_command, status_frame
from simulators.link import serve_tcp
from simulators.run import load_simulator, run_simulator
from simulators.scenario import Scenario, ScenarioError, Step, load_scenario, pocket_labels

pytestmark = pytest.mark.system

PROFILE = load_profile("cammegh-ss2")
SPEED = 40.0
SCENARIOS = Path(__file__).resolve().parent.parent / "simulators" / "scenarios"
FRAME = re.compile(rb"\*X;([1-7]);(\d{3});(  | \d|\d\d);([0-9A-F]);(\d{3});([01])")
VERSION = b"*V V2.50 Cammegh / Syoptic - SlingShot 2 Roulette Wheel (c) 03/12/18"
HANG_S = 15.0  # a guard against a hung test, not a claim about speed


def is_frame(line: bytes) -> bool:
    return FRAME.fullmatch(line) is not None


def scenario(*steps: Step, **settings: object) -> Scenario:
    return Scenario.model_validate({**settings, "steps": list(steps)})


# ----- TCP -------------------------------------------------------------------------


async def _tcp_line(reader: asyncio.StreamReader, wanted: Callable[[bytes], bool]) -> bytes:
    while True:
        line = await asyncio.wait_for(reader.readuntil(b"\r\n"), HANG_S)
        if wanted(line[:-2]):
            return line[:-2]


async def _tcp_client_hearing_frames(
    port: int,
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """Connect until the wheel serves us (it turns clients away while unplugged)."""
    deadline = asyncio.get_running_loop().time() + HANG_S
    while True:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            await _tcp_line(reader, is_frame)
            return reader, writer
        except asyncio.IncompleteReadError:
            writer.close()
            await writer.wait_closed()
            assert asyncio.get_running_loop().time() < deadline, "never served again"


def test_tcp_link_serves_one_client_at_a_time_and_drops_on_disconnect() -> None:
    steps = (Step(idle=40.0), Step(disconnect=8.0), Step(idle=60.0))

    async def body() -> None:
        link = await serve_tcp("127.0.0.1", 0)
        sim = Ss2Simulator(PROFILE, scenario(*steps), speed=SPEED)
        task = asyncio.create_task(sim.run(link))
        first_r, first_w = await asyncio.open_connection("127.0.0.1", link.port)
        second_r, second_w = await asyncio.open_connection("127.0.0.1", link.port)
        try:
            await _tcp_line(first_r, is_frame)
            assert await asyncio.wait_for(second_r.read(), HANG_S) == b""  # turned away
            first_w.write(b"*V\r\n")
            assert await _tcp_line(first_r, lambda ln: ln.startswith(b"*V")) == VERSION
            with pytest.raises(asyncio.IncompleteReadError):  # the disconnect step
                await _tcp_line(first_r, lambda _ln: False)
            third_r, third_w = await _tcp_client_hearing_frames(link.port)
            third_w.write(b"*S\r")
            assert await _tcp_line(third_r, lambda ln: ln.startswith(b"*S")) == b"*S V2.50"
            third_w.close()
            await third_w.wait_closed()
        finally:
            for writer in (first_w, second_w):
                writer.close()
                with contextlib.suppress(ConnectionError):
                    await writer.wait_closed()
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            await link.close()
        assert asyncio.all_tasks() == {asyncio.current_task()}

    asyncio.run(body())


def test_run_simulator_announces_and_ends_with_its_scenario(tmp_path: Path) -> None:
    path = tmp_path / "short.yaml"
    path.write_text('steps:\n  - spin: {number: "5"}\n', encoding="utf-8")
    said: list[str] = []

    async def body() -> None:
        code = await run_simulator(
            "cammegh-ss2", pty=False, tcp="127.0.0.1:0", scenario_path=str(path),
            speed=SPEED, announce=said.append,
        )  # fmt: skip
        assert code == 0
        pty_code = await run_simulator(
            "cammegh-ss2", pty=True, tcp=None, scenario_path=str(path),
            speed=SPEED, announce=said.append,
        )  # fmt: skip
        assert pty_code == 0
        assert asyncio.all_tasks() == {asyncio.current_task()}

    asyncio.run(body())
    assert re.fullmatch(r"tcp: 127\.0\.0\.1:\d+", said[0]) and said[1].startswith("pty: /dev/")
    assert load_simulator(PROFILE) is SIMULATOR is Ss2Simulator


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
