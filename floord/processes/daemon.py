"""The daemon: runs each table's adapters, bus, engine, journal and MQTT link.

Start-up restores every table from the journal before any of its devices is heard (a
halt is latched across restarts), then starts its adapters and its link. Nothing of it
waits for SQLite on the event loop: the journal is opened and every table built (its
snapshot, its surveillance history: `floord.processes.table_units`) in a worker thread
(`Daemon.open`), and each table's start check and start record are jobs on the journal's
thread, awaited table by table, so a table restored is served while the next one is
still being checked. A clean stop first closes each table to anything new (commands are
refused `stopping`, no round starts: `floord.table.stopping`), stops the adapters, has
each runner record `daemon.stopped` as its table's last event, publishes what it can and
says `online: false` on each status.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import signal
from collections.abc import Callable, Collection
from datetime import datetime, timedelta
from typing import Any

import structlog

import floord
from floord.adapters.local import Received
from floord.adapters.supervision import supervise
from floord.config.load import LoadedConfig
from floord.contract import EventType, format_ts
from floord.engine.core.types import Decision, EngineOutput
from floord.instants import utc_instant
from floord.journal.store import Journal, JournalError
from floord.processes import long_lived
from floord.processes.table_units import TableBuilder, TableUnit
from floord.system.sdnotify import keep_watchdog, notify, watchdog_interval_s
from floord.table import watch_state
from floord.table.bus import Finish, Tick
from floord.table.start_check import check_on_start

TICK_S = 0.5
READY_GRACE_S = 1.0  # readiness waits at most a profile's connect_s + this for devices
STATUS_EVERY_S = 1.0
PRUNE_EVERY_S = 3600.0  # journal retention runs at start and then hourly
LINK_RETRY_S = 1.0  # a table's MQTT link that ended on a fault starts again after this


def status_text(units: Collection[TableUnit]) -> str:
    """The unit's status line: tables, devices online, halts (each runner's flag, read
    without building its state: the line is asked for every second)."""
    adapters = [a for u in units for a in u.adapters.values()]
    online = sum(1 for a in adapters if a.online)
    halted = sum(1 for u in units if u.runner.halted)
    text = f"{len(units)} tables, {online}/{len(adapters)} devices online"
    return text + (f", {halted} halted" if halted else "")


class Daemon:
    def __init__(self, loaded: LoadedConfig, clock: Callable[[], datetime] = utc_instant) -> None:
        self.loaded = loaded
        self.clock = clock
        cfg = loaded.config
        # The journal's lock is taken here: a second daemon on it is refused (JournalInUse).
        self.journal = Journal(loaded.journal_path)
        self.log = structlog.get_logger("floord.daemon").bind(site=cfg.site)
        # Told every device event on its way to a table's bus (the metrics' counters).
        self.heard: Callable[[str, Received], None] | None = None
        try:
            self.operators = {op.id: loaded.operator_keys(op.id) for op in cfg.operators}
            builder = TableBuilder(loaded, self.journal, clock, self.operators, self._heard)
            self.tables: dict[str, TableUnit] = {t.id: builder.build(t) for t in cfg.tables}
        except BaseException:
            self.journal.close()  # and its lock with it: a start refused holds nothing
            raise
        # The tables restored and running, in the order they started.
        self._serving: list[TableUnit] = []
        self._stop = asyncio.Event()

    @classmethod
    async def open(
        cls, loaded: LoadedConfig, clock: Callable[[], datetime] = utc_instant
    ) -> Daemon:
        """The daemon built in a worker thread: the journal opened (a migration, if one
        is due) and every table's snapshot and history read while the loop goes on."""
        return await asyncio.to_thread(functools.partial(cls, loaded, clock))

    def _heard(self, table: str, item: Received) -> None:
        if self.heard is not None:
            self.heard(table, item)

    async def restore(self, unit: TableUnit) -> None:
        """Record the table's start and resolve what a previous run left open, its
        check and its commit awaited on the journal's thread while the loop serves the
        tables already started."""
        now = self.clock()
        started = self._started(unit, now)
        # The chain's tail and the snapshot: a break halts the table (fail closed).
        engine = unit.runner.engine
        table, streams = unit.config.id, unit.streams
        started.extend(
            await check_on_start(self.journal, table, streams, engine, now, unit.record_breaks)
        )
        await unit.runner.record_output(started, now)

    def _started(self, unit: TableUnit, now: datetime) -> EngineOutput:
        """`daemon.started` and what the engine resolves of the previous run."""
        started = unit.runner.engine.after_restart(now)
        started.events.insert(
            0,
            _daemon_decision(
                EventType.DAEMON_STARTED,
                {
                    "version": floord.__version__,
                    "devices": list(unit.adapters),
                    "profiles": unit.profiles,
                    "drivers": unit.drivers,
                },
            ),
        )
        return started

    async def _start_tables(self) -> None:
        """Each table restored, then served (its runner, link and devices), in turn: a
        table serves nothing before its start check and start record are done."""
        for unit in self.tables.values():
            await self.restore(unit)
            unit.tasks.append(asyncio.create_task(unit.runner.run()))
            unit.tasks.append(asyncio.create_task(self._keep_linked(unit)))
            unit.device_tasks.extend(
                asyncio.create_task(
                    supervise(a, sink=unit.bus.put, clock=self.clock, stopping=self._stop.is_set),
                    name=f"device {unit.config.id}/{d}",
                )
                for d, a in unit.adapters.items()
            )
            self._serving.append(unit)

    async def _keep_linked(self, unit: TableUnit) -> None:
        """The link ends only on a journal failure; the runner halts the table, and the
        link starts again so the halted state and the backlog still go out. Anything else
        that ends it is a fault of floord's (what comes from outside is refused where it
        is read): logged with its traceback, and the link starts again, so no message can
        leave a table unheard for good."""
        while True:
            try:
                await unit.link.run()
                return
            except JournalError as exc:
                self.log.error(
                    "mqtt link stopped on a journal error", table=unit.config.id, error=str(exc)
                )
            except Exception as exc:
                self.log.error(
                    "mqtt link failed; starting it again",
                    table=unit.config.id,
                    error=repr(exc),
                    exc_info=exc,
                )
            await asyncio.sleep(LINK_RETRY_S)

    async def _ticks(self) -> None:
        """The clock's tick, every `TICK_S`, to each table that has a use for it (its
        engine's deadlines, the gaming day's start: `TableRunner.wants_tick`)."""
        while True:
            await asyncio.sleep(TICK_S)
            now = self.clock()
            for unit in self._serving:
                if unit.runner.wants_tick(now):
                    unit.bus.put(Tick(now))

    async def _prune_journal(self, days: int) -> None:
        """Retention (`journal_retention_days`): at start and once an hour, drop published
        events older than that; the chain stays verifiable (docs/journal.md)."""
        while True:
            cut = format_ts(self.clock() - timedelta(days=days))
            try:
                removed = await self.journal.prune_async(cut)
            except JournalError as exc:
                self.log.error("journal pruning failed", error=str(exc))
            else:
                if removed:
                    self.log.info("journal pruned", events=removed, before=cut)
            await asyncio.sleep(PRUNE_EVERY_S)

    async def _watchdog(self, every: float) -> None:
        await keep_watchdog(every)

    def status_line(self) -> str:
        """What systemd shows for the unit (`STATUS=`): tables, halts, devices online."""
        return status_text(self.tables.values())

    async def _devices_tried(self) -> None:
        """Until every adapter's first connection attempt has an outcome, or a stop is
        asked; bounded by the slowest profile's connect timeout + 1 s, so a device that
        opens but never speaks cannot hold readiness back for ever."""
        adapters = [a for u in self.tables.values() for a in u.adapters.values()]
        if not adapters:
            return
        bound = max(a.profile.timeouts.connect_s for a in adapters) + READY_GRACE_S
        waits = [asyncio.create_task(a.tried.wait()) for a in adapters]
        stop = asyncio.create_task(self._stop.wait())
        all_tried = asyncio.gather(*waits)
        either: set[asyncio.Future[Any]] = {all_tried, stop}
        try:
            first = asyncio.FIRST_COMPLETED
            await asyncio.wait(either, timeout=bound, return_when=first)
        finally:
            for task in [*waits, stop]:
                task.cancel()
            await asyncio.gather(all_tried, stop, return_exceptions=True)

    async def _status_updates(self) -> None:
        """Tell systemd when the status line changes (devices come and go, halts)."""
        last = ""
        while True:
            line = self.status_line()
            if line != last:
                notify(f"STATUS={line}")
                last = line
            await asyncio.sleep(STATUS_EVERY_S)

    def request_stop(self) -> None:
        self._stop.set()

    async def run(self) -> None:
        """Run until `request_stop()` (or SIGTERM/SIGINT), then stop cleanly."""
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, self.request_stop)
        self.log.info(
            "floord starting",
            version=floord.__version__,
            journal=str(self.loaded.journal_path),
            tables=list(self.tables),
        )
        notify(f"STATUS=restoring {len(self.tables)} tables")
        background: list[asyncio.Task[Any]] = [asyncio.create_task(self._ticks())]
        every = watchdog_interval_s()
        if every:
            background.append(asyncio.create_task(self._watchdog(every)))
        try:
            await self._start_tables()
            retention = self.loaded.config.journal_retention_days
            if retention is not None:
                background.append(asyncio.create_task(self._prune_journal(retention)))
            # Type=notify: ready once every table is restored and every device was tried.
            notify(f"STATUS={len(self.tables)} tables restored, trying their devices")
            await self._devices_tried()
            notify(f"READY=1\nSTATUS={self.status_line()}")
            background.append(asyncio.create_task(self._status_updates()))
            frozen = long_lived.settle()
            self.log.info("floord ready", status=self.status_line(), objects_frozen=frozen)
            await self._stop.wait()
        finally:
            notify("STOPPING=1")
            await self._shutdown(background)

    async def _publishing(self) -> bool:
        """A connected link still has events to publish (read off the loop)."""
        for unit in self._serving:
            if unit.link.connected and await self.journal.backlog_async(unit.streams):
                return True
        return False

    async def _shutdown(self, background: list[asyncio.Task[Any]]) -> None:
        # From here on no table takes a command or starts a round (the link still hands
        # commands over, and each is refused `stopping`, on the record).
        for unit in self._serving:
            unit.runner.stop.begin()
        for unit in self._serving:
            for adapter in unit.adapters.values():
                adapter.stop()
        # Stop the adapters first so nothing new arrives, then record the stop.
        for unit in self._serving:
            adapter_tasks = unit.device_tasks
            for task in adapter_tasks:
                task.cancel()
            if not adapter_tasks:
                continue
            _, stuck = await asyncio.wait(adapter_tasks, timeout=ADAPTER_STOP_S)
            if stuck:
                # A task that ignores its cancellation must not hold the stop (and the
                # record of it) hostage; say which, and go on.
                self.log.error(
                    "adapter tasks did not stop",
                    table=unit.config.id,
                    tasks=[t.get_name() for t in stuck],
                )
        await self._finish_tables()
        # Give each link a moment to publish its backlog, then say offline.
        deadline = loop_time() + 3.0
        while loop_time() < deadline and await self._publishing():
            await asyncio.sleep(0.05)
        await asyncio.gather(*(u.link.stop() for u in self._serving), return_exceptions=True)
        for unit in self._serving:
            for task in unit.tasks:
                task.cancel()
            await asyncio.gather(*unit.tasks, return_exceptions=True)
        for task in background:
            task.cancel()
        await asyncio.gather(*background, return_exceptions=True)
        # Its last job folds the published marks into the rows: off the loop too.
        await asyncio.to_thread(self.journal.close)
        self.log.info("floord stopped")

    async def _finish_tables(self) -> None:
        """Each runner records `daemon.stopped` after every input queued before it; a
        runner that does not get there in time is finished from here."""
        for unit in self._serving:
            unit.bus.put(Finish())
        for unit in self._serving:
            try:
                async with asyncio.timeout(RUNNER_FINISH_S):
                    await unit.runner.stop.finished.wait()
                watcher = unit.runner.surveillance
                if isinstance(watcher, watch_state.KeptWatch):  # the next start replays none
                    await watch_state.save_at_stop(self.journal, unit.config.id, watcher)
            except TimeoutError:
                self.log.error("table runner did not finish its stop", table=unit.config.id)
                try:
                    async with asyncio.timeout(RUNNER_FINISH_S):
                        await unit.runner.finish(self.clock())
                except TimeoutError:
                    # Its commit is stuck on the journal's thread: the stop goes on.
                    self.log.error("table runner could not record its stop", table=unit.config.id)


# How long a stop waits for a table's adapter tasks after cancelling them.
ADAPTER_STOP_S = 5.0
# How long a stop waits for a table's runner to reach its `daemon.stopped`.
RUNNER_FINISH_S = 5.0


def loop_time() -> float:
    return asyncio.get_running_loop().time()


def _daemon_decision(etype: EventType, data: dict[str, Any]) -> Decision:
    return Decision(type=etype, data=data, source="daemon")
