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
import copy
from collections.abc import Callable, Coroutine
from datetime import datetime
from typing import Any, Protocol

import structlog

from floord.adapters.local import Received
from floord.adapters.remote import TableDevice
from floord.contract import Envelope, EventType, format_ts
from floord.engine.core.types import CommandOutcome, EngineOutput, VerifiedCommand
from floord.journal.store import Journal, JournalError
from floord.operator.commands import Operators, Refusal, check_command, claimed_id
from floord.table.bus import CommandArrived, Finish, TableBus, Tick
from floord.table.replay import replay_range
from floord.table.state_lines import log_recorded
from floord.table.stopping import STOPPED_REASON, StopGate
from floord.table.surveillance import AlertKeeper
from floord.table.unrecorded import Pending, Unrecorded, command_named


class TableEngine(Protocol):
    """What the runner needs of a game engine (the roulette engine is one)."""

    @property
    def current_round(self) -> str | None: ...
    def on_device_event(
        self, device: str, type: str, data: dict[str, Any], now: datetime
    ) -> EngineOutput: ...
    def on_command(self, command: VerifiedCommand, now: datetime) -> CommandOutcome: ...
    def tick(self, now: datetime) -> EngineOutput: ...
    def after_restart(self, now: datetime) -> EngineOutput: ...
    def halt(self, code: str, detail: str, now: datetime) -> EngineOutput: ...
    def snapshot(self) -> dict[str, Any]: ...
    def public_state(self) -> dict[str, Any]: ...


class Link(Protocol):
    def notify(self) -> None: ...
    def state_changed(self) -> None: ...
    async def publish_result(self, payload: dict[str, Any]) -> None: ...
    async def publish_replay(self, payloads: list[str]) -> None: ...


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
        self.stop = StopGate()

    # ----- the record -------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        """The retained `P/state` body; a table that cannot record says it is halted."""
        snap = dict(self.engine.public_state())
        if self.surveillance is not None:
            snap["alerts"] = self.surveillance.snapshot()["alerts"]
        if self.record_failure:
            snap["state"] = "halted"
            reasons = list(snap.get("halt_reasons") or [])
            # The engine latched the same halt when the failure began: name it once.
            if all(r.get("code") != self.record_failure_code for r in reasons):
                reasons.append({"code": self.record_failure_code, "detail": self.record_failure})
            snap["halt_reasons"] = reasons
        with contextlib.suppress(JournalError):
            # The chain head lets a subscriber check the events it saw (docs/journal.md).
            seq, head = self._journal.chain_head(self.table)
            snap["chain"] = {"seq": seq, "hash": head}
        return snap

    def _builders(self, items: list[Pending], ts: str) -> list[Callable[[int], Envelope]]:
        return [self._builder(item, ts) for item in items]

    def _builder(self, item: Pending, ts: str) -> Callable[[int], Envelope]:
        """The envelope of `item` once the journal gives it its `seq`."""
        source, etype, data, rule, rnd = item

        def build(seq: int) -> Envelope:
            return Envelope(
                site=self.site,
                table=self.table,
                seq=seq,
                ts=ts,
                type=etype,
                source=source,
                data=data,
                rule=rule,
                round=rnd,
            )

        return build

    def _record(
        self, items: list[Pending], now: datetime, unrecorded: dict[str, Any] | None = None
    ) -> list[Envelope]:
        """Journal `items` atomically with the engine's snapshot; fail closed on error.

        `unrecorded` names the input `items` carry, for the halt's list of refused inputs
        should the append fail (the engine is then put back to the committed state).
        """
        ts = format_ts(now)
        builders = self._builders(items, ts)

        if self._unrecorded_halt:
            # A halt decided while nothing could be recorded goes on the record first,
            # naming the inputs the journal refused meanwhile.
            builders = [
                *self._builders(self._unrecorded.into_halt(self._unrecorded_halt), ts),
                *builders,
            ]
        try:
            written = self._journal.append_many(
                self.table, builders, snapshot=(self.table, self._snapshot())
            )
        except JournalError as exc:
            self._roll_back()
            if unrecorded is not None:
                self._unrecorded.note(unrecorded)
            self._fail_closed(exc.code, str(exc))
            return []
        self._committed = self._copy_state()
        self._unrecorded_halt = []
        self._unrecorded.clear()
        if self.record_failure:
            self._log.warning(
                "journal recording again; the table stays halted until resumed",
                code=self.record_failure_code,
            )
            self.record_failure = None
        log_recorded(self._log, written)
        if self.link:
            self.link.notify()
            self.link.state_changed()
        return written

    def _snapshot(self) -> dict[str, Any]:
        """What restores the table: the engine's snapshot, and the open alerts."""
        snap = self.engine.snapshot()
        if self.surveillance is not None:
            snap = {**snap, "surveillance": self.surveillance.snapshot()}
        return snap

    def _copy_state(self) -> tuple[TableEngine, AlertKeeper | None]:
        return copy.deepcopy((self.engine, self.surveillance))

    def _roll_back(self) -> None:
        """Put the committed state back: the engine forgets what the journal refused."""
        self.engine, self.surveillance = copy.deepcopy(self._committed)

    def _fail_closed(self, code: str, reason: str) -> None:
        first = self.record_failure is None
        self.record_failure = reason
        if first:
            self.record_failure_code = code
            what = "journal disk full" if code == "journal_disk_full" else "journal failure"
            self._log.critical(f"{what}: table halted", code=code, error=reason)
            # The engine halts too; the halt goes on the record as soon as it can, and is
            # latched like any other until a floorperson resumes the table. The halted
            # state is what a later failed append puts back.
            halted = self.engine.halt(code, reason, self._clock())
            self._unrecorded_halt.extend(self._decisions(halted))
            self._committed = self._copy_state()
        if self.link:
            self.link.state_changed()

    @staticmethod
    def _decisions(output: EngineOutput) -> list[Pending]:
        return [(d.source, str(d.type), d.data, d.rule, d.round) for d in output.events]

    def _dispatch(self, output: EngineOutput) -> None:
        for command in output.device_commands:
            adapter = self.adapters.get(command.device)
            if adapter is None:
                self._log.error("engine asked for an unknown device", device=command.device)
                continue
            self._spawn(adapter.send(command))

    def record_output(self, output: EngineOutput, now: datetime) -> None:
        """Record engine decisions that no input carries (restart, ticks)."""
        if output.events and not self._record(self._decisions(output), now):
            return  # not on the record: the engine was put back, nothing is sent
        self._dispatch(output)

    # ----- inputs -----------------------------------------------------------------

    def on_device(self, item: Received) -> None:
        if self.stop.finished.is_set():
            return  # the record is closed; the event stays on its device's stream
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
        if self.stop.holds_back(output):
            self._roll_back()  # the daemon is stopping: no round starts
            self.stop.held_back(named)
            return
        if self.surveillance is not None:
            output.events.extend(self.surveillance.on_decisions(output.events))
        if self._record([own, *self._decisions(output)], item.ts, named):
            self._dispatch(output)

    async def on_command(self, payload: bytes, *, replay_only: bool = False) -> None:
        """A command from `P/cmd`; with `replay_only`, from `P/replay/request`, where
        nothing but a `replay` is taken (whoever may publish there can command nothing)."""
        now = self._clock()
        if self.stop.finished.is_set():
            # `daemon.stopped` is the table's last event: an answer, but no record.
            await self._reply(claimed_id(payload), False, STOPPED_REASON)
            return
        try:
            verified = check_command(
                payload,
                operators=self._operators,
                now=now,
                id_used=self._journal.command_id_used,
            )
            if not isinstance(verified, Refusal):
                self._journal.record_command_id(verified.command.id, format_ts(now))
        except JournalError as exc:
            # The replay guard cannot be read or written: no command can be taken safely.
            self._fail_closed(exc.code, str(exc))
            await self._reply(claimed_id(payload), False, f"not recorded: {exc}")
            return
        if isinstance(verified, Refusal):
            await self._refuse(verified, now)
            return
        result = verified.command
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
            await self._refuse(stopping, now)
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
            self._record(
                [(source, EventType.OPERATOR_COMMAND_REFUSED, refused, outcome.rule, None)],
                now,
                command_named(result.id, result.name, source, now),
            )
            await self._reply(result.id, False, outcome.error)
            return
        accepted = {**described, "args": result.args}
        rnd = self.engine.current_round
        written = self._record(
            [
                (source, EventType.OPERATOR_COMMAND, accepted, None, rnd),
                *self._decisions(outcome.output),
            ],
            now,
            command_named(result.id, result.name, source, now),
        )
        if written:
            self._dispatch(outcome.output)
            await self._reply(result.id, True, None)
        else:
            await self._reply(result.id, False, f"not recorded: {self.record_failure}")

    async def _refuse(self, refusal: Refusal, now: datetime) -> None:
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
        self._record(
            [(source, EventType.OPERATOR_COMMAND_REFUSED, data, None, None)],
            now,
            command_named(refusal.command_id, refusal.name, source, now),
        )
        await self._reply(refusal.command_id, False, refusal.reason)

    async def _replay(
        self, command: VerifiedCommand, described: dict[str, Any], now: datetime
    ) -> None:
        args = command.args
        asked = replay_range(args)
        if isinstance(asked, str):
            await self._refuse(
                Refusal("bad_args", asked, command.id, command.name, command.by), now
            )
            return
        first, last = asked
        self._record(
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
        )
        payloads = self._journal.read_range(self.table, first, last)
        if self.link:
            self._spawn(self.link.publish_replay(payloads))
        await self._reply(command.id, True, None)

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
                Refusal("bad_args", problem, command.id, command.name, command.by), now
            )
            return
        source = f"operator:{command.by}"
        accepted = {**described, "args": command.args}
        written = self._record(
            [
                (source, EventType.OPERATOR_COMMAND, accepted, None, None),
                *self._decisions(EngineOutput([closed])),
            ],
            now,
            command_named(command.id, command.name, source, now),
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
        output = self.engine.tick(now)
        if self.stop.holds_back(output):
            self._roll_back()
            return
        self.record_output(output, now)

    def finish(self, now: datetime, reason: str = "clean stop") -> None:
        """Record `daemon.stopped`, the table's last event (once)."""
        if self.stop.finished.is_set():
            return
        self.stop.begin()
        self.record_output(EngineOutput(events=[self.stop.stopped(reason)]), now)
        self.stop.finished.set()

    # ----- the loop ---------------------------------------------------------------

    async def run(self) -> None:
        try:
            while True:
                item = await self.bus.get()
                try:
                    if isinstance(item, Received):
                        self.on_device(item)
                    elif isinstance(item, CommandArrived):
                        await self.on_command(item.payload, replay_only=item.replay_only)
                    elif isinstance(item, Tick):
                        self.on_tick(item.now)
                    elif isinstance(item, Finish):
                        self.finish(self._clock(), item.reason)
                except Exception:
                    # A bug must not stop the table's record; it is logged loudly and
                    # the table is halted so a person looks at it.
                    self._log.exception("engine input failed; halting the table")
                    self._roll_back()  # whatever the input half-did is not on the record
                    self._fail_closed("internal_error", "internal error while processing an input")
        finally:
            for task in list(self._tasks):
                task.cancel()
            for task in list(self._tasks):
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
