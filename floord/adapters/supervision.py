"""The daemon's watch over its device tasks: none may end or die unnoticed.

Each device of a table runs as one task (an in-process `DeviceAdapter` or a
`RemoteDevice` following a `floord adapter` process). Those loops report their own
failures as `device.offline`; this is the line behind them. If a device's task ends
while the daemon is not stopping, or raises anything at all, the daemon logs it, the
table hears `device.offline` with the reason (so a required device halts its table,
fail closed) and the task is started again after a pause. Should even the device's own
report fail, the offline event goes straight to the table's bus (unjournaled on the
device's stream, as when the journal cannot record it), because the engine must learn
of it either way.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime

import structlog

from floord.adapters.local import Received, Sink
from floord.adapters.remote import TableDevice
from floord.contract import EventType
from floord.events import DeviceEvent

RESTART_S = 5.0  # the pause before a failed device task is started again


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
) -> None:
    """Run `device.run()` until the daemon stops, reporting and restarting it whenever it
    ends or fails; cancelling this cancels the device's task."""
    log = structlog.get_logger("floord.daemon").bind(table=device.table, device=device.device)
    while True:
        try:
            await device.run()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # whatever the exception: see above
            reason = f"adapter task failed: {type(exc).__name__}: {exc}"
            log.error("device task failed", reason=reason, exc_info=exc)
        else:
            if stopping():
                return
            reason = "adapter task ended"
            log.error("device task ended", reason=reason)
        if stopping():
            return
        report_offline(device, reason, sink, clock)
        await asyncio.sleep(restart_s)
