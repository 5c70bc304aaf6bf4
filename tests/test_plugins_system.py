"""The example driver family plugin (examples/linewheel) as an integrator ships it: built
into a wheel from its own package, installed into a venv of its own, then held to the
catalogue and contract tests and played end to end: `floord sim` on a pty playing the
plugin's own scenario by name (`floord sim --list` names it with its package), `floord
run`, a real Mosquitto, a roulette table opened and a result recorded, and the table's
`daemon.started` naming the plugin's package as the one its wheel's driver came from.

The venv is made for the test and holds only the plugin; floord and its libraries come
from the tests' own environment, added as a site directory (a `.pth` file), so nothing
is fetched and the plugin reaches floord exactly as installed. Building needs no network
either (`--no-build-isolation`, the test environment's setuptools).
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
import yaml
from e2e_support import collecting, open_table, start_daemon, start_device_sim, write_config

import floord
from floord.contract import cite

pytestmark = pytest.mark.system

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "linewheel"
PLUGIN = "floord-linewheel 1.0.0"
SCENARIO = "linewheel-spins"


def _pip(*args: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pip", "-q", *args], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture(scope="module")
def plugin_python(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The python of a new venv with the example plugin installed from its own wheel."""
    work = tmp_path_factory.mktemp("plugin")
    ignore = shutil.ignore_patterns("build", "dist", "*.egg-info", "__pycache__")
    shutil.copytree(EXAMPLE, work / "src", ignore=ignore)
    build = ["wheel", "--no-deps", "--no-build-isolation", "--no-index"]
    _pip(*build, "-w", str(work / "dist"), str(work / "src"))
    (wheel,) = (work / "dist").glob("floord_linewheel-*.whl")
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    ours = sysconfig.get_path("purelib")
    (Path(purelib) / "floord-tests.pth").write_text(f"import site; site.addsitedir({ours!r})\n")
    # Its dependencies (floord, pydantic, PyYAML) are found installed: nothing is fetched.
    _pip("--python", python, "install", "--no-index", str(wheel))
    return python


def test_the_plugin_is_installed_from_its_own_package(plugin_python: str, tmp_path: Path) -> None:
    code = (
        "import importlib.metadata as m, floord_linewheel;"
        "print(m.distribution('floord-linewheel').version, floord_linewheel.__file__)"
    )
    done = subprocess.run([plugin_python, "-c", code], capture_output=True, text=True, cwd=tmp_path)
    version, where = done.stdout.split()
    assert version == "1.0.0"
    # The wheel's copy in the plugin's own venv, not the source tree's.
    assert Path(where).is_relative_to(Path(plugin_python).parents[1]), where


def test_the_plugin_passes_the_catalogue_and_contract_tests(plugin_python: str) -> None:
    files = ["tests/test_device_catalogue.py", "tests/test_family_contract.py"]
    done = subprocess.run(
        [plugin_python, "-m", "pytest", "-p", "no:cacheprovider", "-n", "0", "-v", *files],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    passed = [line for line in done.stdout.splitlines() if "linewheel" in line and "PASSED" in line]
    # The catalogue's two and its one for each of the two scenarios the family ships, and
    # the contract's four (family whole, the import rule, fuzz, payloads), for the
    # plugin's family and its one profile.
    assert len(passed) == 8, done.stdout[-4000:]


@pytest.fixture(scope="module")
def plugin_scenarios(plugin_python: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`floord sim --list` in the plugin's venv: floord's scenarios and the plugin's, each
    with its package; the folder of the plugin's, as installed."""
    done = subprocess.run(
        [plugin_python, "-m", "floord", "sim", "--list"],
        capture_output=True,
        text=True,
        cwd=tmp_path_factory.mktemp("list"),
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    rows = {line.split()[0]: " ".join(line.split()[1:3]) for line in lines if "  " in line}
    assert rows["linewheel-spins"] == PLUGIN, lines
    assert rows["linewheel-faults"] == PLUGIN, lines
    assert rows["fair"] == f"floord {floord.__version__}", lines
    [folder] = [
        Path(line.removeprefix("scenarios: ").removesuffix(f" ({PLUGIN})"))
        for line in lines
        if line.startswith("scenarios: ") and line.endswith(f"({PLUGIN})")
    ]
    # The installed wheel's copy, in the plugin's own venv.
    assert folder.is_relative_to(Path(plugin_python).parents[1]), folder
    return folder


def test_sim_lists_the_plugins_scenarios_with_its_package(plugin_scenarios: Path) -> None:
    shipped = sorted(p.name for p in plugin_scenarios.glob("*.yaml"))
    assert shipped == ["linewheel-faults.yaml", "linewheel-spins.yaml"]


def test_a_table_runs_on_the_plugins_device_end_to_end(
    plugin_python: str, plugin_scenarios: Path, broker, tmp_path: Path
) -> None:
    """The simulator plays the plugin's shipped scenario, found by its name."""
    script = yaml.safe_load((plugin_scenarios / f"{SCENARIO}.yaml").read_text())
    pockets = [step["spin"]["pocket"] for step in script["steps"] if "spin" in step]
    sim, pty = start_device_sim(
        tmp_path, "linewheel-rw1", SCENARIO, speed=4.0, python=plugin_python
    )
    config = write_config(tmp_path, broker.url, pty, "single_zero", "linewheel-rw1")
    check = subprocess.run(
        [plugin_python, "-m", "floord", "check", "-c", str(config)], capture_output=True, text=True
    )
    assert check.returncode == 0, check.stdout + check.stderr
    daemon = start_daemon(config, python=plugin_python)

    async def run() -> None:
        async with collecting(broker.url) as c:
            daemon_started = await c.event("daemon.started")
            assert daemon_started["data"]["drivers"]["wheel"] == {
                "driver": "linewheel.wheel",
                "module": "floord_linewheel.driver.wheel",
                "family": "linewheel",
                "distribution": "floord-linewheel",
                "version": "1.0.0",
            }
            assert daemon_started["data"]["profiles"]["wheel"]["origin"] == "plugin"
            identified = await c.event("device.identified", lambda b: b["source"] == "wheel")
            assert identified["data"]["serial"] == script["serial"]
            assert identified["data"]["pockets"] == script["pockets"]
            await open_table(broker.url)
            result = await c.event("roulette.result")
            spin = result["data"]["spin"]
            # The simulator numbers its spins from 1 and plays the scenario's in turn.
            assert result["data"]["number"] == pockets[spin - 1], result
            assert result["rule"] == cite("531.5(a)")
            opened = c.events(c.table.events)
            started = [
                b for b in opened if b["type"] == "round.started" and b["round"] == result["round"]
            ]
            assert started and started[0]["data"]["spin"] == spin
            device = c.events(c.table.device_events("wheel"))
            number = [
                b for b in device if b["type"] == "wheel.number" and b["data"]["spin"] == spin
            ]
            assert number and number[0]["data"]["origin"] == "sensor"

    try:
        asyncio.run(run())
    finally:
        try:
            assert daemon.terminate() == 0
        finally:
            sim.kill()
