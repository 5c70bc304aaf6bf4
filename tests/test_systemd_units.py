"""The systemd files in `systemd/`: each unit passes `systemd-analyze verify`, carries
the hardening a reviewer expects, and the sysusers/tmpfiles files are accepted by their
own tools against a throwaway root.

`verify` checks that ExecStart= binaries exist and are executable, so each unit is
copied to a temporary folder with `/usr/bin/floord` rewritten to this venv's `floord`.
"""

from __future__ import annotations

import configparser
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.system

SYSTEMD = Path(__file__).resolve().parents[1] / "systemd"
UNITS = ["floord.service", "floord-adapter@.service", "floord-sim@.service"]
DEVICE_UNITS = ["floord.service", "floord-adapter@.service"]

ANALYZE = shutil.which("systemd-analyze")
needs_analyze = pytest.mark.skipif(ANALYZE is None, reason="systemd-analyze is not installed")

# Every unit: the same no-privilege sandbox.
HARDENING = {
    "ProtectSystem": "strict",
    "NoNewPrivileges": "true",
    "PrivateTmp": "true",
    "ProtectHome": "true",
    "ProtectKernelLogs": "true",
    "ProtectKernelTunables": "true",
    "ProtectKernelModules": "true",
    "ProtectControlGroups": "true",
    "ProtectClock": "true",
    "ProtectHostname": "true",
    "RestrictNamespaces": "true",
    "RestrictRealtime": "true",
    "RestrictSUIDSGID": "true",
    "LockPersonality": "true",
    "SystemCallArchitectures": "native",
    "CapabilityBoundingSet": "",
    "UMask": "0077",
}
DEVICE_CLASSES = {"char-ttyS rw", "char-ttyUSB rw", "char-ttyACM rw", "char-usb_device rw"}


def _service(name: str) -> dict[str, list[str]]:
    """The [Service] section, each key with all its values in order (keys may repeat)."""
    values: dict[str, list[str]] = {}
    section = None
    for raw in (SYSTEMD / name).read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            section = line
            continue
        if section == "[Service]":
            key, _, value = line.partition("=")
            values.setdefault(key, []).append(value)
    return values


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
@pytest.mark.parametrize("name", UNITS)
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


@pytest.mark.parametrize("name", UNITS)
def test_unit_hardening(name: str) -> None:
    service = _service(name)
    for key, value in HARDENING.items():
        assert service.get(key) == [value], (
            f"{name}: {key}={value} expected, found {service.get(key)}"
        )
    assert "@system-service" in service["SystemCallFilter"]
    assert service["Restart"] == ["on-failure"]


@pytest.mark.parametrize("name", DEVICE_UNITS)
def test_device_units_reach_their_devices_and_nothing_else(name: str) -> None:
    service = _service(name)
    assert service["Type"] == ["notify"]
    assert service["WatchdogSec"] and int(service["WatchdogSec"][0]) > 0
    assert service["User"] == ["floord"]
    assert service["SupplementaryGroups"] == ["dialout"]
    assert service["StateDirectory"] == ["floord"]
    # PrivateDevices= would hide /dev/tty* and /dev/floord/*: the device policy does it.
    assert "PrivateDevices" not in service
    assert service["DevicePolicy"] == ["closed"]
    assert set(service["DeviceAllow"]) == DEVICE_CLASSES


def test_template_units_read_their_instance_files() -> None:
    sim = _service("floord-sim@.service")
    assert sim["EnvironmentFile"] == ["/etc/floord/sims/%i.env"]
    assert sim["ExecStart"][0].split()[1:] == [
        "sim", "${PROFILE}", "--scenario", "${SCENARIO}", "--tcp", "${TCP}", "--speed", "${SPEED}",
        "--control", "${CONTROL}",
    ]  # fmt: skip
    assert sim["Environment"] == ["SPEED=1", "CONTROL=none"]
    assert sim["RuntimeDirectory"] == ["floord-sim-%i"]
    adapter = _service("floord-adapter@.service")
    assert adapter["EnvironmentFile"] == ["/etc/floord/adapters/%i.env"]
    assert adapter["ExecStart"][0].split()[1:] == [
        "adapter", "-c", "/etc/floord/floord.yaml", "--table", "${TABLE}", "--device", "${DEVICE}",
    ]  # fmt: skip


def test_units_parse_as_ini() -> None:
    """A stray line outside a section or a broken header shows up here even without
    systemd-analyze (systemd's format allows repeated keys, so strict=False)."""
    for name in UNITS:
        parser = configparser.RawConfigParser(strict=False, interpolation=None)
        parser.optionxform = str  # type: ignore[assignment, method-assign]
        parser.read_string((SYSTEMD / name).read_text())
        assert {"Unit", "Service", "Install"} <= set(parser.sections()), name


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
    assert not (tmp_path / "etc/floord/sims").exists()  # a table box has no simulators
    create("floord-rig.tmpfiles.conf")  # the rig's package adds their folder
    sims = tmp_path / "etc/floord/sims"
    assert sims.is_dir() and (sims.stat().st_mode & 0o777) == 0o750
