"""floord's two Debian packages as `make deb` builds them: the table box's `floord`, with
neither the simulators nor the demo, and the rig's `floord-rig`, which adds both.

The packages are built once per session by scripts/build-deb.sh from the tree (it builds
its own wheel, as `make deb` does); installing them with dpkg needs root.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import floord

pytestmark = pytest.mark.system

ROOT = Path(__file__).resolve().parents[1]
BUILD_TIMEOUT = 300
RIG_PACKAGES = ("simulators", "floord_demo")  # in floord's environment, from floord-rig


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
def debs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """`make deb`'s script, building the tree's wheel and packaging it: the box's .deb,
    the rig's."""
    out = tmp_path_factory.mktemp("deb")
    env = {**os.environ, "OUT": str(out), "PIP": f"{sys.executable} -m pip"}
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
    """The table box's package: no simulators, no demo, no simulator unit; `floord sim`,
    `floord demo` and a simulated port say where they belong in one line."""
    assert not Path("/usr/lib/systemd/system/floord-sim@.service").exists()
    assert not Path("/etc/floord/sims").exists()
    files = _run("dpkg", "-L", "floord").stdout
    assert "floord-sim@" not in files
    for package in RIG_PACKAGES:
        assert _run("/opt/floord/bin/python", "-c", f"import {package}").returncode != 0
        assert f"/{package}/" not in files, package
    for command in (["sim", "--list"], ["demo", "--seconds", "5"]):
        done = _run("/usr/bin/floord", *command)
        assert done.returncode == 1 and "apt install floord-rig" in done.stderr, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "floord demo belongs on a test rig" in done.stderr
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
    for package in RIG_PACKAGES:
        assert _run("/opt/floord/bin/python", "-c", f"import {package}").returncode == 0
    removed = _run("dpkg", "--purge", "floord-rig")
    assert removed.returncode == 0, removed.stdout + removed.stderr
    for package in RIG_PACKAGES:
        assert not Path(f"/opt/floord/lib/python3.11/site-packages/{package}").exists()
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


@pytest.mark.skipif(_cannot_build_deb() is not None, reason=str(_cannot_build_deb()))
def test_the_deb_ships_floords_bytecode(debs: tuple[Path, Path]) -> None:
    """A box never compiles floord at start (its unit's user may not write there): the
    package holds each module's bytecode, whatever pycache prefix the build ran under."""
    names = _names(debs[0])
    modules = {n for n in names if "/site-packages/floord/" in n and n.endswith(".py")}
    compiled = {n for n in names if "/site-packages/floord/" in n and n.endswith(".pyc")}
    assert modules and len(compiled) >= len(modules), (len(modules), len(compiled))
    assert any(n.endswith("/floord/__pycache__/__init__.cpython-311.pyc") for n in compiled)


def _names(deb: Path) -> set[str]:
    listing = _run("dpkg-deb", "-c", str(deb))
    assert listing.returncode == 0, listing.stderr
    return {line.split()[-1] for line in listing.stdout.splitlines()}


@pytest.mark.skipif(_cannot_build_deb() is not None, reason=str(_cannot_build_deb()))
def test_the_simulators_and_the_demo_are_the_rigs_package_alone(
    debs: tuple[Path, Path],
) -> None:
    """floord never imports either, so the box's package leaves both out; floord-rig puts
    them in floord's environment, and the box's RECORD lists none of their files (pip
    would otherwise count them as floord's)."""
    deb, rig = debs
    box, rigs = _names(deb), _names(rig)
    for package in RIG_PACKAGES:
        assert not any(f"/site-packages/{package}/" in name for name in box), package
        assert any(name.endswith(f"/site-packages/{package}/__init__.py") for name in rigs)
    assert any(name.endswith("/site-packages/simulators/scenarios/fair.yaml") for name in rigs)
    assert any(name.endswith("/site-packages/floord_demo/tail.py") for name in rigs)
    assert not any("/site-packages/floord/" in name for name in rigs)
    record = _run("sh", "-c", f"dpkg-deb --fsys-tarfile {deb} | tar -xOf - --wildcards '*RECORD'")
    assert record.returncode == 0 and "floord/__init__.py" in record.stdout, record.stderr
    listed = record.stdout.splitlines()
    for package in RIG_PACKAGES:
        assert not any(line.startswith(f"{package}/") for line in listed), package
