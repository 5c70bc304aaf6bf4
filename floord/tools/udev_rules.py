"""udev rules that give each configured device a stable name, from its USB identity.

A box's serial adapters come up as /dev/ttyUSB0, /dev/ttyUSB1, ... in whatever order the
kernel finds them, so a config that names /dev/ttyUSB0 can one day open the shoe as the
wheel. `floord udev -c CONFIG` writes one rule per device that names its USB serial
number (`usb_serial:`, optionally `usb_vid:`/`usb_pid:`), giving it the link
`/dev/floord/<table>-<device>`, group `dialout` and mode 0660; the config then names that
link as the device's port. A `usb://VID:PID/SERIAL` device (pyusb opens the USB device
itself, not a tty) gets a rule on its usb_device node, for the permission and the name.

Devices that cannot have a rule (no serial number, a socket:// or simulated port, an
adapter on another box) are listed as comments, and the ones whose config expects a
/dev/floord link no rule makes are returned as warnings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from floord.config.load import LoadedConfig
from floord.config.tables import DeviceConfig
from floord.transport.usb import SIM_PREFIX, parse_usb_port

LINK_DIR = "floord"
GROUP = "dialout"
MODE = "0660"
# What a rule may match literally: no quotes, backslashes or glob characters (udev
# matches with fnmatch, so `*` in a serial number would match other devices).
_SAFE_SERIAL = re.compile(r"^[A-Za-z0-9._:+-]{1,126}$")


class UdevRuleError(ValueError):
    """The config cannot be turned into unambiguous rules; `problems` has one line each."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class DeviceRule:
    """One device's rule: which USB device it matches and the link it makes."""

    table: str
    device: str
    profile: str
    kind: Literal["tty", "usb"]
    serial: str
    vid: str | None
    pid: str | None

    @property
    def name(self) -> str:
        return f"{self.table}-{self.device}"

    @property
    def link(self) -> str:
        return f"/dev/{LINK_DIR}/{self.name}"

    def line(self) -> str:
        if self.kind == "tty":
            keys = ['SUBSYSTEM=="tty"', f'ATTRS{{serial}}=="{self.serial}"']
            if self.vid:
                keys.append(f'ATTRS{{idVendor}}=="{self.vid}"')
            if self.pid:
                keys.append(f'ATTRS{{idProduct}}=="{self.pid}"')
        else:
            keys = ['SUBSYSTEM=="usb"', 'ENV{DEVTYPE}=="usb_device"']
            keys.append(f'ATTR{{idVendor}}=="{self.vid}"')
            keys.append(f'ATTR{{idProduct}}=="{self.pid}"')
            keys.append(f'ATTR{{serial}}=="{self.serial}"')
        keys += [f'SYMLINK+="{LINK_DIR}/{self.name}"', f'GROUP="{GROUP}"', f'MODE="{MODE}"']
        return ", ".join(keys)


@dataclass(frozen=True)
class Plan:
    """The rules of a config, the devices left without one (why), and warnings."""

    rules: list[DeviceRule]
    skipped: list[str]
    warnings: list[str]


def _rule_for(table: str, device: DeviceConfig) -> tuple[DeviceRule | None, str | None]:
    """A device's rule, or None and why it has none. Raises ValueError when it is wrong."""
    where = f"{table}/{device.id}"
    port = device.port
    vid = device.usb_vid.lower() if device.usb_vid else None
    pid = device.usb_pid.lower() if device.usb_pid else None
    if port is None:
        return None, f"{where}: adapter: remote (its own box names the port)"
    if port.startswith(SIM_PREFIX):
        return None, f"{where}: a simulated USB device ({port})"
    if port.startswith("usb://"):
        port_vid, port_pid, port_serial = parse_usb_port(port)
        if (vid and vid != f"{port_vid:04x}") or (pid and pid != f"{port_pid:04x}"):
            raise ValueError(f"{where}: usb_vid/usb_pid differ from the port {port!r}")
        if port_serial and device.usb_serial and port_serial != device.usb_serial:
            raise ValueError(
                f"{where}: usb_serial {device.usb_serial!r} differs from the port's "
                f"serial {port_serial!r}"
            )
        serial = port_serial or device.usb_serial
        if not serial:
            return None, f"{where}: {port} names no serial number (usb://VID:PID/SERIAL)"
        if not _SAFE_SERIAL.match(serial):
            raise ValueError(
                f"{where}: serial {serial!r} has characters a udev rule cannot match literally"
            )
        rule = DeviceRule(
            table, device.id, device.profile, "usb", serial, f"{port_vid:04x}", f"{port_pid:04x}"
        )
        return rule, None
    if port.startswith("socket://"):
        return None, f"{where}: a network port ({port})"
    if not device.usb_serial:
        return None, f"{where}: no usb_serial (port {port})"
    return DeviceRule(table, device.id, device.profile, "tty", device.usb_serial, vid, pid), None


def plan_rules(loaded: LoadedConfig) -> Plan:
    """Every device's rule; raise `UdevRuleError` if two would claim one device or name."""
    rules: list[DeviceRule] = []
    skipped: list[str] = []
    warnings: list[str] = []
    problems: list[str] = []
    for table in loaded.config.tables:
        for device in table.devices:
            try:
                rule, why = _rule_for(table.id, device)
            except ValueError as exc:
                problems.append(str(exc))
                continue
            if rule is None:
                skipped.append(str(why))
                if device.port and device.port.startswith(f"/dev/{LINK_DIR}/"):
                    warnings.append(
                        f"{table.id}/{device.id}: port {device.port} is a udev link, but no "
                        f"rule makes it ({why}); set usb_serial"
                    )
                continue
            if device.port and device.port.startswith("/dev/") and device.port != rule.link:
                warnings.append(
                    f"{table.id}/{device.id}: the rule makes {rule.link}, but the port is "
                    f"{device.port}; name the link as the port"
                )
            rules.append(rule)
    seen_names: dict[str, str] = {}
    seen_ids: dict[tuple[str, str, str | None, str | None], str] = {}
    for rule in rules:
        who = f"{rule.table}/{rule.device}"
        if rule.name in seen_names:
            problems.append(f"{who}: link {rule.link} is also {seen_names[rule.name]}'s")
        seen_names[rule.name] = who
        identity = (rule.kind, rule.serial, rule.vid, rule.pid)
        if identity in seen_ids:
            problems.append(f"{who}: USB serial {rule.serial!r} is also {seen_ids[identity]}'s")
        seen_ids[identity] = who
    if problems:
        raise UdevRuleError(problems)
    return Plan(rules, skipped, warnings)


def render(plan: Plan, config_path: str, site: str) -> str:
    """The rules file: a header saying where it came from, one rule per device."""
    out = [
        f"# udev rules for floord, site {site}: generated by `floord udev -c {config_path}`.",
        "# Stable device names /dev/floord/<table>-<device> from each device's USB serial",
        "# number. Install as /etc/udev/rules.d/99-floord-devices.rules, then",
        "#   udevadm control --reload && udevadm trigger --subsystem-match=tty "
        "--subsystem-match=usb",
        "# Regenerate whenever a device is added or replaced. See docs/deployment.md, udev.",
        "",
        'ACTION=="remove", GOTO="floord_devices_end"',
        "",
    ]
    for rule in plan.rules:
        out.append(f"# {rule.table}/{rule.device} ({rule.profile})")
        out.append(rule.line())
    if plan.skipped:
        out.append("")
        out.append("# No rule:")
        out += [f"#   {why}" for why in plan.skipped]
    out += ["", 'LABEL="floord_devices_end"', ""]
    return "\n".join(out)
