"""The systemd files in `systemd/`, as text: each unit carries the hardening a reviewer
expects, device units reach their devices and nothing else, template units read their
instance files, and every file parses. systemd's own tools (`systemd-analyze verify`
and `security`, sysusers, tmpfiles) check them in `test_systemd_units_system.py`.
"""

from __future__ import annotations

import configparser
import shutil
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

SYSTEMD = Path(__file__).resolve().parents[1] / "systemd"
UNITS = ["floord.service", "floord-adapter@.service", "floord-sim@.service"]
DEVICE_UNITS = ["floord.service", "floord-adapter@.service"]

ANALYZE = shutil.which("systemd-analyze")

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
