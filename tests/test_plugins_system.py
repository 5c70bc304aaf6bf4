"""The example driver family plugin (examples/linewheel) as an integrator ships it: built
into a wheel from its own package, installed into a venv of its own, then held to the
catalogue and contract tests and played end to end: `floord sim` on a pty, `floord run`,
a real Mosquitto, a roulette table opened and a result recorded.

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
from e2e_support import collecting, open_table, start_daemon, start_device_sim, write_config

from floord.contract import cite

pytestmark = pytest.mark.system

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "linewheel"
POCKETS = ["17", "0", "32", "5"]


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
    # The catalogue's two and the contract's four (family whole, the import rule, fuzz,
    # payloads), for the plugin's family and its one profile.
    assert len(passed) == 6, done.stdout[-4000:]


def _scenario() -> dict[str, object]:
    spins = [{"spin": {"rotor": "cw", "ball": "ccw", "pocket": p, "seconds": 0.6}} for p in POCKETS]
    steps: list[dict[str, object]] = [{"idle": 2}]
    for _ in range(6):
        for spin in spins:
            steps += [spin, {"idle": 0.6}]
    return {"pockets": 37, "serial": "LW-4242", "steps": [*steps, {"idle": 600}]}


def test_a_table_runs_on_the_plugins_device_end_to_end(
    plugin_python: str, broker, tmp_path: Path
) -> None:
    sim, pty = start_device_sim(tmp_path, "linewheel-rw1", _scenario(), python=plugin_python)
    config = write_config(tmp_path, broker.url, pty, "single_zero", "linewheel-rw1")
    check = subprocess.run(
        [plugin_python, "-m", "floord", "check", "-c", str(config)], capture_output=True, text=True
    )
    assert check.returncode == 0, check.stdout + check.stderr
    daemon = start_daemon(config, python=plugin_python)

    async def run() -> None:
        async with collecting(broker.url) as c:
            identified = await c.event("device.identified", lambda b: b["source"] == "wheel")
            assert identified["data"]["serial"] == "LW-4242"
            assert identified["data"]["pockets"] == 37
            await open_table(broker.url)
            result = await c.event("roulette.result")
            spin = result["data"]["spin"]
            # The simulator numbers its spins from 1 and plays POCKETS in turn.
            assert result["data"]["number"] == POCKETS[(spin - 1) % len(POCKETS)], result
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
