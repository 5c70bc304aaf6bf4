"""A table's runner: the one task that feeds the engine and hands what it decides to
its recorder.

The runner takes the inputs waiting on the table's bus (device events, operator
commands, clock ticks) through the pure engine in order, and makes of them turns
(`floord.table.turn`): the device events and ticks taken together are one turn, an
operator command is one on its own, in its place in the order. Its recorder
(`floord.table.recorder`) commits each turn in ONE transaction with the table's new
snapshot; only then does the link publish them, and the engine's device commands go
out. If the journal cannot record, the table is halted (fail closed): nothing is
decided that is not on the record, and a refused turn leaves no trace in the engine
(`floord.table.engine_state`). The daemon's stop goes through the runner too
(`floord.table.stopping`): from its start no command is taken and no round starts, and
`daemon.stopped` is the table's last event.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

import structlog

from floord.adapters.device_rows import Row
from floord.adapters.local import Received
from floord.adapters.remote import TableDevice
from floord.contract import Envelope, format_ts
from floord.engine.core.types import EngineOutput
from floord.journal.store import Journal
from floord.operator.commands import Operators
from floord.table.bus import BusItem, CommandArrived, Finish, TableBus, Tick
from floord.table.command_turns import CommandTurns
from floord.table.effects import Effects
from floord.table.engine_state import EngineState, Pair
from floord.table.port import Committed
from floord.table.recorder import Recorder
from floord.table.stopping import StopGate
from floord.table.surveillance import AlertKeeper
from floord.table.turn import Step, Turn, device_decision
from floord.table.vocabulary import TableEngine as TableEngine


class TableRunner:
    def __init__(
        self,
        *,
        site: str,
        table: str,
        engine: TableEngine,
        journal: Journal,
        bus: TableBus,
        adapters: dict[str, TableDevice],
        operators: Operators,
        clock: Callable[[], datetime],
        committed: Committed,
        surveillance: AlertKeeper | None = None,
    ) -> None:
        """`committed`: the port told of what goes on the record, and of each command's
        result (the daemon's MQTT link, `floord.table.port`)."""
        self.site = site
        self.table = table
        self.bus = bus
        self.adapters = adapters
        self.live = EngineState(engine, surveillance)
        self._log = structlog.get_logger("floord.runner").bind(table=table)
        self.committed = committed
        self.recorder = Recorder(
            site=site,
            table=table,
            journal=journal,
            live=self.live,
            committed=committed,
            clock=clock,
            log=self._log,
        )
        self._clock = clock
        # One turn (or a stop's record) at a time, across the awaits of its commit.
        self._turn = asyncio.Lock()
        # Where the table is in the daemon's stop (`floord.table.stopping`).
        self.stop = StopGate()
        self.effects = Effects(adapters, committed, self._log)
        self.commands = CommandTurns(
            table=table,
            live=self.live,
            journal=journal,
            operators=operators,
            clock=clock,
            stop=self.stop,
            recorder=self.recorder,
            effects=self.effects,
            commit=self._commit_command,
        )

    # ----- what others read -------------------------------------------------------

    @property
    def engine(self) -> TableEngine:
        return self.live.engine

    @property
    def surveillance(self) -> AlertKeeper | None:
        return self.live.surveillance

    @property
    def record_failure(self) -> str | None:
        return self.recorder.failure

    @property
    def record_failure_code(self) -> str:
        return self.recorder.failure_code

    @property
    def halted(self) -> bool:
        """Whether `state()` says `halted`, read without building it (the daemon's
        status line asks of every table each second)."""
        return self.recorder.halted

    def state(self) -> dict[str, Any]:
        """The retained `P/state` body (`Recorder.state`)."""
        return self.recorder.state()

    # ----- the loop ---------------------------------------------------------------

    async def run(self) -> None:
        try:
            while True:
                first = await self.bus.get()
                async with self._turn:
                    await self.take(self.bus.take_group(first))
        finally:
            await self.effects.cancel()

    async def take(self, items: Sequence[BusItem]) -> None:
        """Every input that was waiting, through the engine in order: the device events
        and ticks among them are committed together, once (group commit); an operator
        command is committed on its own, in its place in the order, and so is the
        daemon's `Finish` (its `daemon.stopped` stamped by the runner's clock then)."""
        gathered: list[Received | Tick] = []
        for item in items:
            if isinstance(item, CommandArrived | Finish):
                await self._take_group(gathered)
                gathered = []
                try:
                    if isinstance(item, Finish):
                        await self._finish(self._clock(), item.reason)
                    else:
                        await self.on_command(item.payload, replay_only=item.replay_only)
                except Exception:
                    self._input_failed()
            else:
                gathered.append(item)
        await self._take_group(gathered)

    async def _take_group(self, gathered: list[Received | Tick]) -> None:
        """`gathered` through the engine and committed in ONE turn, with the rows of the
        local devices' events among them on their streams (numbered by the journal in
        that transaction: `floord.adapters.device_rows`), written whatever the engine
        makes of them: the first commit takes them, or they go on their own."""
        rows = tuple(i.row for i in gathered if isinstance(i, Received) and i.row is not None)
        left = await self._run_group(gathered, rows)
        await self.recorder.commit_rows(left)  # rows of inputs that left nothing on the record

    async def _run_group(
        self, gathered: list[Received | Tick], rows: tuple[Row, ...]
    ) -> tuple[Row, ...]:
        """`gathered` through the engine and committed, with `rows` (those of the group
        not yet committed); what is returned of `rows` is still to be written. Should
        the engine fail on one of `gathered` (a bug), the ones before it are taken again
        from the committed state (the engine is pure: they decide the same) and
        committed, the table halts for that one, and the rest go on."""
        if not gathered:
            return rows
        steps: list[Step] = []
        mark = self.stop.held_back_mark()
        for n, item in enumerate(gathered):
            try:
                if isinstance(item, Received):
                    steps.extend(self._device_steps(item))
                else:
                    steps.extend(self._tick_steps(item.now))
            except Exception:
                self.live.roll_back()  # the half-done input is not on the record, nor its group
                self.stop.forget_held_back(mark)
                rows = await self._run_group(gathered[:n], rows)
                self._input_failed()
                return await self._run_group(gathered[n + 1 :], rows)
        try:
            await self._commit(steps, gathered, rows)
        except Exception:
            self._input_failed()
        return ()

    async def _commit(
        self,
        steps: list[Step],
        inputs: Sequence[BusItem] = (),
        rows: tuple[Row, ...] = (),
        command_id: tuple[str, str] | None = None,
    ) -> list[Envelope]:
        """`steps` as one turn, with `rows` (the local devices' rows of its inputs) and
        the table's snapshot now; its envelopes once on the record, [] if the journal
        refused it (or there was nothing to record)."""
        if not steps:
            await self.recorder.commit_rows(rows)
            self._show_new_day()
            return []
        snapshot = self.live.snapshot()
        turn = Turn(tuple(inputs), tuple(steps), snapshot, rows, command_id)
        return await self.recorder.commit(turn)

    async def _commit_command(
        self, steps: list[Step], command_id: tuple[str, str] | None
    ) -> list[Envelope]:
        """An operator command's turn (`floord.table.command_turns`): no device rows."""
        return await self._commit(steps, command_id=command_id)

    def _show_new_day(self) -> None:
        """A gaming day the engine took up with nothing to record (a tick past the day's
        start) shows on `P/state` at once, not at the table's next event: the turn
        recorded nothing, so the live state is the committed one with the day's new
        label, and it is kept as the committed one (once a day)."""
        if self.recorder.in_flight:
            return
        if self.engine.gaming_day != self.live.committed.get("gaming_day"):
            self.live.keep()
            self.committed.state_changed()

    def _input_failed(self) -> None:
        """A bug must not stop the table's record; it is logged loudly and the table is
        halted so a person looks at it."""
        self._log.exception("engine input failed; halting the table")
        self.live.roll_back()  # whatever the input half-did is not on the record
        self.recorder.fail_closed("internal_error", "internal error while processing an input")

    # ----- device events and ticks ------------------------------------------------

    def _device_steps(self, item: Received) -> list[Step]:
        if self.stop.finished.is_set():
            return []  # the record is closed; the event stays on its device's stream
        before = self.live.copy() if self.stop.stopping else None
        round_at_receipt = self.engine.current_round
        output = self.engine.on_device_event(
            item.device, str(item.event.type), item.event.data, item.ts
        )
        ts = format_ts(item.ts)
        named = {
            "source": item.device,
            "type": str(item.event.type),
            "ts": ts,
            "device_seq": item.device_seq,
        }
        if self._held_back(output, before):
            self.stop.held_back(named, item.row)  # the daemon is stopping: no round starts
            return []
        received = device_decision(item, round_at_receipt)
        if self.surveillance is not None:
            raised = self.surveillance.on_device(received)
            self.live.watch(output)
            output.events.extend(raised)
        decisions = (received, *output.events)
        return [Step(decisions, ts, named, self.effects.sender(output), item.row)]

    def wants_tick(self, now: datetime) -> bool:
        """Whether a tick at `now` could change anything on this table: a deadline of
        the engine's (`quiet_until`) or of the refusal window reached, a journal to try
        again, a stop under way. The daemon puts no tick on the bus of a table that
        wants none, so an idle table's runner sleeps through the clock's ticks."""
        if self.record_failure is not None or self.stop.stopping:
            return True
        due = self.engine.quiet_until(now)
        if due is None or now >= due:
            return True
        window_ends = self.commands.refusal_window_ends()
        return window_ends is not None and now >= window_ends

    def _tick_steps(self, now: datetime) -> list[Step]:
        if self.stop.finished.is_set():
            return []
        ts = format_ts(now)
        # While the table cannot record, every tick tries the journal again (the disk
        # may have room now): the pending halt goes on the record and out over MQTT
        # without waiting for a device event.
        retry = [Step((), ts)] if self.record_failure else []
        retry += self.commands.refusals_counted(now, ts)
        before = self.live.copy() if self.stop.stopping else None
        output = self.engine.tick(now)
        if self._held_back(output, before):
            return retry
        self.live.watch(output)
        return retry + self._output_steps(output, ts)

    def _output_steps(self, output: EngineOutput, ts: str) -> list[Step]:
        """Engine decisions that no input carries (ticks, the start); what the engine
        asks of a device is sent once they are on the record (never if they are not), or
        now when there is nothing to record."""
        if output.events:
            return [Step(tuple(output.events), ts, effect=self.effects.sender(output))]
        self.effects.dispatch(output)
        return []

    def _held_back(self, output: EngineOutput, before: Pair | None) -> bool:
        """While the daemon stops, an input whose answer would start a round is not acted
        on: the engine is put back to `before` it (the state the inputs gathered ahead of
        it in the same turn left, not the committed one), and True is returned."""
        if before is None or not self.stop.holds_back(output):
            return False
        self.live.put_back(before)
        return True

    async def record_output(self, output: EngineOutput, now: datetime) -> None:
        """Record engine decisions that no input carries (the daemon's start), as one
        turn, its commit awaited while the loop goes on."""
        await self._commit(self._output_steps(output, format_ts(now)))

    # ----- operator commands ------------------------------------------------------

    async def on_command(self, payload: bytes, *, replay_only: bool = False) -> None:
        """A command from `P/cmd` (with `replay_only`, from `P/replay/request`), taken
        in its own turn (`floord.table.command_turns`)."""
        await self.commands.take(payload, replay_only=replay_only)

    # ----- the stop ---------------------------------------------------------------

    async def finish(self, now: datetime, reason: str = "clean stop") -> None:
        """Record `daemon.stopped`, the table's last event (once), between two of the run
        loop's turns (the daemon's stop, should the runner not reach its `Finish` in
        time; a test, a tool)."""
        async with self._turn:
            await self._finish(now, reason)

    async def _finish(self, now: datetime, reason: str) -> None:
        if self.stop.finished.is_set():
            return
        self.stop.begin()
        try:
            await self._commit([Step((self.stop.stopped(reason),), format_ts(now))])
        finally:
            # Recorded or refused by the journal, the table takes nothing more.
            self.stop.finished.set()
