"""The systemd files in `systemd/`, as text: each unit carries the hardening a reviewer
expects, device units reach their devices and nothing else, template units read their
instance files, the backup timer runs the command its settings give, and every file
parses. systemd's own tools (`systemd-analyze verify`
and `security`, sysusers, tmpfiles) check them in `test_systemd_units_system.py`.
"""

from __future__ import annotations

import configparser
import shlex
import shutil
import sysconfig
from pathlib import Path

import pytest

from floord.cli.main import main
from floord.journal.backup import kept_backups
from floord.journal.store import Journal

pytestmark = pytest.mark.unit

SYSTEMD = Path(__file__).resolve().parents[1] / "systemd"
UNITS = [
    "floord.service",
    "floord-adapter@.service",
    "floord-sim@.service",
    "floord-web.service",
    "floord-archive.service",
]
DEVICE_UNITS = ["floord.service", "floord-adapter@.service"]
BACKUP = "floord-backup.service"
TIMER = "floord-backup.timer"
DEFAULTS = SYSTEMD / "floord-backup.default"

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


def _service(name: str, wanted: str = "[Service]") -> dict[str, list[str]]:
    """The [Service] section (or `wanted`), each key with all its values in order (keys
    may repeat)."""
    values: dict[str, list[str]] = {}
    section = None
    for raw in (SYSTEMD / name).read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            section = line
            continue
        if section == wanted:
            key, _, value = line.partition("=")
            values.setdefault(key, []).append(value)
    return values


@pytest.mark.parametrize("name", [*UNITS, BACKUP])
def test_unit_hardening(name: str) -> None:
    service = _service(name)
    for key, value in HARDENING.items():
        assert service.get(key) == [value], (
            f"{name}: {key}={value} expected, found {service.get(key)}"
        )
    assert "@system-service" in service["SystemCallFilter"]
    if name != BACKUP:  # a oneshot that failed waits for the next day, not a restart loop
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


def test_the_archive_checks_then_runs_as_floord_on_the_network_only() -> None:
    archive = _service("floord-archive.service")
    assert archive["Type"] == ["notify"] and archive["User"] == ["floord"]
    config = "-c /etc/floord/archive.yaml"
    assert archive["ExecStartPre"] == [f"/usr/bin/floord archive {config} --check"]
    assert archive["ExecStart"] == [f"/usr/bin/floord archive {config}"]
    assert archive["StateDirectory"] == ["floord-archive"]
    assert archive["PrivateDevices"] == ["true"] and "DeviceAllow" not in archive
    assert int(archive["WatchdogSec"][0]) > 0


def unit_environment(name: str) -> dict[str, str]:
    """The variables a unit's `Environment=` lines set, split as systemd splits them."""
    return dict(
        word.split("=", 1)
        for line in _service(name).get("Environment", [])
        for word in shlex.split(line)
    )


def test_the_daemon_names_the_time_zone_folders_its_python_searches() -> None:
    """`PYTHONTZPATH` spares the daemon loading Python's build configuration to learn
    where zoneinfo looks (docs/benchmarks.md, "Memory at start"); it must name the very
    folders, in the same order, that this Python was built to search, or a box would
    find its casino's zone elsewhere than Python itself would."""
    env = unit_environment("floord.service")
    assert env["PYTHONTZPATH"] == sysconfig.get_config_var("TZPATH")


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


def _defaults() -> dict[str, str]:
    """/etc/default/floord-backup's settings, as the unit reads them."""
    values = {}
    for raw in DEFAULTS.read_text().splitlines():
        if raw.strip() and not raw.startswith("#"):
            key, _, value = raw.partition("=")
            values[key] = value
    return values


def test_the_backup_runs_as_floord_from_its_settings_daily() -> None:
    backup = _service(BACKUP)
    assert backup["Type"] == ["oneshot"] and backup["User"] == ["floord"]
    assert backup["EnvironmentFile"] == ["-/etc/default/floord-backup"]
    assert backup["ReadWritePaths"] == ["/var/backups/floord"]
    assert "PrivateNetwork" in backup and "DeviceAllow" not in backup
    # The unit's own defaults are the settings file's: one without the file backs up alike.
    assert dict(w.split("=", 1) for w in backup["Environment"][0].split()) == _defaults()
    assert _defaults()["OUT"] == "/var/backups/floord/" and int(_defaults()["KEEP"]) >= 1
    timer = _service(TIMER, "[Timer]")
    assert timer["OnCalendar"] and timer["Persistent"] == ["true"]
    assert _service(TIMER, "[Install]")["WantedBy"] == ["timers.target"]


def test_the_backup_units_command_backs_up_with_its_settings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The unit's ExecStart, with the settings file's values (the paths moved to a
    temporary folder), is a backup that verifies and keeps KEEP copies."""
    journal, folder = tmp_path / "journal.db", tmp_path / "backups"
    folder.mkdir()
    Journal(journal).close()
    settings = _defaults() | {"JOURNAL": str(journal), "OUT": f"{folder}/", "KEEP": "1"}
    [command] = _service(BACKUP)["ExecStart"]
    for key, value in settings.items():
        command = command.replace("${" + key + "}", value)
    argv = shlex.split(command)
    assert argv[0] == "/usr/bin/floord"
    assert main(argv[1:]) == 0
    assert f"{journal} backed up to {folder}/journal-" in capsys.readouterr().out
    assert len(kept_backups(folder, journal)) == 1


def test_units_parse_as_ini() -> None:
    """A stray line outside a section or a broken header shows up here even without
    systemd-analyze (systemd's format allows repeated keys, so strict=False)."""
    parser = configparser.RawConfigParser(strict=False, interpolation=None)
    parser.read_string((SYSTEMD / TIMER).read_text())
    assert {"Unit", "Timer", "Install"} <= set(parser.sections())
    for name in [*UNITS, BACKUP]:
        parser = configparser.RawConfigParser(strict=False, interpolation=None)
        parser.optionxform = str  # type: ignore[assignment, method-assign]
        parser.read_string((SYSTEMD / name).read_text())
        # The backup's service is started by its timer only: no [Install] of its own.
        wanted = {"Unit", "Service"} if name == BACKUP else {"Unit", "Service", "Install"}
        assert wanted <= set(parser.sections()), name
        assert name != BACKUP or "Install" not in parser.sections()
