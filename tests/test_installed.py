"""floord as a table box gets it: the wheel installed (not editable) in a clean virtual
environment with the core dependencies only (the .deb: tests/test_installed_deb.py).

CI installs the source tree editable, which hides a wheel that lacks its package data or
a core install that needs an extra; these tests see floord from outside its source tree.
The wheel and the venv are built once per session (pip's cache keeps it short).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from support import Broker, free_port

import floord

pytestmark = pytest.mark.system

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "box.yaml"
EXTRAS_ONLY = ("numpy", "matplotlib", "textual", "rich", "amqtt", "aiohttp", "psycopg")
CORE = ("aiomqtt", "pyserial", "pyserial-asyncio", "pyusb", "pydantic", "structlog", "PyYAML")
BUILD_TIMEOUT = 300


def _pip(*args: str) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "-q", *args],
        check=True,
        timeout=BUILD_TIMEOUT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """floord's wheel, built from a copy of the tree (nothing written into the source)."""
    work = tmp_path_factory.mktemp("wheel")
    ignore = shutil.ignore_patterns(
        ".venv*", ".git", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis"
    )
    shutil.copytree(ROOT, work / "src", ignore=ignore)
    _pip("wheel", "--no-deps", "-w", str(work / "dist"), str(work / "src"))
    (built,) = (work / "dist").glob("floord-*.whl")
    return built


@pytest.fixture(scope="session")
def core_venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A clean venv with the wheel's core install (no extra); returns its bin folder."""
    venv = tmp_path_factory.mktemp("core") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    _pip("--python", str(venv / "bin" / "python"), "install", str(wheel))
    return venv / "bin"


def _floord(bin_dir: Path, *args: str, cwd: Path, **kw: object) -> subprocess.CompletedProcess:
    """Run the installed `floord` outside the source tree, so nothing comes from it."""
    return subprocess.run(
        [str(bin_dir / "floord"), *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=60,
        env={**os.environ, "PYTHONPATH": ""},
        **kw,  # type: ignore[arg-type]
    )


def _installed(bin_dir: Path) -> set[str]:
    code = "import importlib.metadata as m; print('\\n'.join(d.name for d in m.distributions()))"
    out = subprocess.run([str(bin_dir / "python"), "-c", code], capture_output=True, text=True)
    return {name.lower() for name in out.stdout.split()}


def test_core_install_is_what_a_box_needs(core_venv: Path) -> None:
    installed = _installed(core_venv)
    assert {name.lower() for name in CORE} <= installed
    assert not installed & set(EXTRAS_ONLY), installed & set(EXTRAS_ONLY)


def test_installed_version_and_check_of_the_example(core_venv: Path, tmp_path: Path) -> None:
    done = _floord(core_venv, "--version", cwd=tmp_path)
    assert done.stdout.strip() == f"floord {floord.__version__}"
    done = _floord(core_venv, "check", "-c", str(EXAMPLE), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ok: site example-casino" in done.stdout


@pytest.mark.parametrize(
    ("args", "extra"),
    [
        (["watch", "--broker", "mqtt://127.0.0.1:1"], "console"),
        (["report", "wheel", "-c", str(EXAMPLE), "--table", "RL-01", "--png", "x.png"], "report"),
        (["demo", "--seconds", "5"], "demo"),
    ],
)
def test_a_missing_extra_is_named_in_one_line(
    core_venv: Path, tmp_path: Path, args: list[str], extra: str
) -> None:
    env = {**os.environ, "PYTHONPATH": "", "FLOORD_DEMO_EMBEDDED_BROKER": "1"}
    done = subprocess.run(
        [str(core_venv / "floord"), *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
        env=env,
    )
    assert done.returncode == 1
    assert "Traceback" not in done.stderr + done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert f"pip install 'floord[{extra}]'" in lines[0]


def test_installed_sim_lists_the_packaged_scenarios_and_rig_example(
    core_venv: Path, tmp_path: Path
) -> None:
    done = _floord(core_venv, "sim", "--list", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert any(line.split()[:1] == ["shoe-normal"] for line in lines), lines
    example = Path(lines[-1].removeprefix("example rig config: "))
    assert example.is_file() and example.is_relative_to(core_venv.parent), example
    assert yaml.safe_load(example.read_text())["rig"] is True


def _make_plan(target: str, *assignments: str) -> list[str]:
    """The commands `make TARGET` would run (make -n), with these variables set."""
    make = ["make", "-n", "--no-print-directory", "-C", str(ROOT), target, "PYTHON=python3"]
    done = subprocess.run(
        [*make, *assignments],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


@pytest.mark.skipif(shutil.which("make") is None, reason="no make")
def test_make_demo_and_deb_build_their_own_small_environments(tmp_path: Path) -> None:
    """`make demo` installs the demo's extras only, `make deb` pip alone; `make test`
    keeps the tests' .venv."""
    demo = _make_plan("demo", f"DEMO_VENV={tmp_path}/demo")
    extras = "EXTRAS=console,demo,web"
    assert f"PYTHON=python3 VENV={tmp_path}/demo {extras} bash scripts/bootstrap-venv.sh" in demo
    assert demo[-1].startswith(f"{tmp_path}/demo/bin/floord demo"), demo
    deb = _make_plan("deb", f"BUILD_VENV={tmp_path}/build")
    assert f"PYTHON=python3 VENV={tmp_path}/build EXTRAS=none bash scripts/bootstrap-venv.sh" in deb
    assert deb[-1] == f"VENV={tmp_path}/build bash scripts/build-deb.sh", deb
    test = _make_plan("test", f"VENV={tmp_path}/tests")
    assert f"PYTHON=python3 VENV={tmp_path}/tests bash scripts/bootstrap-venv.sh" in test


@pytest.fixture(scope="session")
def demo_venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel with the extras `make demo` installs (read from its plan): bin folder."""
    plan = " ".join(_make_plan("demo", "DEMO_VENV=/nonexistent/demo"))
    extras = plan.split("EXTRAS=", 1)[1].split()[0]
    venv = tmp_path_factory.mktemp("demo") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    _pip("--python", str(venv / "bin" / "python"), "install", f"{wheel}[{extras}]")
    return venv / "bin"


@pytest.mark.skipif(shutil.which("make") is None, reason="no make")
def test_the_demo_runs_on_its_extras_alone(demo_venv: Path, tmp_path: Path) -> None:
    """No test tool, no report extra: the demo floor plays on the embedded broker."""
    installed = _installed(demo_venv)
    assert {"textual", "amqtt", "aiohttp"} <= installed
    assert not installed & {"pytest", "scipy", "matplotlib", "mypy", "hypothesis"}, installed
    env = {**os.environ, "PYTHONPATH": "", "FLOORD_DEMO_EMBEDDED_BROKER": "1"}
    done = subprocess.run(
        [str(demo_venv / "floord"), "demo", "--seconds", "8"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
        env=env,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "embedded amqtt" in done.stdout.splitlines()[0]
    for kind in ("device.identified", "operator.inspection", "daemon.stopped"):
        assert f" {kind} " in done.stdout, kind
    assert "floord demo: stopped after" in done.stdout


def _results(journal: Path) -> list[dict]:
    if not journal.exists():
        return []
    try:
        with contextlib.closing(sqlite3.connect(f"file:{journal}?mode=ro", uri=True)) as db:
            rows = db.execute("SELECT body FROM events ORDER BY stream, seq").fetchall()
    except sqlite3.OperationalError:  # the daemon is still creating it
        return []
    return [json.loads(body) for (body,) in rows]


def _a_spin_ended(types: list[str]) -> bool:
    launched = types.index("wheel.ball_launched") if "wheel.ball_launched" in types else None
    return launched is not None and "wheel.number" in types[launched:]


@pytest.fixture
def installed_sim(core_venv: Path, tmp_path: Path) -> Iterator[str]:
    """`floord sim cammegh-ss2 --tcp` from the core venv; yields its socket:// port."""
    port = free_port()
    # The packaged scenario by its name: nothing from the source tree.
    args = ["sim", "cammegh-ss2", "--tcp", f"127.0.0.1:{port}", "--scenario", "fair"]
    sim = subprocess.Popen(
        [str(core_venv / "floord"), *args, "--speed", "20"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=tmp_path,
    )
    try:
        assert sim.stdout is not None
        line = sim.stdout.readline().strip()
        assert line.startswith("tcp: "), line
        yield f"socket://127.0.0.1:{port}"
    finally:
        sim.kill()
        sim.wait()
        if sim.stdout:
            sim.stdout.close()


def test_installed_daemon_journals_the_simulated_wheel(
    core_venv: Path, installed_sim: str, broker: Broker, tmp_path: Path
) -> None:
    config = yaml.safe_load(EXAMPLE.read_text())
    config["broker"] = {"url": broker.url}
    config["journal"] = str(tmp_path / "journal.db")
    (tmp_path / "keys").mkdir()
    (tmp_path / "keys" / "FP-1001.key").write_text("installed-test-key\n")
    config["tables"] = [
        {
            "id": "RL-01",
            "game": "roulette",
            "rules": {"wheel": "single_zero"},
            "devices": [{"id": "wheel", "profile": "cammegh-ss2", "port": installed_sim}],
        }
    ]
    path = tmp_path / "floord.yaml"
    path.write_text(yaml.safe_dump(config))
    daemon = subprocess.Popen(
        [str(core_venv / "floord"), "run", "-c", str(path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
    )
    try:
        deadline = time.monotonic() + 30
        types: list[str] = []
        while time.monotonic() < deadline and daemon.poll() is None:
            types = [event["type"] for event in _results(tmp_path / "journal.db")]
            if _a_spin_ended(types):
                break
            time.sleep(0.3)
        # The profile, the driver and the journal of an installed floord at work: the
        # wheel came online and a spin's number was journaled after its launch.
        assert "device.online" in types
        assert _a_spin_ended(types), types
    finally:
        daemon.terminate()
        try:
            daemon.wait(15)
        except subprocess.TimeoutExpired:
            daemon.kill()
            daemon.wait()
        assert daemon.stderr is not None
        stderr = daemon.stderr.read().decode()
        daemon.stderr.close()
    assert "Traceback" not in stderr, stderr
