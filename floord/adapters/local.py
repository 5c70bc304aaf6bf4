"""A driver adapter: one device's transport, driver, supervision and event stream.

Each adapter is a self-contained unit. It opens the device's port, feeds the bytes to
the device's driver, keeps the device supervised (connect, identify, back-off
reconnect, `device.offline` when it goes silent past its profile's timeout), journals
its normalised events on its own stream (published on `P/devices/<device>/events`)
and hands each one to its table through a sink; in the daemon's own process it hands
each one on at once with its row, which the table's commit writes
(`in_table_commit`, `floord.adapters.device_rows`). On a table box the sink is the
in-process bus to the engine; in an adapter's own process (`floord adapter`,
`floord.processes.adapter`) the sink publishes to MQTT, which is why nothing here knows
about the engine. Here is the device's connection and its state; what goes on the
record, and in what order, is `floord.adapters.event_record`'s, and how a command finds
its reply is `floord.adapters.command_channel`'s.
"""

from __future__ import annotations

import asyncio
import importlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

import structlog

from drivers import module_name as driver_module
from floord.adapters.availability import availability_body
from floord.adapters.command_channel import REFUSALS, CommandChannel
from floord.adapters.device_rows import Row
from floord.adapters.event_record import EventRecord
from floord.adapters.outage import Outage
from floord.adapters.reception import Reception
from floord.adapters.silence import Silence
from floord.contract import EventType, format_ts
from floord.events import DeviceCommand, DeviceEvent, DeviceOutput, DeviceReply, Driver
from floord.journal.store import Journal
from floord.mqtt.backoff import Backoff
from floord.profiles import DeviceProfile
from floord.transport.base import Transport
from floord.transport.stream import TransportError, open_transport

Clock = Callable[[], datetime]


@dataclass(frozen=True)
class Received:
    """A device event as the adapter recorded it on the device's own stream (its
    `device_seq` there); or, with its `row`, to be recorded there in the table's commit
    (`floord.adapters.device_rows`), numbered by the journal then (`device_seq` 0)."""

    device: str
    event: DeviceEvent
    ts: datetime
    device_seq: int
    row: Row | None = None


Sink = Callable[[Received], None]


def device_stream(table: str, device: str) -> str:
    """The journal stream of a device's own events."""
    return f"{table}/devices/{device}"


def load_driver(profile: DeviceProfile, options: dict[str, Any]) -> Driver:
    """The driver named by the profile: `DRIVER` of the module its `driver:` names in its
    driver family (`floord.driver_families`), built with the table's options."""
    module = importlib.import_module(driver_module(profile.driver))
    driver: Driver = module.DRIVER(profile, **options)
    return driver


class DeviceAdapter:
    """Supervises one device and publishes what it says."""

    def __init__(
        self,
        *,
        site: str,
        table: str,
        device: str,
        port: str,
        profile: DeviceProfile,
        driver_options: dict[str, Any],
        journal: Journal,
        sink: Sink,
        clock: Clock,
        on_recorded: Callable[[], None] = lambda: None,
        in_table_commit: bool = False,
        log_repeat: Backoff | None = None,
    ) -> None:
        """`in_table_commit`: the device's events are written in its table's commits
        (the daemon's own adapters, `floord.adapters.device_rows`), not appended here.
        `log_repeat`: how far apart a device that stays offline is said to be still
        offline (default 1 min, doubling up to 1 h: `floord.adapters.outage`)."""
        self.site = site
        self.table = table
        self.device = device
        self.port = port
        self.profile = profile
        self.stream = device_stream(table, device)
        self._driver = load_driver(profile, driver_options)
        self._sink = sink
        self._clock = clock
        self._log = structlog.get_logger("floord.adapter").bind(table=table, device=device)
        self._stopping = False
        self._events = EventRecord(
            site=site,
            table=table,
            device=device,
            stream=self.stream,
            journal=journal,
            clock=clock,
            log=self._log,
            protocol_errors=profile.protocol_errors,
            hand_on=self._hand_on,
            on_recorded=on_recorded,
            in_table_commit=in_table_commit,
            stopping=lambda: self._stopping,
        )
        self._commands = CommandChannel(self._log)
        self.online = False
        self.identity: dict[str, Any] = {}
        self.since: str | None = None
        # When the device last said anything; its wire form made once, when asked.
        self._heard_at: datetime | None = None
        self._heard_text: tuple[datetime | None, str | None] = (None, None)
        self._offline_reported = False
        self._offline_reason = ""
        # The lines of a device that stays offline: first, repeats with back-off, back.
        self._outage = Outage(
            self._log.bind(port=port),
            still="device still offline",
            back="device back",
            repeat=log_repeat,
        )
        # This session's: whether the device has spoken, asking who it is, its reading.
        self._heard_now = False
        self._identifying: asyncio.Task[None] | None = None
        self._reception: Reception | None = None
        # Set once the first connection attempt has an outcome (the port would not open,
        # the device spoke, or its first session ended): the daemon waits for it, bounded,
        # before it tells systemd it is ready.
        self.tried = asyncio.Event()

    # ----- the device's state -----------------------------------------------------

    @property
    def last_heard(self) -> str | None:
        """When the device last said anything, on the wire's form (None: not yet)."""
        heard = self._heard_at
        if heard is None:
            return None
        if self._heard_text[0] is not heard:
            self._heard_text = (heard, format_ts(heard))
        return self._heard_text[1]

    def _hand_on(self, event: DeviceEvent, ts: datetime, seq: int, row: Row | None) -> None:
        """An event on the record (or with its row for the table's commit) to the table."""
        self._sink(Received(self.device, event, ts, seq, row))

    def availability(self) -> dict[str, Any]:
        """The retained body of `P/devices/<device>`."""
        return availability_body(self)

    def _went_online(self) -> None:
        self._outage.recovered()
        self.online = True
        self._offline_reported = False
        self.since = format_ts(self._clock())
        self._events.new_session()  # its fault clears on this session: armed again
        self._events.emit(DeviceEvent(EventType.DEVICE_ONLINE, {"port": self.port}))

    def announce(self) -> bool:
        """Say `device.online` again (`announced: true`) if the device is online now.

        A daemon that restarted counts every device as not yet seen; an adapter in its
        own process kept the device's connection, so it says so on its stream when asked.
        """
        if not self.online:
            return False
        self._events.emit(
            DeviceEvent(EventType.DEVICE_ONLINE, {"port": self.port, "announced": True})
        )
        return True

    def _went_offline(self, reason: str) -> None:
        self._offline_reason = reason
        if self.online or not self._offline_reported:
            self.online = False
            self._offline_reported = True
            self.since = format_ts(self._clock())
            self._events.emit(
                DeviceEvent(EventType.DEVICE_OFFLINE, {"port": self.port, "reason": reason})
            )

    # ----- commands ---------------------------------------------------------------

    async def send(self, command: DeviceCommand) -> DeviceReply | None:
        """Send one command and wait for its reply (matched by prefix, not position).

        The outcome is recorded as `device.command_result` either way, so the record
        shows every re-spin floord asked for and whether the wheel took it.
        """
        try:
            request = self._driver.encode(command)
        except ValueError as exc:
            self._events.emit(
                DeviceEvent(
                    EventType.DEVICE_COMMAND_RESULT,
                    {"name": command.name, "ok": False, "reply": None, "error": str(exc)},
                )
            )
            await self._events.settled()
            return None
        reply = await self._commands.request(request)
        ok = reply is not None and reply.prefix not in REFUSALS
        self._events.emit(
            DeviceEvent(
                EventType.DEVICE_COMMAND_RESULT,
                {
                    "name": command.name,
                    "ok": ok,
                    "reply": reply.text if reply else None,
                    "error": None if ok else ("refused" if reply else "no reply"),
                },
            )
        )
        await self._events.settled()  # the outcome is on the record when send returns
        return reply

    # ----- supervision ------------------------------------------------------------

    async def run(self) -> None:
        """Connect, read and reconnect with back-off, until cancelled.

        Whatever ends an attempt, a port that will not open or an exception no one
        foresaw (a driver's bug, a port written wrong), ends as `device.offline` with
        the reason and a log line (the first of an outage, then repeats with back-off:
        `floord.adapters.outage`), and the adapter tries again after its back-off: the
        task never dies silently, so a required device's table never stays open with
        nothing behind it. (The daemon's supervisor, `floord.adapters.supervision`, is the
        second line for a failure of this loop itself.)
        """
        try:
            await self._supervise()
        finally:
            # What the device said is on the record and with the table when run() ends.
            await self._events.settled()

    async def _supervise(self) -> None:
        timeouts = self.profile.timeouts
        backoff = timeouts.reconnect_min_s
        while not self._stopping:
            heard = False
            try:
                heard = await self._attempt()
            except TransportError as exc:
                # The port once, in its own field (the event's too): the error without it.
                error = str(exc).removeprefix(f"{self.port}: ")
                if self._outage.failed(error, "open"):
                    self._log.warning("cannot open device", port=self.port, error=error)
                self._went_offline(f"cannot open port: {error}")
            except Exception as exc:  # any failure: the device is offline
                reason = f"adapter failed: {type(exc).__name__}: {exc}"
                if self._outage.failed(reason, type(exc).__name__):
                    self._log.error("device adapter failed", error=reason, exc_info=exc)
                self._went_offline(reason)
            else:
                if not heard:  # opened, but the device said nothing: still offline
                    self._outage.failed(self._offline_reason, "unheard")
            finally:
                self.tried.set()
            if heard:
                backoff = timeouts.reconnect_min_s
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, timeouts.reconnect_max_s)

    async def _attempt(self) -> bool:
        """One connection: open the port, run a session, close; True if the device spoke."""
        # A serial or socket port, or a USB wedge: the adapter holds only the protocol.
        transport = await open_transport(
            self.port, self.profile.serial, self.profile.timeouts.connect_s
        )
        self._commands.attach(transport)
        try:
            self._driver.reset()
            return await self._session(transport)
        finally:
            await transport.close()
            self._commands.detach()

    async def _session(self, transport: Transport) -> bool:
        """Read until the link breaks or goes silent; True if the device said anything.

        What the device says is decoded in the transport's callback that read it
        (`floord.adapters.reception`); this task waits for the session's end and writes
        what the driver answers."""
        timeouts = self.profile.timeouts
        first_wait = timeouts.power_on_quiet_s + timeouts.silence_s
        self._heard_now = False
        self._identifying = None
        scope = asyncio.timeout(None)
        try:
            # asyncio.timeout, not wait_for: on Python 3.11 a wait_for whose wait completes
            # as the task is cancelled returns and swallows the cancellation (CPython
            # gh-86296), so a chatty device kept a stopping daemon waiting until it fell
            # silent. One scope a session, expired only when the device was silent for
            # the whole limit (`floord.adapters.silence`: not a timer per read).
            async with scope:
                silence = Silence(scope)
                reception = Reception(
                    take=self._take,
                    hand=self._hand_output,
                    write_now=lambda payload: self._commands.write_now(transport, payload),
                    write=lambda payload: self._commands.write(transport, payload),
                    silence=silence,
                    limit=lambda: timeouts.silence_s if self._heard_now else first_wait,
                    stopping=lambda: self._stopping,
                )
                self._reception = reception
                try:
                    silence.reading(first_wait)
                    transport.deliver(reception)
                    ended = await reception.run()
                finally:
                    reception.close()
                    silence.close()
                if ended is not None:
                    self._went_offline(ended)
                return self._heard_now
        except TimeoutError:
            if not scope.expired():
                raise  # not silence: a TimeoutError of something else goes on up
            waited = timeouts.silence_s if self._heard_now else first_wait
            self._went_offline(f"silent for {waited:g} s")
            return self._heard_now
        finally:
            identify, self._identifying = self._identifying, None
            if identify is not None:
                identify.cancel()
                # Its own failure, if any, was raised above or dies with the session.
                await asyncio.gather(identify, return_exceptions=True)

    def _take(self, data: bytes) -> Sequence[DeviceOutput]:
        """A chunk the device sent, to its driver; the first of a session brings the
        device online and starts asking who it is."""
        self._heard_at = self._clock()
        outputs = self._driver.feed(data, time.monotonic())
        if not self._heard_now:
            self._heard_now = True
            self._went_online()
            self.tried.set()
            self._identifying = asyncio.create_task(self._identify())
            self._identifying.add_done_callback(self._identify_ended)
        return outputs

    def _identify_ended(self, task: asyncio.Task[None]) -> None:
        """Asking who the device is failed: the session fails with it (run() reports it:
        offline, a log line, a retry)."""
        if not task.cancelled() and task.exception() is not None and self._reception:
            self._reception.fail(cast(BaseException, task.exception()))

    def _hand_output(self, item: DeviceEvent | DeviceReply) -> None:
        if isinstance(item, DeviceReply):
            self._commands.match(item)
        else:
            self._events.emit(item)

    async def _identify(self) -> None:
        """Ask the device who it is until it answers (the handshake of its driver)."""
        while True:
            replies: dict[str, DeviceReply] = {}
            for request in self._driver.handshake():
                reply = await self._commands.request(request)
                if reply is None or reply.prefix in REFUSALS:
                    self._events.emit(
                        DeviceEvent(
                            EventType.DEVICE_PROTOCOL_ERROR,
                            {
                                "reason": f"no usable reply to {request.name} while identifying",
                                "raw": reply.text if reply else "",
                            },
                        )
                    )
                    break
                replies[request.name] = reply
            else:
                event = self._driver.identity(replies)
                if event.type == EventType.DEVICE_IDENTIFIED:
                    self.identity = dict(event.data)
                self._events.emit(event)
                if event.type == EventType.DEVICE_IDENTIFIED:
                    return
            await asyncio.sleep(self.profile.timeouts.reconnect_max_s)

    def stop(self) -> None:
        self._stopping = True

    def fail(self, reason: str) -> None:
        """This adapter's task failed (`floord.adapters.supervision`): the device is offline."""
        self._went_offline(reason)
        self.tried.set()
