"""floord as a table box gets it: the wheel installed (not editable) in a clean virtual
environment with the core dependencies only, and the .deb installed with dpkg.

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


def _root_with_dpkg() -> str | None:
    """Why the .deb cannot be tried here, or None when it can."""
    if shutil.which("dpkg-deb") is None or shutil.which("dpkg") is None:
        return "no dpkg-deb/dpkg: not a Debian machine"
    if os.geteuid() != 0:
        return "dpkg -i needs root"
    if not Path("/usr/bin/python3.11").is_file():
        return "the .deb's venv needs Debian's /usr/bin/python3.11"
    return None


@pytest.fixture(scope="session")
def debs(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """`make deb`'s script, packaging the session's wheel: the box's .deb, the rig's."""
    out = tmp_path_factory.mktemp("deb")
    env = {**os.environ, "WHEEL": str(wheel), "OUT": str(out), "PIP": f"{sys.executable} -m pip"}
    done = subprocess.run(
        ["bash", str(ROOT / "scripts" / "build-deb.sh")],
        capture_output=True,
        text=True,
        env=env,
        timeout=BUILD_TIMEOUT,
    )
    assert done.returncode == 0, done.stderr
    box, rig = done.stdout.strip().splitlines()[-2:]
    return Path(box), Path(rig)


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True, timeout=120, cwd="/")


@pytest.mark.skipif(_root_with_dpkg() is not None, reason=str(_root_with_dpkg()))
def test_deb_installs_a_box_that_checks_and_purges_clean(
    debs: tuple[Path, Path], tmp_path: Path
) -> None:
    deb, rig_deb = debs
    if _run("dpkg-query", "-W", "floord").returncode == 0:
        pytest.skip("a floord package is already installed here; the test leaves it alone")
    had_user = _run("getent", "passwd", "floord").returncode == 0
    had_state = Path("/var/lib/floord").exists()
    had_backups = Path("/var/backups/floord").exists()
    units = Path("/usr/lib/systemd/system")
    try:
        done = _run("dpkg", "-i", str(deb))
        assert done.returncode == 0, done.stdout + done.stderr
        assert "systemctl enable --now floord" in done.stdout  # configured first, not started
        assert "systemctl enable --now floord-backup.timer" in done.stdout  # nor enabled
        assert _run("/usr/bin/floord", "--version").stdout.strip() == f"floord {floord.__version__}"
        done = _run("/usr/bin/floord", "check", "-c", "/etc/floord/floord.yaml")
        assert done.returncode == 0, done.stdout + done.stderr
        conffiles = _run("dpkg-query", "-W", "-f=${Conffiles}", "floord").stdout
        assert "/etc/floord/floord.yaml" in conffiles
        _assert_the_site_profiles_folder(conffiles)
        assert {"/etc/default/floord-backup", "/etc/floord/archive.yaml"} <= set(conffiles.split())
        done = _run("/usr/bin/floord", "archive", "-c", "/etc/floord/archive.yaml", "--check")
        assert done.returncode == 0, done.stdout + done.stderr  # the archive's example config
        assert _run("/opt/floord/bin/python", "-c", "import psycopg").returncode == 0
        backups = Path("/var/backups/floord")
        assert backups.stat().st_mode & 0o777 == 0o700
        assert backups.owner() == "floord"
        key = Path("/etc/floord/keys/FP-1001.key")
        assert key.stat().st_mode & 0o777 == 0o640
        assert key.read_text().strip() != (ROOT / "examples/keys/FP-1001.key").read_text().strip()
        for module in ("textual", "matplotlib", "amqtt", "numpy"):
            probe = _run("/opt/floord/bin/python", "-c", f"import {module}")
            assert probe.returncode != 0, f"{module} is in the box's core install"
        units = Path("/usr/lib/systemd/system")
        for unit in ("floord.service", "floord-adapter@RL-01-wheel.service"):
            _assert_unit_verifies(units / unit)
        _assert_unit_verifies(units / "floord-backup.timer")
        _assert_unit_verifies(units / "floord-archive.service")
        _assert_the_box_has_no_simulators(tmp_path)
        _assert_the_rig_package_adds_them(rig_deb, tmp_path)
    finally:
        _run("dpkg", "--purge", "floord-rig")
        purged = _run("dpkg", "--purge", "floord")
        if not had_user:
            _run("userdel", "floord")
        if not had_state:
            shutil.rmtree("/var/lib/floord", ignore_errors=True)
        if not had_backups:
            shutil.rmtree("/var/backups/floord", ignore_errors=True)
    assert purged.returncode == 0, purged.stdout + purged.stderr
    for gone in ("/opt/floord", "/etc/floord", "/usr/bin/floord", units / "floord.service"):
        assert not Path(gone).exists(), gone


def _assert_the_site_profiles_folder(conffiles: str) -> None:
    """/etc/floord/profiles: made by the package (its README a conffile), holding no
    profile, and the site `floord profiles list` and `floord run` read by default."""
    site = Path("/etc/floord/profiles")
    assert (site / "README").is_file() and not list(site.glob("*.yaml"))
    assert "/etc/floord/profiles/README" in conffiles
    done = _run("/usr/bin/floord", "profiles", "list", "-c", "/etc/floord/floord.yaml")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "site: /etc/floord/profiles" in done.stdout.splitlines()
    assert " site " not in done.stdout  # every profile listed is a packaged one


def _assert_unit_verifies(unit: Path) -> None:
    done = _run("systemd-analyze", "verify", str(unit))
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    for bad in ("Unknown key", "Unknown section", "ignoring", "Failed to", "not found"):
        assert bad not in output, output


def _rig_config(tmp_path: Path) -> Path:
    """A rig's config on the box: a Baccarat table whose shoe is simulated in the daemon."""
    scenario = tmp_path / "usb-shoe.yaml"
    scenario.write_text(yaml.safe_dump({"profile": "ref-usb-shoe", "steps": [{"wait": 1}]}))
    body = yaml.safe_load(Path("/etc/floord/floord.yaml").read_text())
    body["rig"] = True
    body["journal"] = str(tmp_path / "journal.db")
    for op in body["operators"]:
        op["key_file"] = str(Path("/etc/floord") / op["key_file"])
    shoe = {"id": "shoe", "profile": "ref-usb-shoe", "port": f"usb://sim:{scenario}"}
    body["tables"] = [{"id": "BA-01", "game": "baccarat", "devices": [shoe]}]
    path = tmp_path / "rig.yaml"
    path.write_text(yaml.safe_dump(body))
    return path


def _assert_the_box_has_no_simulators(tmp_path: Path) -> None:
    """The table box's package: no simulators, no simulator unit; `floord sim` and a
    simulated port say where they belong in one line."""
    assert not Path("/usr/lib/systemd/system/floord-sim@.service").exists()
    assert not Path("/etc/floord/sims").exists()
    assert _run("/opt/floord/bin/python", "-c", "import simulators").returncode != 0
    files = _run("dpkg", "-L", "floord").stdout
    assert "/simulators/" not in files and "floord-sim@" not in files
    done = _run("/usr/bin/floord", "sim", "--list")
    assert done.returncode == 1 and "apt install floord-rig" in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    done = _run("/usr/bin/floord", "check", "-c", str(_rig_config(tmp_path)))
    assert done.returncode == 1
    assert "the device simulators are not installed (a rig's Debian package: floord-rig)" in (
        done.stdout
    )


def _assert_the_rig_package_adds_them(rig_deb: Path, tmp_path: Path) -> None:
    done = _run("dpkg", "-i", str(rig_deb))
    assert done.returncode == 0, done.stdout + done.stderr
    _assert_unit_verifies(Path("/usr/lib/systemd/system/floord-sim@rig.service"))
    assert Path("/etc/floord/sims").is_dir()
    example = Path("/usr/share/doc/floord-rig/examples/rig.yaml")
    assert yaml.safe_load(example.read_text())["rig"] is True
    done = _run("/usr/bin/floord", "sim", "--list")
    assert done.returncode == 0, done.stderr
    assert "shoe-normal" in done.stdout
    done = _run("/usr/bin/floord", "check", "-c", str(_rig_config(tmp_path)))
    assert done.returncode == 0, done.stdout + done.stderr
    removed = _run("dpkg", "--purge", "floord-rig")
    assert removed.returncode == 0, removed.stdout + removed.stderr
    assert not Path("/opt/floord/lib/python3.11/site-packages/simulators").exists()
    assert _run("/usr/bin/floord", "--version").returncode == 0  # the box is whole again


def _cannot_build_deb() -> str | None:
    """Why `make deb`'s script cannot run here, or None when it can (no root needed)."""
    if shutil.which("dpkg-deb") is None:
        return "no dpkg-deb: not a Debian machine"
    if not Path("/usr/bin/python3.11").is_file():
        return "the .deb's venv needs Debian's /usr/bin/python3.11"
    return None


@pytest.mark.skipif(_cannot_build_deb() is not None, reason=str(_cannot_build_deb()))
def test_the_deb_is_versioned_as_the_package(debs: tuple[Path, Path]) -> None:
    deb, rig = debs
    control = _run("dpkg-deb", "--field", str(deb), "Package", "Version")
    assert control.returncode == 0, control.stderr
    assert control.stdout.split() == ["Package:", "floord", "Version:", floord.__version__]
    assert deb.name.startswith(f"floord_{floord.__version__}_")
    assert rig.name.startswith(f"floord-rig_{floord.__version__}_")


@pytest.mark.skipif(_cannot_build_deb() is not None, reason=str(_cannot_build_deb()))
def test_the_deb_ships_the_backup_timer_and_its_settings(debs: tuple[Path, Path]) -> None:
    """The daily backup's units and its settings file, a conffile; its folder is made by
    the tmpfiles line the .deb installs (test_systemd_units_system.py)."""
    deb, _ = debs
    listing = _run("dpkg-deb", "-c", str(deb))
    assert listing.returncode == 0, listing.stderr
    names = {line.split()[-1] for line in listing.stdout.splitlines()}
    for unit in ("floord-backup.service", "floord-backup.timer"):
        assert f"./usr/lib/systemd/system/{unit}" in names
    assert "./etc/default/floord-backup" in names
    conffiles = _run("dpkg-deb", "--info", str(deb), "conffiles")
    assert "/etc/default/floord-backup" in conffiles.stdout.split()
    tmpfiles = (ROOT / "systemd" / "floord.tmpfiles.conf").read_text()
    assert "d /var/backups/floord 0700 floord floord -" in tmpfiles


@pytest.mark.skipif(_cannot_build_deb() is not None, reason=str(_cannot_build_deb()))
def test_the_deb_ships_the_web_console(debs: tuple[Path, Path]) -> None:
    """`floord web`'s unit (not enabled), its config as a conffile, and aiohttp (the web
    extra) in the package's environment."""
    deb, _ = debs
    listing = _run("dpkg-deb", "-c", str(deb))
    names = {line.split()[-1] for line in listing.stdout.splitlines()}
    assert "./usr/lib/systemd/system/floord-web.service" in names
    assert "./etc/floord/web.yaml" in names
    assert any("/site-packages/aiohttp/" in name for name in names)
    assert any(name.endswith("/floord/web/static/floor.js") for name in names)
    conffiles = _run("dpkg-deb", "--info", str(deb), "conffiles")
    assert "/etc/floord/web.yaml" in conffiles.stdout.split()
