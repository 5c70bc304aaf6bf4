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
import contextlib
from collections.abc import Callable, Coroutine, Sequence
from datetime import datetime
from typing import Any

import structlog

from floord.adapters.device_rows import Row
from floord.adapters.local import Received
from floord.adapters.remote import TableDevice
from floord.contract import Envelope, EventType, format_ts
from floord.engine.core.types import Decision, EngineOutput, VerifiedCommand
from floord.journal.store import Journal, JournalError
from floord.operator.commands import Operators, Refusal, Verified, claimed_id
from floord.table import command_check
from floord.table.bus import BusItem, CommandArrived, Finish, TableBus, Tick
from floord.table.engine_state import EngineState, Pair
from floord.table.port import Committed
from floord.table.recorder import Recorder
from floord.table.replay import replay_range
from floord.table.stopping import STOPPED_REASON, StopGate
from floord.table.surveillance import AlertKeeper
from floord.table.turn import Step, Turn, device_decision
from floord.table.unrecorded import command_named
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
        self._journal = journal
        self._operators = operators
        self._clock = clock
        self._tasks: set[asyncio.Task[Any]] = set()
        # The local devices' rows of the inputs being taken, for the next commit.
        self._rows: list[Row] = []
        # One turn (or a stop's record) at a time, across the awaits of its commit.
        self._turn = asyncio.Lock()
        # Where the table is in the daemon's stop (`floord.table.stopping`).
        self.stop = StopGate()

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
            for task in list(self._tasks):
                task.cancel()
            for task in list(self._tasks):
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task

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
        self._rows = [i.row for i in gathered if isinstance(i, Received) and i.row is not None]
        await self._run_group(gathered)
        rows, self._rows = self._rows, []
        await self.recorder.commit_rows(rows)  # rows of inputs that left nothing on the record

    async def _run_group(self, gathered: list[Received | Tick]) -> None:
        """Should the engine fail on one of `gathered` (a bug), the ones before it are
        taken again from the committed state (the engine is pure: they decide the same)
        and committed, the table halts for that one, and the rest go on."""
        if not gathered:
            return
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
                await self._run_group(gathered[:n])
                self._input_failed()
                await self._run_group(gathered[n + 1 :])
                return
        try:
            await self._commit(steps, gathered)
        except Exception:
            self._input_failed()

    async def _commit(
        self,
        steps: list[Step],
        inputs: Sequence[BusItem] = (),
        command_id: tuple[str, str] | None = None,
    ) -> list[Envelope]:
        """`steps` as one turn, with the device rows waiting and the table's snapshot now;
        its envelopes once on the record, [] if the journal refused it (or there was
        nothing to record)."""
        rows, self._rows = self._rows, []
        if not steps:
            await self.recorder.commit_rows(rows)
            self._show_new_day()
            return []
        snapshot = self.live.snapshot()
        turn = Turn(tuple(inputs), tuple(steps), snapshot, tuple(rows), command_id)
        return await self.recorder.commit(turn)

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
            self._watch(output)
            output.events.extend(raised)
        decisions = (received, *output.events)
        return [Step(decisions, ts, named, self._sender(output), item.row)]

    def _tick_steps(self, now: datetime) -> list[Step]:
        if self.stop.finished.is_set():
            return []
        ts = format_ts(now)
        # While the table cannot record, every tick tries the journal again (the disk
        # may have room now): the pending halt goes on the record and out over MQTT
        # without waiting for a device event.
        retry = [Step((), ts)] if self.record_failure else []
        before = self.live.copy() if self.stop.stopping else None
        output = self.engine.tick(now)
        if self._held_back(output, before):
            return retry
        self._watch(output)
        return retry + self._output_steps(output, ts)

    def _output_steps(self, output: EngineOutput, ts: str) -> list[Step]:
        """Engine decisions that no input carries (ticks, the start); what the engine
        asks of a device is sent once they are on the record (never if they are not), or
        now when there is nothing to record."""
        if output.events:
            return [Step(tuple(output.events), ts, effect=self._sender(output))]
        self._dispatch(output)
        return []

    def _held_back(self, output: EngineOutput, before: Pair | None) -> bool:
        """While the daemon stops, an input whose answer would start a round is not acted
        on: the engine is put back to `before` it (the state the inputs gathered ahead of
        it in the same turn left, not the committed one), and True is returned."""
        if before is None or not self.stop.holds_back(output):
            return False
        self.live.put_back(before)
        return True

    def _watch(self, output: EngineOutput) -> None:
        """The watcher's alerts on what the engine decided, recorded with it."""
        if self.surveillance is not None:
            output.events.extend(self.surveillance.alerts_on(output.events))

    def _sender(self, output: EngineOutput) -> Callable[[], None]:
        return lambda: self._dispatch(output)

    def _dispatch(self, output: EngineOutput) -> None:
        for command in output.device_commands:
            adapter = self.adapters.get(command.device)
            if adapter is None:
                self._log.error("engine asked for an unknown device", device=command.device)
                continue
            self._spawn(adapter.send(command))

    async def record_output(self, output: EngineOutput, now: datetime) -> None:
        """Record engine decisions that no input carries (the daemon's start), as one
        turn, its commit awaited while the loop goes on."""
        await self._commit(self._output_steps(output, format_ts(now)))

    # ----- operator commands ------------------------------------------------------

    async def on_command(self, payload: bytes, *, replay_only: bool = False) -> None:
        """A command from `P/cmd`; with `replay_only`, from `P/replay/request`, where
        nothing but a `replay` is taken (whoever may publish there can command nothing)."""
        now = self._clock()
        ts = format_ts(now)
        if self.stop.finished.is_set():
            # `daemon.stopped` is the table's last event: an answer, but no record.
            await self._reply(claimed_id(payload), False, STOPPED_REASON)
            return
        try:
            verified = await command_check.verify(
                payload, journal=self._journal, operators=self._operators, now=now
            )
        except JournalError as exc:
            # The replay guard cannot be read: no command can be taken safely.
            self.recorder.fail_closed(exc.code, str(exc))
            await self._reply(claimed_id(payload), False, f"not recorded: {exc}")
            return
        if isinstance(verified, Refusal):
            await self._refuse(verified, ts)
            return
        command = verified.command
        # The id is used from now on: recorded with whatever record the command makes.
        used = (command.id, ts)
        refusal = command_check.gate(
            command, replay_only=replay_only, stop=self.stop, failure=self.record_failure
        )
        if refusal is not None:
            await self._refuse(refusal, ts, command_id=used)
        elif command.name == "replay":
            await self._replay(command, command_check.described(verified), ts)
        else:
            await self._take_command(verified, now, ts)

    async def _take_command(self, verified: Verified, now: datetime, ts: str) -> None:
        """A command through the engine (`ack_alert`: through the watcher), recorded with
        what it decided in one turn, then answered."""
        command = verified.command
        used = (command.id, ts)
        source = f"operator:{command.by}"
        described = command_check.described(verified)
        named = command_named(command.id, command.name, source, ts)
        if command.name == "ack_alert":
            closed = self._ack_alert(command)
            if closed is None:
                problem = f"no open surveillance alert {command.args.get('alert')!r} on this table"
                refused = Refusal("bad_args", problem, command.id, command.name, command.by)
                await self._refuse(refused, ts, command_id=used)
                return
            accepted = Decision(EventType.OPERATOR_COMMAND, described, source=source)
            step = Step((accepted, closed), ts, named)
        else:
            outcome = self.engine.on_command(command, now)
            if not outcome.ok:
                data = {**described, "code": "refused", "reason": outcome.error}
                refused_event = Decision(
                    EventType.OPERATOR_COMMAND_REFUSED, data, outcome.rule, source=source
                )
                await self._commit([Step((refused_event,), ts, named)], command_id=used)
                await self._reply(command.id, False, outcome.error)
                return
            rnd = self.engine.current_round
            accepted = Decision(EventType.OPERATOR_COMMAND, described, round=rnd, source=source)
            output = outcome.output
            self._watch(output)
            step = Step((accepted, *output.events), ts, named, self._sender(output))
        if await self._commit([step], command_id=used):
            await self._reply(command.id, True, None)
        else:
            await self._reply(command.id, False, f"not recorded: {self.record_failure}")

    async def _refuse(
        self, refusal: Refusal, ts: str, *, command_id: tuple[str, str] | None = None
    ) -> None:
        """Record and answer a refusal; `command_id`: a verified command's, used up."""
        event = command_check.refused(refusal, self._operators)
        named = command_named(refusal.command_id, refusal.name, event.source, ts)
        await self._commit([Step((event,), ts, named)], command_id=command_id)
        await self._reply(refusal.command_id, False, refusal.reason)

    async def _replay(self, command: VerifiedCommand, described: dict[str, Any], ts: str) -> None:
        """Events of the table's stream published again, on `P/replay`."""
        asked = replay_range(command.args)
        used = (command.id, ts)
        if isinstance(asked, str):
            refusal = Refusal("bad_args", asked, command.id, command.name, command.by)
            await self._refuse(refusal, ts, command_id=used)
            return
        first, last = asked
        event = Decision(EventType.OPERATOR_COMMAND, described, source=f"operator:{command.by}")
        await self._commit([Step((event,), ts)], command_id=used)
        payloads = await self._journal.read_range_async(self.table, first, last)
        await self._reply(command.id, True, None)  # the result first: spawned, in order
        self._spawn(self.committed.publish_replay(payloads))

    def _ack_alert(self, command: VerifiedCommand) -> Decision | None:
        """A supervisor or security closes an open surveillance alert: the closing, or
        None when there is no such alert open."""
        note = command.args.get("note", "")
        alert_id = command.args.get("alert")
        watcher = self.surveillance
        return watcher.acknowledge(alert_id, command.by, str(note)) if watcher else None

    async def _reply(self, command_id: str | None, ok: bool, error: str | None) -> None:
        self._spawn(self.committed.publish_result({"id": command_id, "ok": ok, "error": error}))

    def _spawn(self, work: Coroutine[Any, Any, Any]) -> None:
        """Publish in the background: a slow or half-dead broker must never hold up the
        engine, which has to halt a table even while MQTT is unreachable."""
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

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
