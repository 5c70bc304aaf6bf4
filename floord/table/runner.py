"""A table's runner: the one task that feeds the engine and records what it decides.

For each input taken from the table's bus (a device event, an operator command, a
clock tick) the runner asks the pure engine what follows, then journals the input and
every decision in ONE transaction together with the table's new snapshot, and only
then lets the MQTT link publish them. If the journal cannot record, the table is
halted (fail closed): nothing is decided that is not on the record.

The engine acts only on inputs the journal holds. The runner keeps two states: the
committed one (what the journal's last snapshot holds, plus a halt not yet recorded)
and the candidate the engine becomes by acting on an input. A failed append puts the
committed state back, so an input the journal refused leaves no trace in the engine
(no round started that the record does not show), and the halt, once recorded, names
those inputs (`unrecorded_inputs`). The daemon's stop goes through the runner too
(`floord.table.stopping`): from its start no command is taken and no round starts, and
`daemon.stopped` is the table's last event.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Coroutine
from datetime import datetime
from typing import Any

import structlog

from floord.adapters.local import Received
from floord.adapters.remote import TableDevice
from floord.contract import EventType, format_ts
from floord.engine.core.types import EngineOutput, VerifiedCommand
from floord.journal.store import Journal, JournalError
from floord.operator.commands import (
    Operators,
    Refusal,
    check_command,
    claimed_id,
    looked_up_id,
)
from floord.table.bus import BusItem, CommandArrived, Finish, TableBus, Tick
from floord.table.commit_group import Entry, PendingRows
from floord.table.recording import Link as Link
from floord.table.recording import TableEngine as TableEngine
from floord.table.recording import TableRecord
from floord.table.replay import replay_range
from floord.table.stopping import STOPPED_REASON, StopGate
from floord.table.surveillance import AlertKeeper
from floord.table.unrecorded import Pending, Unrecorded, command_named


class TableRunner(TableRecord):
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
        surveillance: AlertKeeper | None = None,
    ) -> None:
        self.site = site
        self.surveillance = surveillance
        self.table = table
        self.engine = engine
        self.bus = bus
        self.adapters = adapters
        self.link: Link | None = None
        self._journal = journal
        self._operators = operators
        self._clock = clock
        self._log = structlog.get_logger("floord.runner").bind(table=table)
        self._tasks: set[asyncio.Task[Any]] = set()
        self.record_failure: str | None = None
        self._unrecorded_halt: list[Pending] = []
        # The inputs the journal refused (named in the halt when it goes on the record).
        self._unrecorded = Unrecorded()
        # Why the table cannot record: `journal_disk_full`, `journal_failure`, ...
        self.record_failure_code = "journal_failure"
        # The committed state, put back when an append fails (see the module docstring).
        self._committed = self._copy_state()
        # The entries of the commit being gathered (None: each `_record` commits at once).
        self._group: list[Entry] | None = None
        self._rows = PendingRows()
        # A commit is under way on the journal's thread: `state()` shows the committed
        # state meanwhile, so nothing is published before it is durable.
        self._in_flight = False
        # One input (or a stop's record) at a time, across the awaits of its commit.
        self._turn = asyncio.Lock()
        # The table stream's chain head, as of the last commit (for `P/state`).
        self._head: tuple[int, str] | None = None
        with contextlib.suppress(JournalError):
            self._head = journal.chain_head(table)
        # Where the table is in the daemon's stop (`floord.table.stopping`).
        self.stop = StopGate()

    # ----- the record -------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        """The retained `P/state` body; a table that cannot record says it is halted."""
        engine, surveillance = (
            self._committed if self._in_flight else (self.engine, self.surveillance)
        )
        snap = dict(engine.public_state())
        if surveillance is not None:
            snap["alerts"] = surveillance.snapshot()["alerts"]
        if self.record_failure:
            snap["state"] = "halted"
            reasons = list(snap.get("halt_reasons") or [])
            # The engine latched the same halt when the failure began: name it once.
            if all(r.get("code") != self.record_failure_code for r in reasons):
                reasons.append({"code": self.record_failure_code, "detail": self.record_failure})
            snap["halt_reasons"] = reasons
        # The chain head lets a subscriber check the events it saw (docs/journal.md).
        if self._head is not None:
            seq, head = self._head
            snap["chain"] = {"seq": seq, "hash": head}
        return snap

    def _dispatch(self, output: EngineOutput) -> None:
        for command in output.device_commands:
            adapter = self.adapters.get(command.device)
            if adapter is None:
                self._log.error("engine asked for an unknown device", device=command.device)
                continue
            self._spawn(adapter.send(command))

    def record_output(self, output: EngineOutput, now: datetime) -> None:
        """Record engine decisions that no input carries (restart, ticks); what the engine
        asks of a device is sent once they are on the record (never if they are not)."""
        if output.events:
            self._record(self._decisions(output), now, then=lambda: self._dispatch(output))
        else:
            self._dispatch(output)

    async def record_output_async(self, output: EngineOutput, now: datetime) -> None:
        """`record_output`, its commit awaited while the loop goes on (the daemon's start)."""
        if output.events:
            await self._record_async(
                self._decisions(output), now, then=lambda: self._dispatch(output)
            )
        else:
            self._dispatch(output)

    def _held_back(
        self, output: EngineOutput, before: tuple[TableEngine, AlertKeeper | None] | None
    ) -> bool:
        """While the daemon stops, an input whose answer would start a round is not acted
        on: the engine is put back to `before` it (the state the inputs gathered ahead of
        it in the same commit left, not the committed one), and True is returned."""
        if before is None or not self.stop.holds_back(output):
            return False
        self.engine, self.surveillance = before
        return True

    # ----- inputs -----------------------------------------------------------------

    def on_device(self, item: Received) -> None:
        if self.stop.finished.is_set():
            return  # the record is closed; the event stays on its device's stream
        before = self._copy_state() if self.stop.stopping else None
        round_at_receipt = self.engine.current_round
        output = self.engine.on_device_event(
            item.device, str(item.event.type), item.event.data, item.ts
        )
        own = (item.device, str(item.event.type), item.event.data, None, round_at_receipt)
        named = {
            "source": item.device,
            "type": str(item.event.type),
            "ts": format_ts(item.ts),
            "device_seq": item.device_seq,
        }
        if self._held_back(output, before):
            self.stop.held_back(named)  # the daemon is stopping: no round starts
            return
        if self.surveillance is not None:
            output.events.extend(self.surveillance.on_decisions(output.events))
        self._record(
            [own, *self._decisions(output)], item.ts, named, then=lambda: self._dispatch(output)
        )

    async def on_command(self, payload: bytes, *, replay_only: bool = False) -> None:
        """A command from `P/cmd`; with `replay_only`, from `P/replay/request`, where
        nothing but a `replay` is taken (whoever may publish there can command nothing)."""
        now = self._clock()
        if self.stop.finished.is_set():
            # `daemon.stopped` is the table's last event: an answer, but no record.
            await self._reply(claimed_id(payload), False, STOPPED_REASON)
            return
        claimed = looked_up_id(payload)
        try:
            # Read off the loop before the check, which asks of the id it finds.
            used = claimed is not None and await self._journal.command_id_used_async(claimed)
            verified = check_command(
                payload,
                operators=self._operators,
                now=now,
                id_used=lambda cid: used if cid == claimed else self._journal.command_id_used(cid),
            )
        except JournalError as exc:
            # The replay guard cannot be read: no command can be taken safely.
            self._fail_closed(exc.code, str(exc))
            await self._reply(claimed_id(payload), False, f"not recorded: {exc}")
            return
        if isinstance(verified, Refusal):
            await self._refuse(verified, now)
            return
        result = verified.command
        # The id is used from now on: recorded with whatever record the command makes.
        spent = result.id
        source = f"operator:{result.by}"
        # `key`: which of the operator's keys signed it (current, or previous during a
        # key rotation), so the record shows when a retired key was still in use.
        described = {
            "id": result.id,
            "name": result.name,
            "by": result.by,
            "role": result.role,
            "key": verified.key,
        }
        stopping = self.stop.refusal(result.id, result.name, result.by)
        if stopping is not None:
            await self._refuse(stopping, now, command_id=spent)
            return
        if self.record_failure and result.name != "replay":
            await self._refuse(
                Refusal(
                    "journal_failure",
                    f"the table cannot record events ({self.record_failure})",
                    result.id,
                    result.name,
                    result.by,
                ),
                now,
                command_id=spent,
            )
            return
        if replay_only and result.name != "replay":
            await self._refuse(
                Refusal(
                    "not_a_replay",
                    f"only replay is taken on the replay request topic, not {result.name!r}",
                    result.id,
                    result.name,
                    result.by,
                ),
                now,
                command_id=spent,
            )
            return
        if result.name == "replay":
            await self._replay(result, described, now)
            return
        if result.name == "ack_alert":
            await self._ack_alert(result, described, now)
            return
        outcome = self.engine.on_command(result, now)
        if not outcome.ok:
            refused = {**described, "args": result.args, "code": "refused", "reason": outcome.error}
            await self._record_async(
                [(source, EventType.OPERATOR_COMMAND_REFUSED, refused, outcome.rule, None)],
                now,
                command_named(result.id, result.name, source, now),
                command_id=spent,
            )
            await self._reply(result.id, False, outcome.error)
            return
        accepted = {**described, "args": result.args}
        rnd = self.engine.current_round
        written = await self._record_async(
            [
                (source, EventType.OPERATOR_COMMAND, accepted, None, rnd),
                *self._decisions(outcome.output),
            ],
            now,
            command_named(result.id, result.name, source, now),
            command_id=spent,
        )
        if written:
            self._dispatch(outcome.output)
            await self._reply(result.id, True, None)
        else:
            await self._reply(result.id, False, f"not recorded: {self.record_failure}")

    async def _refuse(
        self, refusal: Refusal, now: datetime, *, command_id: str | None = None
    ) -> None:
        """Record and answer a refusal; `command_id`: a verified command's, used up."""
        data = {
            "id": refusal.command_id,
            "name": refusal.name,
            "by": refusal.by,
            "code": refusal.code,
            "reason": refusal.reason,
        }
        known = refusal.by in self._operators and refusal.code not in (
            "bad_signature",
            "key_expired",
        )
        source = f"operator:{refusal.by}" if known else "daemon"
        await self._record_async(
            [(source, EventType.OPERATOR_COMMAND_REFUSED, data, None, None)],
            now,
            command_named(refusal.command_id, refusal.name, source, now),
            command_id=command_id,
        )
        await self._reply(refusal.command_id, False, refusal.reason)

    async def _replay(
        self, command: VerifiedCommand, described: dict[str, Any], now: datetime
    ) -> None:
        args = command.args
        asked = replay_range(args)
        if isinstance(asked, str):
            await self._refuse(
                Refusal("bad_args", asked, command.id, command.name, command.by),
                now,
                command_id=command.id,
            )
            return
        first, last = asked
        await self._record_async(
            [
                (
                    f"operator:{command.by}",
                    EventType.OPERATOR_COMMAND,
                    {**described, "args": args},
                    None,
                    None,
                )
            ],
            now,
            command_id=command.id,
        )
        payloads = await self._journal.read_range_async(self.table, first, last)
        await self._reply(command.id, True, None)  # the result first: spawned, in order
        if self.link:
            self._spawn(self.link.publish_replay(payloads))

    async def _ack_alert(
        self, command: VerifiedCommand, described: dict[str, Any], now: datetime
    ) -> None:
        """A supervisor or security closes an open surveillance alert."""
        alert_id = command.args.get("alert")
        note = command.args.get("note", "")
        closed = (
            self.surveillance.acknowledge(alert_id, command.by, str(note))
            if self.surveillance is not None
            else None
        )
        if closed is None:
            problem = f"no open surveillance alert {alert_id!r} on this table"
            await self._refuse(
                Refusal("bad_args", problem, command.id, command.name, command.by),
                now,
                command_id=command.id,
            )
            return
        source = f"operator:{command.by}"
        accepted = {**described, "args": command.args}
        written = await self._record_async(
            [
                (source, EventType.OPERATOR_COMMAND, accepted, None, None),
                *self._decisions(EngineOutput([closed])),
            ],
            now,
            command_named(command.id, command.name, source, now),
            command_id=command.id,
        )
        if written:
            await self._reply(command.id, True, None)
        else:
            await self._reply(command.id, False, f"not recorded: {self.record_failure}")

    async def _reply(self, command_id: str | None, ok: bool, error: str | None) -> None:
        if self.link:
            self._spawn(self.link.publish_result({"id": command_id, "ok": ok, "error": error}))

    def _spawn(self, work: Coroutine[Any, Any, Any]) -> None:
        """Publish in the background: a slow or half-dead broker must never hold up the
        engine, which has to halt a table even while MQTT is unreachable."""
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def on_tick(self, now: datetime) -> None:
        if self.stop.finished.is_set():
            return
        if self.record_failure:
            # Try the journal again (the disk may have room now): the pending halt goes
            # on the record and out over MQTT without waiting for a device event.
            self._record([], now)
        before = self._copy_state() if self.stop.stopping else None
        output = self.engine.tick(now)
        if self._held_back(output, before):
            return
        self.record_output(output, now)

    def finish(self, now: datetime, reason: str = "clean stop") -> None:
        """Record `daemon.stopped`, the table's last event (once), the caller waiting
        for its commit (a tool, a test: off the loop)."""
        if self.stop.finished.is_set():
            return
        self.stop.begin()
        self.record_output(EngineOutput(events=[self.stop.stopped(reason)]), now)
        self.stop.finished.set()

    async def finish_async(self, now: datetime, reason: str = "clean stop") -> None:
        """`finish` between two of the run loop's inputs, its commit awaited (the
        daemon's stop, should the runner not reach its `Finish` in time)."""
        async with self._turn:
            await self._finish(now, reason)

    async def _finish(self, now: datetime, reason: str) -> None:
        if self.stop.finished.is_set():
            return
        self.stop.begin()
        try:
            await self._record_async(
                self._decisions(EngineOutput([self.stop.stopped(reason)])), now
            )
        finally:
            # Recorded or refused by the journal, the table takes nothing more.
            self.stop.finished.set()

    # ----- the loop ---------------------------------------------------------------

    async def run(self) -> None:
        try:
            while True:
                first = await self.bus.get()
                async with self._turn:
                    await self._take(self.bus.take_group(first))
        finally:
            for task in list(self._tasks):
                task.cancel()
            for task in list(self._tasks):
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task

    async def _take(self, items: list[BusItem]) -> None:
        """Every input that was waiting, through the engine in order: the device events
        and ticks among them are committed together, once (group commit); an operator
        command is committed on its own, in its place in the order, and so is the
        daemon's `Finish` (its `daemon.stopped` stamped by the runner's clock then)."""
        gathered: list[Received | Tick] = []
        for item in items:
            if isinstance(item, CommandArrived | Finish):
                await self._settle(gathered)
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
        await self._settle(gathered)

    async def _run_group(self, gathered: list[Received | Tick]) -> None:
        """`gathered` through the engine, committed in ONE transaction (`_settle`). Should
        the engine fail on one of them (a bug), the ones before it are taken again from
        the committed state (the engine is pure: they decide the same) and committed, the
        table halts for that one, and the rest go on."""
        if not gathered:
            return
        self._group = []
        mark = self.stop.held_back_mark()
        for n, item in enumerate(gathered):
            try:
                if isinstance(item, Received):
                    self.on_device(item)
                else:
                    self.on_tick(item.now)
            except Exception:
                self._group = None
                self._roll_back()  # the half-done input is not on the record, nor its group
                self.stop.forget_held_back(mark)
                await self._run_group(gathered[:n])
                self._input_failed()
                await self._run_group(gathered[n + 1 :])
                return
        entries, self._group = self._group, None
        try:
            await self._commit(entries)
        except Exception:
            self._input_failed()

    def _input_failed(self) -> None:
        """A bug must not stop the table's record; it is logged loudly and the table is
        halted so a person looks at it."""
        self._log.exception("engine input failed; halting the table")
        self._roll_back()  # whatever the input half-did is not on the record
        self._fail_closed("internal_error", "internal error while processing an input")
