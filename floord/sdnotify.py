"""systemd's notify protocol (Type=notify, WatchdogSec), without a library.

When systemd starts floord it passes NOTIFY_SOCKET; elsewhere these calls do nothing,
so the daemon runs the same in a terminal, a test and a unit.
"""

from __future__ import annotations

import os
import socket


def notify(message: str) -> bool:
    """Send e.g. "READY=1" or "WATCHDOG=1"; False when not under systemd."""
    address = os.environ.get("NOTIFY_SOCKET")
    if not address:
        return False
    if address.startswith("@"):
        address = "\0" + address[1:]
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        try:
            sock.sendto(message.encode(), address)
        except OSError:
            return False
    return True


def watchdog_interval_s() -> float | None:
    """Half the watchdog period systemd asked for, or None when there is no watchdog."""
    usec = os.environ.get("WATCHDOG_USEC")
    if not usec or not usec.isdigit():
        return None
    pid = os.environ.get("WATCHDOG_PID")
    if pid and pid.isdigit() and int(pid) != os.getpid():
        return None
    return int(usec) / 2_000_000
