"""What a game engine does with a second source for its results, once for every game.

A game whose table names a `second_source` mixes `CheckedResults` in ahead of
`TableEngineBase` and hands each result its own device reports to `_checked` instead of
settling it; the mixin keeps the table's `ResultCheck` (`second_source.py`), closes the
window on the clock's ticks, takes the second device's reports, the dealer's
`call_result` and the floorperson's `rule_result`, keeps a held result across a restart
and holds the game's next round off while a result waits. The game says what its result
values are and how it settles one (the hooks at the end).
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar

from floord.engine.core.gaming_day import require_utc
from floord.engine.core.second_source import POLICY, Refused, ResultCheck, SecondSource, Verdict
from floord.engine.core.types import CommandOutcome, EngineOutput, VerifiedCommand

if TYPE_CHECKING:
    from floord.engine.core.rounds import RoundBook
    from floord.engine.core.table_state import TableState

RESULT_COMMANDS = ("call_result", "rule_result")
CALLERS = frozenset({"dealer"})
RULERS = frozenset({"floorperson", "supervisor"})
HELD_POLICY = (
    "floord policy, not a regulation: while a result awaits its second source or a "
    "ruling, the round is not settled and no other round starts"
)
RULED_VOID_POLICY = "floord policy, not a regulation: a floorperson ruled the held round void"


class Invalid(str):
    """A second device's report that is no result of the game: the words say why."""


class CheckedResults:
    """A game's results checked against the table's second source; see the module."""

    # The primary device's events that would begin or decide another round: while a
    # result is held each is a `result_held` violation, and is not acted on.
    HELD_EVENTS: ClassVar[frozenset[str]] = frozenset()
    # Whether the primary's other events are set aside while a result is held (a wheel's
    # telemetry), or go to the game as usual (a shoe's bookkeeping).
    SET_ASIDE_WHILE_HELD: ClassVar[bool] = True

    table: TableState
    rounds: RoundBook
    check: ResultCheck | None

    def _init_check(
        self, source: SecondSource | None, primary: str, snapshot: dict[str, Any] | None
    ) -> None:
        """The check, and what it awaited when the snapshot was taken."""
        self.check = None if source is None else ResultCheck(source, primary)
        body = (snapshot or {}).get("result_check")
        if self.check is not None and isinstance(body, dict):
            self.check.restore(body)

    def restore(self, snapshot: dict[str, Any]) -> None:
        """The game's fields, and what the check awaited when `snapshot` was taken."""
        super().restore(snapshot)  # type: ignore[misc]
        body = snapshot.get("result_check")
        if self.check is not None:
            self.check.restore(body if isinstance(body, dict) else {})

    # ----- what the engine calls --------------------------------------------------

    def tick(self, now: datetime) -> EngineOutput:
        """The window of an awaited result closes on the clock's ticks."""
        out: EngineOutput = super().tick(now)  # type: ignore[misc]
        out.extend(self._check_tick(now))
        return out

    def quiet_until(self, now: datetime) -> datetime | None:
        """The table's, or sooner: just past the window of a result awaiting its second
        source; None while the check holds what a tick would forget (a round voided)."""
        due: datetime | None = super().quiet_until(now)  # type: ignore[misc]
        check = self.check
        if check is None or due is None:
            return due
        if check.stale(self.rounds.current_id):
            return None
        closes = check.window_closes()
        return due if closes is None else min(due, closes)

    def _check_tick(self, now: datetime) -> EngineOutput:
        """The check's part of a tick, for a game whose own `tick` does not call super."""
        if (check := self._synced()) is None:
            return EngineOutput()
        return self._apply(check.tick(require_utc(now)), now)

    def after_restart(self, now: datetime) -> EngineOutput:
        """A result held across a restart still waits for its ruling: the round was seen
        to its result, so the restart rule does not void it."""
        if (check := self._synced()) is not None and check.holding:
            self._touch(now)  # type: ignore[attr-defined]
            self.table.forget_connections()
            return EngineOutput()
        out: EngineOutput = super().after_restart(now)  # type: ignore[misc]
        return out

    def _checked(self, value: str, carried: dict[str, Any], now: datetime) -> EngineOutput:
        """A result of the round in play: settled now, or once the second source agrees."""
        if self.check is None:
            return self._settle(value, carried, now)
        round_id = self.rounds.current_id
        assert round_id is not None
        return self._apply(self.check.primary(round_id, value, now, carried), now)

    def _second_source_event(
        self, device: str, type: str, data: dict[str, Any], now: datetime
    ) -> EngineOutput | None:
        """The second source's device, and the primary while a result is held; None:
        the event is the game's as usual."""
        check = self._synced()
        if check is None:
            return None
        if device == check.source.device:
            value = self._second_value(type, data)
            if value is None or not self.table.is_open:
                return EngineOutput()  # the observer's other events decide nothing
            if isinstance(value, Invalid):
                return self._violation(  # type: ignore[attr-defined,no-any-return]
                    "impossible_result", device=device, event=str(type), detail=str(value)
                )
            try:
                verdict = check.second(self.rounds.current_id, value, now)
            except Refused:
                return EngineOutput()  # nothing awaits it: its event is on the record
            return self._apply(verdict, now)
        if not check.holding or device != check.primary_device:
            return None
        if type not in self.HELD_EVENTS:
            # The held round's device events decide nothing now, or are the game's.
            return EngineOutput() if self.SET_ASIDE_WHILE_HELD else None
        return self._held_violation(event=str(type))

    def _held_refusal(self) -> CommandOutcome | None:
        """Why a command that would start a round is refused now, or None."""
        check = self._synced()
        if check is None or not check.holding:
            return None
        held = check.pending or {}
        why = (
            f"round {held.get('round')} is not settled ({held.get('state')}): its result "
            "awaits the second source or a floorperson's rule_result"
        )
        return CommandOutcome(False, why)

    def _held_violation(self, **data: Any) -> EngineOutput:
        held = (self.check.pending if self.check else None) or {}
        return self._violation(  # type: ignore[attr-defined,no-any-return]
            "result_held",
            policy=HELD_POLICY,
            held_round=held.get("round"),
            detail=f"round {held.get('round')} is not settled ({held.get('state')}): "
            "no round starts until it is",
            **data,
        )

    def _result_command(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        """The dealer's `call_result {value}`, a floorperson's `rule_result`."""
        check = self._synced()
        if check is None:
            return CommandOutcome(False, "this table has no second source for its results")
        if (refused := self._role_refusal(command)) is not None:
            return refused
        extra: dict[str, Any] = {}
        if command.name == "call_result":
            if check.source.device is not None:
                return CommandOutcome(
                    False, f"this table's second source is the device {check.source.device!r}"
                )
            value = self._called_value(command.args.get("value"))
            if isinstance(value, Invalid):
                return CommandOutcome(False, str(value))
            if not self.table.is_open:
                return CommandOutcome(False, f"the table is not open (it is {self.table.state})")
            try:
                verdict = check.second(self.rounds.current_id, value, now, by=command.by)
            except Refused as exc:
                return CommandOutcome(False, str(exc))
        else:
            args = dict(command.args)
            ruled = self._ruling_args(args)
            if isinstance(ruled, Invalid):
                return CommandOutcome(False, str(ruled))
            args, extra = ruled
            extra = {"ruled_by": command.by, **extra}
            try:
                verdict = check.rule(args, command.by, command.role, self._result_values())
            except Refused as exc:
                return CommandOutcome(False, str(exc))
        verdict.carried.update(extra)
        return CommandOutcome(True, output=self._apply(verdict, now))

    # ----- helpers ----------------------------------------------------------------

    def _apply(self, verdict: Verdict, now: datetime) -> EngineOutput:
        out = EngineOutput(list(verdict.events))
        if verdict.void:
            out.extend(
                self._void_under_policy(  # type: ignore[attr-defined]
                    "ruled_void", "a floorperson ruled the held round void", RULED_VOID_POLICY
                )
            )
        elif verdict.settle is not None:
            out.extend(self._settle(verdict.settle, verdict.carried, now))
        return out

    def _check_snapshot(self) -> dict[str, Any] | None:
        check = self._synced()
        if check is None:
            return None
        return {**check.snapshot(), "public": check.public(), "policy": POLICY}

    def _synced(self) -> ResultCheck | None:
        """The check, forgetting what belonged to a round that ended another way (voided
        on a halt, a close, a "no spin"): only the round in play can await a result."""
        check = self.check
        if check is not None:
            check.forget_unless(self.rounds.current_id)
        return check

    # ----- what the game supplies -------------------------------------------------

    def _role_refusal(self, command: VerifiedCommand) -> CommandOutcome | None:
        """Who may call a result and who may rule at this game: the dealer calls, a
        floorperson or supervisor rules (`COMMAND_ROLES` lets the other games' persons
        through: the Craps stickperson and boxperson)."""
        allowed = CALLERS if command.name == "call_result" else RULERS
        if command.role in allowed:
            return None
        who = " or ".join(sorted(allowed))
        return CommandOutcome(False, f"only the {who} may send {command.name} at this table")

    def _result_values(self) -> set[str]:
        """Every value a result of the game may have."""
        raise NotImplementedError

    def _second_value(self, type: str, data: dict[str, Any]) -> str | None:
        """The result a second source device's event reports (an `Invalid` when the
        event names no result of the game), None for an event that reports none."""
        raise NotImplementedError

    def _called_value(self, value: Any) -> str:
        """The value the dealer's `call_result` names, or an `Invalid` saying why not."""
        values = self._result_values()
        if isinstance(value, int) and not isinstance(value, bool):
            value = str(value)  # `floord cmd value=17` sends the JSON number 17
        if not isinstance(value, str) or value not in values:
            return Invalid(f"value must be one of {', '.join(sorted(values))}, found {value!r}")
        return value

    def _ruling_args(self, args: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]] | Invalid:
        """A ruling's arguments as the check reads them, and what the game settles with
        besides the value; an `Invalid` when the game refuses them."""
        if "value" in args:
            called = self._called_value(args["value"])
            args["value"] = args["value"] if isinstance(called, Invalid) else called
        return args, {}

    def _settle(self, value: str, carried: dict[str, Any], now: datetime) -> EngineOutput:
        """Settle the round in play with `value`, with what `_checked` carried."""
        raise NotImplementedError
