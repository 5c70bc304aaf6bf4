"""The daemon's watch over its device tasks: none may end or die unnoticed.

Each device of a table runs as one task (an in-process `DeviceAdapter` or a
`RemoteDevice` following a `floord adapter` process). Those loops report their own
failures as `device.offline`; this is the line behind them. If a device's task ends
while the daemon is not stopping, or raises anything at all, the daemon logs it, the
table hears `device.offline` with the reason (so a required device halts its table,
fail closed) and the task is started again after a pause; a task that keeps failing
is logged once for each kind of failure and then with back-off (`floord.adapters.outage`),
not a traceback every pause. Should even the device's own
report fail, the offline event goes straight to the table's bus (unjournaled on the
device's stream, as when the journal cannot record it), because the engine must learn
of it either way.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from datetime import datetime

import structlog

from floord.adapters.local import Received, Sink
from floord.adapters.outage import Outage
from floord.adapters.remote import TableDevice
from floord.contract import EventType
from floord.events import DeviceEvent

RESTART_S = 5.0  # the pause before a failed device task is started again
STABLE_S = 60.0  # a task that ran this long before it failed was a good start


def report_offline(
    device: TableDevice, reason: str, sink: Sink, clock: Callable[[], datetime]
) -> None:
    """The device is offline for `reason`: through the device's own record if it can,
    else straight to the table."""
    log = structlog.get_logger("floord.daemon").bind(table=device.table, device=device.device)
    try:
        device.fail(reason)
        return
    except Exception as exc:  # the table must hear it, whatever failed
        log.critical("device offline not recorded by its adapter", error=repr(exc))
    device.online = False
    device.tried.set()
    event = DeviceEvent(EventType.DEVICE_OFFLINE, {"port": device.port, "reason": reason})
    sink(Received(device.device, event, clock(), 0))


async def supervise(
    device: TableDevice,
    *,
    sink: Sink,
    clock: Callable[[], datetime],
    stopping: Callable[[], bool],
    restart_s: float = RESTART_S,
    stable_s: float = STABLE_S,
) -> None:
    """Run `device.run()` until the daemon stops, reporting and restarting it whenever it
    ends or fails; cancelling this cancels the device's task."""
    log = structlog.get_logger("floord.daemon").bind(table=device.table, device=device.device)
    # A task failing again at once: its first failure of each kind is a line (with the
    # traceback), the rest are counted and repeated with back-off, never a traceback
    # every `restart_s`; a run that lasted `stable_s` ends that outage.
    outage = Outage(log, still="device task still failing", back=None)
    while True:
        started = time.monotonic()
        try:
            await device.run()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # whatever the exception: see above
            reason = f"adapter task failed: {type(exc).__name__}: {exc}"
            if _failed_again(outage, started, stable_s, reason, type(exc).__name__):
                log.error("device task failed", reason=reason, exc_info=exc)
        else:
            if stopping():
                return
            reason = "adapter task ended"
            if _failed_again(outage, started, stable_s, reason, "ended"):
                log.error("device task ended", reason=reason)
        if stopping():
            return
        report_offline(device, reason, sink, clock)
        await asyncio.sleep(restart_s)


def _failed_again(outage: Outage, started: float, stable_s: float, reason: str, kind: str) -> bool:
    """Count the task's failure in `outage` (a new one if the task had run `stable_s`);
    True if it is the line to say."""
    if time.monotonic() - started >= stable_s:
        outage.recovered()
    return outage.failed(reason, kind)
