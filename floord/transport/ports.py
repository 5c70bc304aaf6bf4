"""How a device port is written: the one grammar `floord check` and the adapter share.

Apart from the transports (`transport.py`, `usb_transport.py`) so that both read ports
through it without importing each other, and `floord check` can refuse a malformed port
without opening anything.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from typing import Literal

from floord.transport.base import TransportError


class PortError(TransportError):
    """A port written so that no attempt to open it can succeed (a bad scheme, host or
    port number). `floord check` refuses it; at run time the adapter reports the device
    offline with this message, as for any port that will not open."""

    def __init__(self, port: str, expected: str, found: str) -> None:
        super().__init__(f"{port}: {expected} expected, found {found}")
        self.port = port
        self.expected = expected
        self.found = found


SIM_PREFIX = "usb://sim:"
# The rig's module that builds the simulated shoe a `usb://sim:` port names, reached by
# name at run time: floord never imports the simulators (they are the rig's package).
RIG_BACKEND = "simulators.usb_shoe.backend"
# The kinds of port that open a simulator inside the process: for a test rig only.
SIMULATED_KINDS = frozenset({"usb-sim"})
PORT_KINDS = (
    "a device path (/dev/...), socket://HOST:PORT, usb://VID:PID[/SERIAL] or "
    "usb://sim:<scenario-file>"
)
_USB_PORT = re.compile(r"usb://([0-9A-Fa-f]{4}):([0-9A-Fa-f]{4})(?:/([\x21-\x7e]+))?")
_HOST_LABEL = re.compile(r"^(?!-)[A-Za-z0-9_-]{1,63}(?<!-)$")


@dataclass(frozen=True)
class PortAddress:
    """A device port as written in a config, parsed: what `open_transport` will open."""

    text: str
    kind: Literal["serial", "socket", "usb", "usb-sim"]
    path: str | None = None  # the serial device's path; the usb-sim scenario file
    host: str | None = None
    number: int | None = None
    vendor_id: int | None = None
    product_id: int | None = None
    serial: str | None = None


def parse_host(text: str, where: str) -> str:
    """A host name (RFC 1123 labels), an IPv4 address or a bracketed IPv6 address; the
    host to connect to (brackets removed). PortError naming `where` otherwise."""
    if not text:
        raise PortError(where, "a host name or IP address", "an empty host")
    if text.startswith("[") and text.endswith("]"):
        try:
            return str(ipaddress.IPv6Address(text[1:-1]))
        except ValueError:
            raise PortError(where, "an IPv6 address in brackets", repr(text)) from None
    if len(text) > 253 or not all(_HOST_LABEL.match(label) for label in text.split(".")):
        raise PortError(where, "a host name or IP address", repr(text))
    return text


def parse_port_number(text: str, where: str) -> int:
    """A TCP port number, 1 to 65535, in decimal digits; PortError naming `where`."""
    if not text:
        raise PortError(where, "a port number from 1 to 65535", "no port")
    if not text.isascii() or not text.isdigit():
        raise PortError(where, "a port number from 1 to 65535", repr(text))
    number = int(text)
    if not 1 <= number <= 65535:
        raise PortError(where, "a port number from 1 to 65535", str(number))
    return number


def parse_port(port: str) -> PortAddress:
    """The one reading of a device port, shared by `floord check` and the adapter.

    A PortError says what was expected and what was found. Whether the device is there
    (the path exists, the host answers, the scenario file reads) is for the open to find.
    """
    if not port or any(not ch.isprintable() for ch in port):
        raise PortError(repr(port), PORT_KINDS, f"{port!r} (empty or with control characters)")
    if port.startswith("/"):
        return PortAddress(port, "serial", path=port)
    if port.startswith("socket://"):
        rest = port[len("socket://") :].rstrip("/")
        host, colon, number = rest.rpartition(":")
        if not colon or (host.startswith("[") != host.endswith("]")):
            raise PortError(port, "socket://HOST:PORT", "no port")
        return PortAddress(
            port, "socket", host=parse_host(host, port), number=parse_port_number(number, port)
        )
    if port.startswith(SIM_PREFIX):
        path = port[len(SIM_PREFIX) :]
        if not path.startswith("/"):
            raise PortError(port, "usb://sim:<absolute path of a scenario file>", repr(path))
        return PortAddress(port, "usb-sim", path=path)
    if port.startswith("usb://"):
        match = _USB_PORT.fullmatch(port)
        if match is None:
            raise PortError(
                port, "usb://VID:PID or usb://VID:PID/SERIAL (4 hex digits each)", repr(port)
            )
        vid, pid, serial_number = match.groups()
        return PortAddress(
            port, "usb", vendor_id=int(vid, 16), product_id=int(pid, 16), serial=serial_number
        )
    raise PortError(port, PORT_KINDS, repr(port))
