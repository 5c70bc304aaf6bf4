"""A local device's events put on the record, and handed to its table.

Every event an adapter's driver makes of the device's bytes goes the same way: protocol
errors through the device's limiter (`floord.adapters.protocol_limiter`: a flood is
recorded as counts, not line by line), then each event journaled on the device's own
stream off the loop and in order (`floord.adapters.stream_appends`), or, in the daemon's
own process, handed on at once with its row for the table's commit to write
(`floord.adapters.device_rows`). Kept apart from the adapter's connection handling so
that what reaches the record, and in what order, is decided in one place.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from floord.adapters.device_rows import DeviceRows, Row
from floord.adapters.protocol_limiter import ProtocolErrorLimiter
from floord.adapters.stream_appends import StreamAppends
from floord.contract import Envelope, EventType, format_ts
from floord.events import DeviceEvent
from floord.journal.store import Journal
from floord.profiles import ProtocolErrorPolicy

# An event on the record, handed on: the event, when it was recorded, its number on the
# device's stream (0 while its row waits for the table's commit) and that row, if any.
HandOn = Callable[[DeviceEvent, datetime, int, Row | None], None]


class EventRecord:
    """Records one device's events on its stream and hands each one on, in order."""

    def __init__(
        self,
        *,
        site: str,
        table: str,
        device: str,
        stream: str,
        journal: Journal,
        clock: Callable[[], datetime],
        log: Any,
        protocol_errors: ProtocolErrorPolicy,
        hand_on: HandOn,
        on_recorded: Callable[[], None],
        in_table_commit: bool,
        stopping: Callable[[], bool],
    ) -> None:
        """`in_table_commit`: each event goes on with its row for the table's commit to
        write, not appended here. `stopping`: no count is recorded by the limiter's
        timer once the adapter stops."""
        self.site = site
        self.table = table
        self.device = device
        self._clock = clock
        self._hand_on = hand_on
        self._on_recorded = on_recorded
        self._stopping = stopping
        self._limiter = ProtocolErrorLimiter(protocol_errors)
        self._limiter_timer: asyncio.TimerHandle | None = None
        self._appends = StreamAppends(journal, stream, log)
        self._rows = DeviceRows(stream, log) if in_table_commit else None

    def emit(self, event: DeviceEvent) -> None:
        """Record one of the device's events, protocol errors through the limiter."""
        now = time.monotonic()
        if event.type == EventType.DEVICE_PROTOCOL_ERROR:
            for item in self._limiter.offer(event.data, now, format_ts(self._clock())):
                self._record(item)
            self._arm_limiter()
            return
        # What was counted goes on the record before what follows it; a link that ends
        # says what it counted so far.
        ended = event.type == EventType.DEVICE_OFFLINE
        for item in self._limiter.close() if ended else self._limiter.due(now):
            self._record(item)
        self._record(event)

    def new_session(self) -> None:
        """The device is online on a new session: the limiter's fault clears, armed again."""
        self._limiter.new_session()

    async def settled(self) -> None:
        """Until what the device said so far is on the record (and with the table)."""
        await self._appends.settled()
        if self._rows is not None:
            await self._rows.settled()

    def _arm_limiter(self) -> None:
        """Wake when the limiter's window closes, so a count is recorded even when the
        line falls quiet (a TimerHandle, not a task: nothing to await at shutdown)."""
        end = self._limiter.window_end
        if end is None or self._limiter_timer is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop (a synchronous caller): the next event flushes the count
        self._limiter_timer = loop.call_later(max(0.0, end - time.monotonic()), self._window_closed)

    def _window_closed(self) -> None:
        self._limiter_timer = None
        if self._stopping():
            return
        for item in self._limiter.due(time.monotonic()):
            self._record(item)
        self._arm_limiter()

    def _record(self, event: DeviceEvent) -> None:
        """Journal on the device's own stream, then hand it to the table (off the loop,
        in order: `floord.adapters.stream_appends`)."""
        now = self._clock()

        def build(seq: int) -> Envelope:
            return Envelope(
                site=self.site,
                table=self.table,
                seq=seq,
                ts=format_ts(now),
                type=str(event.type),
                source=self.device,
                data=event.data,
            )

        if self._rows is not None:
            self._hand_on(event, now, 0, self._rows.row(build))
            return

        def recorded(seq: int) -> None:
            self._on_recorded()
            self._hand_on(event, now, seq, None)

        self._appends.add(build, recorded)
