"""systemd's notify protocol (Type=notify, WatchdogSec), without a library.

When systemd starts floord it passes NOTIFY_SOCKET; elsewhere these calls do nothing,
so the daemon runs the same in a terminal, a test and a unit.
"""

from __future__ import annotations

import asyncio
import os
import socket
from collections.abc import Callable


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


async def keep_watchdog(every: float, ping: Callable[[str], object] = notify) -> None:
    """Ping systemd's watchdog from the event loop every `every` seconds.

    A ping proves the loop still turns, so a wake-up more than one interval late (the
    loop was stalled: a blocking call, a runaway callback) is not answered with a ping:
    systemd then sees the stall and restarts the unit instead of being told all is well.
    """
    loop = asyncio.get_running_loop()
    due = loop.time()
    while True:
        if loop.time() - due <= every:
            ping("WATCHDOG=1")
        due = loop.time() + every
        await asyncio.sleep(every)
