"""What a roulette wheel sensor kit lets the engine judge (58 Pa. Code § 531.7).

A kit on a manual wheel (`docs/protocols/wheel-sensor.md`) reports the ball's launch
direction, its revolutions on the track, the ball leaving the wheel and an object in
it; each can make a spin a "no spin". A manual wheel is re-spun by the dealer, not by a
device command, so none of these asks the wheel to re-spin. `RouletteEngine` mixes this
class in; it holds the judgements, the engine keeps the round book and `_no_spin`.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from floord.contract import EventType
from floord.engine.core.types import CommandOutcome, EngineOutput, VerifiedCommand
from floord.engine.roulette import ball_speed
from floord.engine.roulette.irregularities import NoSpin

if TYPE_CHECKING:
    from floord.engine.core.rounds import RoundBook
    from floord.engine.core.table_state import TableState

SENSOR_EVENTS = frozenset(
    {
        EventType.WHEEL_BALL_REVOLUTIONS,
        EventType.WHEEL_BALL_OFF,
        EventType.WHEEL_FOREIGN_OBJECT,
    }
)
MIN_REVOLUTIONS = 4  # § 531.7(b)

BALL_WITH_ROTOR = NoSpin(
    "same_direction",
    "531.7(a)",
    respin=False,
    inspect_ball=False,
    detail="the ball was spun in the same direction as the wheel: the dealer re-spins it",
    spun_again=True,
)
TOO_FEW_REVOLUTIONS = NoSpin(
    "too_few_revolutions",
    "531.7(b)",
    respin=False,
    inspect_ball=True,
    detail="the ball did not complete four revolutions around the track",
)
BALL_OFF_WHEEL = NoSpin(
    "ball_off_wheel",
    "531.7(c)",
    respin=False,
    inspect_ball=True,
    detail="the ball left the wheel during the spin",
)
FOREIGN_OBJECT = NoSpin(
    "foreign_object",
    "531.7(d)",
    respin=False,
    inspect_ball=False,
    detail="a foreign object entered the wheel before the ball came to rest",
)
SENSOR_NO_SPINS = {
    EventType.WHEEL_BALL_OFF: BALL_OFF_WHEEL,
    EventType.WHEEL_FOREIGN_OBJECT: FOREIGN_OBJECT,
}


def same_direction(data: dict[str, Any]) -> bool:
    """A launch whose ball turns with the rotor (only a kit reports `ball_direction`)."""
    ball = data.get("ball_direction")
    return ball in ("cw", "ccw") and ball == data.get("rotor_direction")


def short_spin(current: dict[str, Any]) -> NoSpin | None:
    """§ 531.7(b) for a round whose ball revolutions were counted, and were under four."""
    counted = current.get("ball_revolutions")
    if isinstance(counted, int) and counted < MIN_REVOLUTIONS:
        return TOO_FEW_REVOLUTIONS
    return None


class SensorJudgements:
    """The engine's handling of a sensor kit's launch, revolutions, ball off and object."""

    rounds: RoundBook
    table: TableState
    voided: dict[str, Any] | None
    last_result: dict[str, Any] | None
    dealer: str | None

    _no_spin: Callable[..., EngineOutput]  # RouletteEngine's: `roulette.no_spin`, the void

    def _launch_direction(self, data: dict[str, Any], out: EngineOutput) -> EngineOutput:
        """§ 531.7(a) on the launch that `out` has just recorded, if it was with the rotor."""
        if not self.table.is_open or not same_direction(data):
            return out
        out.extend(
            self._no_spin(
                BALL_WITH_ROTOR,
                data.get("spin"),
                ball_direction=data.get("ball_direction"),
                rotor_direction=data.get("rotor_direction"),
            )
        )
        return out

    def _launched_again(self, current: dict[str, Any], data: dict[str, Any]) -> None:
        """A new launch in the round: the revolutions are counted again from none, and the
        release that counts for the dealer signature is this launch's."""
        if current.get("ball_revolutions") is not None:
            current["ball_revolutions"] = 0
        ball_speed.relaunched(current)
        current["release_pocket"] = data.get("release_pocket")

    def _dealer_in(self, command: VerifiedCommand) -> CommandOutcome:
        """A dealer signs in at the wheel: their spins are theirs from the next round on.

        No rule of chapter 531 turns on it; floord records it so that the surveillance
        dealer signature test can group release-to-result distances by dealer.
        """
        if command.args:
            keys = ", ".join(sorted(map(str, command.args)))
            return CommandOutcome(False, f"dealer_in takes no arguments, found {keys}")
        if self.rounds.current is not None:
            return CommandOutcome(False, "a new dealer comes in between spins")
        self.dealer = command.by
        return CommandOutcome(True)

    def _revolutions(self, data: dict[str, Any], now: datetime) -> EngineOutput:
        current = self.rounds.current
        count = data.get("count")
        if not self.table.is_open or current is None:
            return EngineOutput()
        if current.get("spin") not in (None, data.get("spin")):
            return EngineOutput()  # another spin's laps say nothing of this round's
        if isinstance(count, int) and not isinstance(count, bool) and count >= 0:
            current["ball_revolutions"] = count
            ball_speed.lap(current, count, now)
        return EngineOutput()

    def _sensor_no_spin(self, kind: str, data: dict[str, Any]) -> EngineOutput:
        """§ 531.7(c) or (d): void the spin, unless it is over (at rest, or already void)."""
        spin = data.get("spin")
        over = self.rounds.current is None and (
            (self.voided is not None and self.voided.get("spin") == spin)
            or (self.last_result is not None and self.last_result.get("spin") == spin)
        )
        if over or not self.table.is_open:
            return EngineOutput()
        return self._no_spin(SENSOR_NO_SPINS[EventType(kind)], spin)

    def _ball_off(self, data: dict[str, Any], now: datetime) -> EngineOutput:
        return self._sensor_no_spin(EventType.WHEEL_BALL_OFF, data)

    def _foreign_object(self, data: dict[str, Any], now: datetime) -> EngineOutput:
        return self._sensor_no_spin(EventType.WHEEL_FOREIGN_OBJECT, data)
