"""An operator's command taken by its table: verified, gated, decided by the engine (or,
`ack_alert`, by the watcher), recorded as one turn, then answered.

Every command that names a table gets an answer on `P/cmd/result`, and every one that is
refused leaves an `operator.command_refused` on the record, so an auditor sees what was
asked as well as what was done. A verified command's id is used up by whatever record
it makes, in the same transaction (`Turn.command_id`), so it can never be taken twice.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

from floord.contract import Envelope, EventType, format_ts
from floord.engine.core.types import Decision, VerifiedCommand
from floord.journal.store import Journal, JournalError
from floord.operator.commands import Operators, Refusal, Verified, claimed_id
from floord.table import command_check
from floord.table.effects import Effects
from floord.table.engine_state import EngineState
from floord.table.recorder import Recorder
from floord.table.refusal_limiter import RefusalLimiter
from floord.table.replay import replay_range
from floord.table.stopping import STOPPED_REASON, StopGate
from floord.table.turn import Step
from floord.table.unrecorded import command_named

# The runner's commit of a command's turn: its steps and the id it uses up (with its ts).
CommitCommand = Callable[[list[Step], tuple[str, str] | None], Awaitable[list[Envelope]]]


class CommandTurns:
    def __init__(
        self,
        *,
        table: str,
        live: EngineState,
        journal: Journal,
        operators: Operators,
        clock: Callable[[], datetime],
        stop: StopGate,
        recorder: Recorder,
        effects: Effects,
        commit: CommitCommand,
    ) -> None:
        self.table = table
        self.live = live
        self._journal = journal
        self._operators = operators
        self._clock = clock
        self._stop = stop
        self._recorder = recorder
        self._effects = effects
        self._commit = commit
        self._limiter = RefusalLimiter()

    def refusal_window_ends(self) -> datetime | None:
        """When the window of unverified refusals under way ends (None: none is)."""
        return self._limiter.ends()

    def refusals_counted(self, now: datetime, ts: str) -> list[Step]:
        """The step recording the unverified refusals a window that has ended counted
        (`floord.table.refusal_limiter`), if any; the runner asks at every tick too."""
        summary = self._limiter.closed(now)
        if summary is None:
            return []
        event = Decision(EventType.OPERATOR_COMMANDS_REFUSED, summary, source="daemon")
        return [Step((event,), ts)]

    async def take(self, payload: bytes, *, replay_only: bool = False) -> None:
        """A command from `P/cmd`; with `replay_only`, from `P/replay/request`, where
        nothing but a `replay` is taken (whoever may publish there can command nothing)."""
        now = self._clock()
        ts = format_ts(now)
        if self._stop.finished.is_set():
            # `daemon.stopped` is the table's last event: an answer, but no record.
            self._effects.reply(claimed_id(payload), False, STOPPED_REASON)
            return
        try:
            verified = await command_check.verify(
                payload, journal=self._journal, operators=self._operators, now=now
            )
        except JournalError as exc:
            # The replay guard cannot be read: no command can be taken safely.
            self._recorder.fail_closed(exc.code, str(exc))
            self._effects.reply(claimed_id(payload), False, f"not recorded: {exc}")
            return
        if isinstance(verified, Refusal):
            counted = self.refusals_counted(now, ts)
            if counted:
                await self._commit(counted, None)
            if self._limiter.admit(verified, now):
                await self._refuse(verified, ts)
            return
        command = verified.command
        # The id is used from now on: recorded with whatever record the command makes.
        used = (command.id, ts)
        refusal = command_check.gate(
            command, replay_only=replay_only, stop=self._stop, failure=self._recorder.failure
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
            engine = self.live.engine
            outcome = engine.on_command(command, now)
            if not outcome.ok:
                data = {**described, "code": "refused", "reason": outcome.error}
                refused_event = Decision(
                    EventType.OPERATOR_COMMAND_REFUSED, data, outcome.rule, source=source
                )
                await self._commit([Step((refused_event,), ts, named)], used)
                self._effects.reply(command.id, False, outcome.error)
                return
            rnd = engine.current_round
            accepted = Decision(EventType.OPERATOR_COMMAND, described, round=rnd, source=source)
            output = outcome.output
            self.live.watch(output)
            step = Step((accepted, *output.events), ts, named, self._effects.sender(output))
        if await self._commit([step], used):
            self._effects.reply(command.id, True, None)
        else:
            self._effects.reply(command.id, False, f"not recorded: {self._recorder.failure}")

    async def _refuse(
        self, refusal: Refusal, ts: str, *, command_id: tuple[str, str] | None = None
    ) -> None:
        """Record and answer a refusal; `command_id`: a verified command's, used up."""
        event = command_check.refused(refusal, self._operators)
        named = command_named(refusal.command_id, refusal.name, event.source, ts)
        await self._commit([Step((event,), ts, named)], command_id)
        self._effects.reply(refusal.command_id, False, refusal.reason)

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
        await self._commit([Step((event,), ts)], used)
        payloads = await self._journal.read_range_async(self.table, first, last)
        self._effects.reply(command.id, True, None)  # the result first: spawned, in order
        self._effects.replay(payloads)

    def _ack_alert(self, command: VerifiedCommand) -> Decision | None:
        """A supervisor or security closes an open surveillance alert: the closing, or
        None when there is no such alert open."""
        note = command.args.get("note", "")
        alert_id = command.args.get("alert")
        watcher = self.live.surveillance
        return watcher.acknowledge(alert_id, command.by, str(note)) if watcher else None
