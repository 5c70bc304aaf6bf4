"""The systemd files checked by systemd's own tools: `systemd-analyze verify` and
`security`, `systemd-sysusers`, `systemd-tmpfiles`. What the files must say is checked
in `test_systemd_units.py`.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_systemd_units import ANALYZE, BACKUP, SYSTEMD, TIMER, UNITS

pytestmark = pytest.mark.system


needs_analyze = pytest.mark.skipif(ANALYZE is None, reason="systemd-analyze is not installed")


def _venv_floord() -> str:
    candidate = Path(sys.executable).parent / "floord"
    assert candidate.is_file(), f"the venv's floord entry point is missing: {candidate}"
    return str(candidate)


@needs_analyze
@pytest.mark.parametrize("name", UNITS)
def test_unit_verifies(name: str, tmp_path: Path) -> None:
    text = (SYSTEMD / name).read_text()
    assert "/usr/bin/floord " in text
    (tmp_path / name).write_text(text.replace("/usr/bin/floord ", _venv_floord() + " "))
    done = subprocess.run(
        [ANALYZE, "verify", str(tmp_path / name)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    # verify only warns about unknown keys or bad values; they are faults here.
    for bad in ("Unknown key", "Unknown section", "ignoring", "Failed to parse"):
        assert bad not in output, output


@needs_analyze
def test_the_backup_units_verify(tmp_path: Path) -> None:
    """The timer and the service it starts, side by side as installed."""
    for name in (BACKUP, TIMER):
        text = (SYSTEMD / name).read_text().replace("/usr/bin/floord ", _venv_floord() + " ")
        (tmp_path / name).write_text(text)
    done = subprocess.run(
        [ANALYZE, "verify", str(tmp_path / TIMER), str(tmp_path / BACKUP)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    for bad in ("Unknown key", "Unknown section", "ignoring", "Failed to parse"):
        assert bad not in output, output


@needs_analyze
@pytest.mark.parametrize("name", [*UNITS, BACKUP])
def test_unit_exposure_is_low(name: str, tmp_path: Path) -> None:
    """`systemd-analyze security` scores the sandbox; 0 is best, 10 is no sandbox."""
    (tmp_path / name).write_text((SYSTEMD / name).read_text())
    done = subprocess.run(
        [ANALYZE, "security", "--offline=yes", "--no-pager", str(tmp_path / name)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    line = next(x for x in done.stdout.splitlines() if "Overall exposure level" in x)
    score = float(line.split(":", 1)[1].split()[0])
    assert score <= 2.5, line


@pytest.mark.skipif(shutil.which("systemd-sysusers") is None, reason="no systemd-sysusers")
def test_sysusers_makes_floord_in_dialout(tmp_path: Path) -> None:
    etc = tmp_path / "etc"
    etc.mkdir()
    (etc / "group").write_text("root:x:0:\ndialout:x:20:\n")
    (etc / "passwd").write_text("root:x:0:0:root:/root:/bin/sh\n")
    done = subprocess.run(
        ["systemd-sysusers", f"--root={tmp_path}", str(SYSTEMD / "floord.sysusers.conf")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    users = {line.split(":")[0] for line in (etc / "passwd").read_text().splitlines()}
    assert "floord" in users
    groups = {
        line.split(":")[0]: line.split(":")[3] for line in (etc / "group").read_text().splitlines()
    }
    assert "floord" in groups["dialout"].split(",")


@pytest.mark.skipif(shutil.which("systemd-tmpfiles") is None, reason="no systemd-tmpfiles")
def test_tmpfiles_makes_the_folders(tmp_path: Path) -> None:
    etc = tmp_path / "etc"
    etc.mkdir()
    (etc / "group").write_text("root:x:0:\nfloord:x:990:\n")
    (etc / "passwd").write_text("root:x:0:0:root:/root:/bin/sh\nfloord:x:990:990::/:/bin/false\n")

    def create(conf: str) -> None:
        done = subprocess.run(
            ["systemd-tmpfiles", "--create", f"--root={tmp_path}", str(SYSTEMD / conf)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr

    create("floord.tmpfiles.conf")
    state = tmp_path / "var/lib/floord"
    assert state.is_dir() and (state.stat().st_mode & 0o777) == 0o700
    assert (tmp_path / "etc/floord/adapters").is_dir()
    backups = tmp_path / "var/backups/floord"
    assert backups.is_dir() and (backups.stat().st_mode & 0o777) == 0o700
    assert not (tmp_path / "etc/floord/sims").exists()  # a table box has no simulators
    create("floord-rig.tmpfiles.conf")  # the rig's package adds their folder
    sims = tmp_path / "etc/floord/sims"
    assert sims.is_dir() and (sims.stat().st_mode & 0o777) == 0o750
