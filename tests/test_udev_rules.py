"""`floord udev`: rules that name each device /dev/floord/<table>-<device> by its USB serial.

The generated rules are checked line by line against udev's rule grammar (and by
`udevadm verify` where this systemd has it), each device's rule must match its serial
number and make its link, and `systemd/99-floord-devices.rules` must be exactly what the
generator writes for the example box of docs/deployment.md.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from floord.cli.main import main
from floord.config.load import load_config
from floord.tools.udev_rules import plan_rules, render

pytestmark = pytest.mark.unit

SHIPPED = Path(__file__).resolve().parents[1] / "systemd" / "99-floord-devices.rules"

EXAMPLE: dict[str, Any] = {
    "site": "example-casino",
    "broker": {"url": "mqtt://broker.example:1883"},
    "journal": "/var/lib/floord/journal.db",
    "tables": [
        {
            "id": "RL-01",
            "game": "roulette",
            "rules": {"wheel": "single_zero"},
            "devices": [
                {
                    "id": "wheel",
                    "profile": "cammegh-ss2",
                    "port": "/dev/floord/RL-01-wheel",
                    "usb_serial": "FT6Z9K2A",
                    "usb_vid": "0403",
                    "usb_pid": "6001",
                }
            ],
        },
        {
            "id": "BJ-01",
            "game": "blackjack",
            "rules": {"decks": 6},
            "devices": [
                {
                    "id": "reader",
                    "profile": "ref-card-reader",
                    "port": "/dev/floord/BJ-01-reader",
                    "usb_serial": "A10K3XQ7",
                },
                {"id": "shoe", "profile": "ref-usb-shoe", "port": "usb://1209:0001/SHOE-0042"},
            ],
        },
        {
            "id": "B6-01",
            "game": "big_six",
            "devices": [
                {"id": "bigsix", "profile": "ref-big-six", "port": "socket://10.0.0.5:4001"}
            ],
        },
    ],
}

# udev's rule grammar (udev(7)): KEY, KEY{ATTR}, an operator, a double-quoted value.
_PAIR = re.compile(r'^([A-Z_]+)(\{[A-Za-z0-9_]+\})?(==|!=|\+=|-=|:=|=)"([^"\\]*)"$')
_MATCH_KEYS = {"ACTION", "SUBSYSTEM", "ATTR", "ATTRS", "ENV", "KERNEL", "DEVPATH"}
_ASSIGN_KEYS = {"SYMLINK", "GROUP", "MODE", "OWNER", "TAG", "GOTO", "LABEL", "ENV"}


def _check_rules_text(text: str) -> list[list[tuple[str, str, str]]]:
    """Every rule line as (key, operator, value) triples; fails on anything malformed."""
    rules = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        assert not line.endswith("\\"), f"line {number}: no continuation lines expected"
        pairs = []
        for part in line.split(", "):
            found = _PAIR.match(part)
            assert found, f'line {number}: not KEY{{ATTR}}OP"VALUE": {part!r}'
            key, attr, op, value = found.groups()
            if op in ("==", "!="):
                assert key in _MATCH_KEYS, f"line {number}: {key} cannot be matched"
            else:
                assert key in _ASSIGN_KEYS, f"line {number}: {key} cannot be assigned"
            assert bool(attr) == (key in {"ATTR", "ATTRS", "ENV"}), f"line {number}: {part}"
            pairs.append((key + (attr or ""), op, value))
        rules.append(pairs)
    return rules


def _write(tmp_path: Path, config: dict[str, Any]) -> Path:
    path = tmp_path / "floord.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def _generate(tmp_path: Path, capsys, config: dict[str, Any]) -> tuple[int, str, str]:
    code = main(["udev", "-c", str(_write(tmp_path, config))])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_each_device_gets_its_link_from_its_serial(tmp_path: Path, capsys) -> None:
    code, out, err = _generate(tmp_path, capsys, EXAMPLE)
    assert code == 0, err
    assert err == ""
    parsed = _check_rules_text(out)
    rules = {dict((k, v) for k, _, v in r).get("SYMLINK"): r for r in parsed}
    wheel = dict((k, (op, v)) for k, op, v in rules["floord/RL-01-wheel"])
    assert wheel["SUBSYSTEM"] == ("==", "tty")
    assert wheel["ATTRS{serial}"] == ("==", "FT6Z9K2A")
    assert wheel["ATTRS{idVendor}"] == ("==", "0403")
    assert wheel["ATTRS{idProduct}"] == ("==", "6001")
    assert wheel["GROUP"] == ("=", "dialout")
    assert wheel["MODE"] == ("=", "0660")
    reader = dict((k, (op, v)) for k, op, v in rules["floord/BJ-01-reader"])
    assert reader["ATTRS{serial}"] == ("==", "A10K3XQ7")
    assert "ATTRS{idVendor}" not in reader
    shoe = dict((k, (op, v)) for k, op, v in rules["floord/BJ-01-shoe"])
    assert shoe["SUBSYSTEM"] == ("==", "usb")
    assert shoe["ENV{DEVTYPE}"] == ("==", "usb_device")
    assert shoe["ATTR{idVendor}"] == ("==", "1209")
    assert shoe["ATTR{idProduct}"] == ("==", "0001")
    assert shoe["ATTR{serial}"] == ("==", "SHOE-0042")
    # The network device has no rule, and says why.
    assert "floord/B6-01-bigsix" not in rules
    assert "#   B6-01/bigsix: a network port (socket://10.0.0.5:4001)" in out.splitlines()
    # The remove guard jumps to a label that exists.
    assert parsed[0] == [("ACTION", "==", "remove"), ("GOTO", "=", "floord_devices_end")]
    assert parsed[-1] == [("LABEL", "=", "floord_devices_end")]
    assert len(parsed) == 5


def test_shipped_rules_are_the_generators_output_for_the_example(tmp_path: Path) -> None:
    loaded = load_config(_write(tmp_path, EXAMPLE))
    text = render(plan_rules(loaded), "/etc/floord/floord.yaml", loaded.config.site)
    assert SHIPPED.read_text() == text, "regenerate systemd/99-floord-devices.rules"
    _check_rules_text(SHIPPED.read_text())


@pytest.mark.skipif(shutil.which("udevadm") is None, reason="udevadm is not installed")
def test_udevadm_verify_accepts_the_rules(tmp_path: Path) -> None:
    probe = subprocess.run(["udevadm", "--help"], capture_output=True, text=True, timeout=30)
    if "verify" not in probe.stdout:
        pytest.skip("this udevadm has no `verify` (systemd 253 or later)")
    done = subprocess.run(
        ["udevadm", "verify", "--resolve-names=never", str(SHIPPED)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def _with_device(**changes: Any) -> dict[str, Any]:
    config = yaml.safe_load(yaml.safe_dump(EXAMPLE))
    config["tables"][0]["devices"][0].update(changes)
    return config


def test_a_udev_port_without_a_serial_is_warned_about(tmp_path: Path, capsys) -> None:
    config = _with_device(usb_serial=None)
    code, out, err = _generate(tmp_path, capsys, config)
    assert code == 0
    assert "RL-01/wheel: port /dev/floord/RL-01-wheel is a udev link, but no rule makes it" in err
    assert "floord/RL-01-wheel" not in "".join(r for r in out.splitlines() if "SYMLINK" in r)


def test_a_port_other_than_the_link_is_warned_about(tmp_path: Path, capsys) -> None:
    code, _, err = _generate(tmp_path, capsys, _with_device(port="/dev/ttyUSB0"))
    assert code == 0
    assert "the rule makes /dev/floord/RL-01-wheel, but the port is /dev/ttyUSB0" in err


def test_one_serial_for_two_devices_is_refused(tmp_path: Path, capsys) -> None:
    config = _with_device(usb_serial="A10K3XQ7", usb_vid=None, usb_pid=None)
    code, out, err = _generate(tmp_path, capsys, config)
    assert code == 1 and out == ""
    assert "BJ-01/reader: USB serial 'A10K3XQ7' is also RL-01/wheel's" in err


def test_a_serial_udev_cannot_match_literally_is_refused(tmp_path: Path, capsys) -> None:
    code, _, err = _generate(tmp_path, capsys, _with_device(usb_serial="FT*"))
    assert code == 1
    assert "usb_serial" in err
    config = yaml.safe_load(yaml.safe_dump(EXAMPLE))
    config["tables"][1]["devices"][1]["port"] = 'usb://1209:0001/SH"OE'
    code, _, err = _generate(tmp_path, capsys, config)
    assert code == 1
    assert "characters a udev rule cannot match literally" in err


def test_a_usb_port_and_a_usb_serial_that_disagree_are_refused(tmp_path: Path, capsys) -> None:
    config = yaml.safe_load(yaml.safe_dump(EXAMPLE))
    config["tables"][1]["devices"][1]["usb_serial"] = "SHOE-0043"
    code, _, err = _generate(tmp_path, capsys, config)
    assert code == 1
    assert "usb_serial 'SHOE-0043' differs from the port's serial 'SHOE-0042'" in err
