"""Config checks of addresses: each device's port and the broker's URL.

A port is read by the same parser the adapter opens it with
(`floord.transport.ports.parse_port`), so a port `floord check` accepts is one `floord run`
can at least try to open, and one it refuses would never open. Each problem is a
`FILE: KEY.PATH: expected, found` line, like every other config check.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path

from floord.config.tables import TableConfig
from floord.transport.ports import (
    SIMULATED_KINDS,
    PortError,
    parse_host,
    parse_port,
    parse_port_number,
)


def port_problems(path: Path, key: str, port: str, *, rig: bool = False) -> list[str]:
    """The device port's scheme, host and port number; a simulated port only on a rig
    (`rig: true`), with the simulators installed and its scenario file there."""
    try:
        address = parse_port(port)
    except PortError as exc:
        return [f"{path}: {key}: {exc.expected} expected, found {exc.found}"]
    if address.kind in SIMULATED_KINDS and not rig:
        return [
            f"{path}: {key}: a real device's port expected (a simulated device is for a test "
            f"rig only: set 'rig: true' at the top of a rig's config), found {port!r}"
        ]
    if address.kind in SIMULATED_KINDS and importlib.util.find_spec("simulators") is None:
        return [
            f"{path}: {key}: a port this install can open expected, found {port!r}: the "
            "device simulators are not installed (a rig's Debian package: floord-rig)"
        ]
    if address.kind == "usb-sim" and not Path(address.path or "").is_file():
        return [
            f"{path}: {key}: usb://sim:<absolute path of a scenario file> expected, "
            f"found {port!r} (no such file)"
        ]
    return []


def missing_device_warnings(path: Path, tables: Sequence[TableConfig]) -> list[str]:
    """A warning line for each device path (`/dev/...`) that does not exist now.

    Not a problem: a device may be plugged in after the check (udev then names it), and
    `floord run` starts without it, reporting it offline (a required one halts its
    table) while its adapter retries. But a mistyped path looks just the same, so
    `floord check` says so.
    """
    warnings = []
    for t, table in enumerate(tables):
        for d, device in enumerate(table.devices):
            if device.port is None or not device.port.startswith("/"):
                continue
            if Path(device.port).exists():
                continue
            # A required device offline halts its table; coming online does not lift the halt.
            then = (
                f"{table.id} halted until it is there and the table is resumed"
                if device.required
                else f"{device.id} offline until it is there"
            )
            warnings.append(
                f"{path}: tables.{t}.devices.{d}.port: warning: a device at {device.port} "
                f"expected, found no such file (not plugged in yet? floord run starts "
                f"anyway, {then})"
            )
    return warnings


def broker_url_problem(url: str) -> str | None:
    """What is wrong with an `mqtt[s]://HOST[:PORT][/]` URL's host or port, or None.

    The URL's shape is the field's pattern; this reads the host and the port number as
    a device's socket:// port is read (a port above 65535 would otherwise stop the
    daemon at its first connection).
    """
    rest = url.split("://", 1)[-1].rstrip("/")
    host, colon, number = rest.partition(":")
    try:
        parse_host(host, url)
        if colon:
            parse_port_number(number, url)
    except PortError as exc:
        return f"{exc.expected} expected, found {exc.found}"
    return None
