"""Config checks of addresses: each device's port and the broker's URL.

A port is read by the same parser the adapter opens it with
(`floord.transport.ports.parse_port`), so a port `floord check` accepts is one `floord run`
can at least try to open, and one it refuses would never open. Each problem is a
`FILE: KEY.PATH: expected, found` line, like every other config check.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from floord.config.tables import TableConfig
from floord.transport.ports import PortError, parse_host, parse_port, parse_port_number


def port_problems(path: Path, key: str, port: str) -> list[str]:
    """The device port's scheme, host and port number; a rig's scenario file exists."""
    try:
        address = parse_port(port)
    except PortError as exc:
        return [f"{path}: {key}: {exc.expected} expected, found {exc.found}"]
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
