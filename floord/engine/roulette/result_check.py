"""A roulette table's second source for its numbers (floord policy, `docs/rules.md`).

With a `second_source` the wheel's number does not settle the round by itself: the
number is handed to the table's `ResultCheck` (`floord/engine/core/second_source.py`),
and the round settles once the second source (another device's `wheel.number`, or the
dealer's `call_result`: the dealer announces the number, § 531.6(c)) agrees, when a
silent second source is only a warning, or on a floorperson's `rule_result`. While a
result is awaited or held the round stays in play and the wheel's next game opens no
round. `RouletteEngine` mixes this class in; it keeps the round book and the results.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from floord.contract import EventType, cite
from floord.engine.core.gaming_day import require_utc
from floord.engine.core.second_source import (
    POLICY,
    Refused,
    ResultCheck,
    SecondSource,
    Verdict,
)
from floord.engine.core.types import CommandOutcome, EngineOutput, VerifiedCommand
from floord.engine.roulette.irregularities import DOUBLE_ZERO_ON_SINGLE

if TYPE_CHECKING:
    from floord.engine.core.rounds import RoundBook
    from floord.engine.core.table_state import TableState
    from floord.engine.roulette.layout import WheelSpec

RESULT_COMMANDS = ("call_result", "rule_result")
# The wheel's events that would begin or decide another spin.
NEXT_SPIN = frozenset(
    {EventType.WHEEL_GAME_STARTED, EventType.WHEEL_BALL_LAUNCHED, EventType.WHEEL_NUMBER}
)
HELD_POLICY = (
    "floord policy, not a regulation: while a result awaits its second source or a "
    "ruling, the round is not settled and the wheel's next spin opens no round"
)
RULED_VOID_POLICY = "floord policy, not a regulation: a floorperson ruled the held spin void"


def pocket(value: Any) -> Any:
    """A number as the wheel names it: `floord cmd value=17` sends the JSON number 17."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value


class CheckedResults:
    """The second source of a roulette table's numbers; see the module docstring."""

    table: TableState
    rounds: RoundBook
    wheel: WheelSpec
    wheel_device: str
    check: ResultCheck | None

    def _init_check(self, source: SecondSource | None, snapshot: dict[str, Any] | None) -> None:
        """The check, and what it awaited when the snapshot was taken."""
        self.check = None if source is None else ResultCheck(source, self.wheel_device)
        body = (snapshot or {}).get("result_check")
        if self.check is not None and isinstance(body, dict):
            self.check.restore(body)

    # ----- what the engine calls --------------------------------------------------

    def tick(self, now: datetime) -> EngineOutput:
        """The window of an awaited number closes on the clock's ticks."""
        out: EngineOutput = super().tick(now)  # type: ignore[misc]
        if (check := self._synced()) is not None:
            out.extend(self._apply(check.tick(require_utc(now)), now))
        return out

    def after_restart(self, now: datetime) -> EngineOutput:
        """A result held across a restart still waits for its ruling: the round was seen
        to its number, so the restart rule does not void it."""
        if (check := self._synced()) is not None and check.holding:
            self._touch(now)  # type: ignore[attr-defined]
            self.table.forget_connections()
            return EngineOutput()
        out: EngineOutput = super().after_restart(now)  # type: ignore[misc]
        return out

    def _checked_number(self, number: str, data: dict[str, Any], now: datetime) -> EngineOutput:
        """A number of the round in play: settled now, or once the second source agrees."""
        carried = {"spin": data.get("spin"), "origin": data.get("origin")}
        if self.check is None:
            return self._settle(number, carried, now)
        round_id = self.rounds.current_id
        assert round_id is not None
        return self._apply(self.check.primary(round_id, number, now, carried), now)

    def _second_source_event(
        self, device: str, type: str, data: dict[str, Any], now: datetime
    ) -> EngineOutput | None:
        """The second source's device, and the wheel while a result is held; None: the
        event is the game's as usual."""
        check = self._synced()
        if check is None:
            return None
        if device == check.source.device:
            if type != EventType.WHEEL_NUMBER or not self.table.is_open:
                return EngineOutput()  # the observer's other events decide nothing
            number = data.get("number")
            if not isinstance(number, str) or number not in self.wheel.order:
                return self._violation(  # type: ignore[attr-defined,no-any-return]
                    "impossible_number",
                    rule=cite(self.wheel.layout_section),
                    number=repr(number),
                    device=device,
                    detail=f"the second source reported {number!r}",
                )
            try:
                verdict = check.second(self.rounds.current_id, number, now)
            except Refused:
                return EngineOutput()  # nothing awaits it: its event is on the record
            return self._apply(verdict, now)
        if not check.holding or device != self.wheel_device:
            return None
        if type not in NEXT_SPIN:
            return EngineOutput()  # the held round's wheel events decide nothing now
        held = check.pending or {}
        return self._violation(  # type: ignore[attr-defined,no-any-return]
            "result_held",
            policy=HELD_POLICY,
            event=str(type),
            spin=data.get("spin"),
            held_round=held.get("round"),
            detail=f"round {held.get('round')} is not settled ({held.get('state')}): "
            "no round starts until it is",
        )

    def _result_command(self, command: VerifiedCommand, now: datetime) -> CommandOutcome:
        """The dealer's `call_result {value}`, a floorperson's `rule_result`."""
        check = self._synced()
        if check is None:
            return CommandOutcome(False, "this table has no second source for its results")
        if command.name == "call_result":
            if check.source.device is not None:
                return CommandOutcome(
                    False, f"this table's second source is the device {check.source.device!r}"
                )
            value = pocket(command.args.get("value"))
            if not isinstance(value, str) or value not in self.wheel.order:
                problem = f"value must be a pocket of the wheel, found {value!r}"
                return CommandOutcome(False, problem)
            if not self.table.is_open:
                return CommandOutcome(False, f"the table is not open (it is {self.table.state})")
            call = lambda: check.second(self.rounds.current_id, value, now, by=command.by)  # noqa: E731
        else:
            args = {**command.args, "value": pocket(command.args.get("value"))}
            if "value" not in command.args:
                del args["value"]
            valid = set(self.wheel.order)
            call = lambda: check.rule(args, command.by, command.role, valid)  # noqa: E731
        try:
            verdict = call()
        except Refused as exc:
            return CommandOutcome(False, str(exc))
        return CommandOutcome(True, output=self._apply(verdict, now))

    # ----- helpers ----------------------------------------------------------------

    def _apply(self, verdict: Verdict, now: datetime) -> EngineOutput:
        out = EngineOutput(list(verdict.events))
        if verdict.void:
            out.extend(
                self._void_under_policy(  # type: ignore[attr-defined]
                    "ruled_void", "a floorperson ruled the held spin void", RULED_VOID_POLICY
                )
            )
        elif verdict.settle is not None:
            out.extend(self._settle(verdict.settle, verdict.carried, now))
        return out

    def _settle(self, number: str, carried: dict[str, Any], now: datetime) -> EngineOutput:
        """The number's result, or "no spin" for a 00 ruled on a double zero wheel used
        as a single zero wheel (§ 531.5(c)(2))."""
        if number == "00" and self.wheel.kind == "double_zero_as_single":
            no_spin: EngineOutput = self._no_spin(  # type: ignore[attr-defined]
                DOUBLE_ZERO_ON_SINGLE, carried.get("spin"), number=number
            )
            return no_spin
        result: EngineOutput = self._result(number, carried, now)  # type: ignore[attr-defined]
        return result

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
