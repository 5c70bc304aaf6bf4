"""The "no spin" cases of Roulette and the wheel signals that reveal them.

58 Pa. Code § 531.7 lists the irregularities after which the dealer announces "no
spin", and § 531.5(c)(2) adds 00 on a double-zero wheel used as a single-zero wheel.
Each case is one `NoSpin` record (its citation, whether the wheel must re-spin, whether
the dealer must inspect the ball) so the engine, the tests and `docs/rules.md` agree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from floord.contract import EventType, cite
from floord.engine.core.types import Decision, EngineOutput


@dataclass(frozen=True)
class NoSpin:
    """One reason for declaring a spin void.

    `respin` is whether floord asks the wheel to re-spin (a device command);
    `spun_again` whether the same spin is spun again, so that its next launch opens a
    round that counts (every other voided spin stays void: see `docs/rules.md`).
    """

    reason: str
    section: str
    respin: bool
    inspect_ball: bool
    detail: str
    extra: dict[str, Any] = field(default_factory=dict)
    spun_again: bool = False

    @property
    def rule(self) -> str:
        return cite(self.section)

    def data(self, **more: Any) -> dict[str, Any]:
        return {
            "reason": self.reason,
            "respin": self.respin,
            "inspect_ball": self.inspect_ball,
            "announce": "no spin",
            "detail": self.detail,
            **self.extra,
            **more,
        }


SAME_DIRECTION = NoSpin(
    "same_direction",
    "531.7(a)",
    respin=True,
    inspect_ball=False,
    detail="the ball was spun in the same direction as the wheel",
    spun_again=True,
)
FAILED_LAUNCH = NoSpin(
    "failed_launch",
    "531.7(b)",
    respin=False,
    inspect_ball=True,
    detail="the ball did not complete four revolutions around the track",
)
BALL_LEFT_WHEEL = NoSpin(
    "ball_left_wheel",
    "531.7(c)",
    respin=False,
    inspect_ball=True,
    detail="the ball was not detected in the wheel: it left the wheel during the spin",
    extra={
        "also_possible": {
            "rule": cite("531.7(d)"),
            "what": "a foreign object entered the wheel before the ball came to rest",
        }
    },
)
DOUBLE_ZERO_ON_SINGLE = NoSpin(
    "double_zero_on_single_zero",
    "531.5(c)(2)",
    respin=True,
    inspect_ball=False,
    detail="the ball came to rest in 00 on a double zero wheel used as a single zero wheel",
    spun_again=True,
)

# A persistent wheel warning flag -> the no-spin it proves, most specific first.
WARNING_NO_SPINS: tuple[tuple[str, NoSpin], ...] = (
    ("same_direction", SAME_DIRECTION),
    ("failed_launch", FAILED_LAUNCH),
    ("ball_not_detected", BALL_LEFT_WHEEL),
)


def no_spin_for_warning(data: dict[str, Any]) -> NoSpin | None:
    """The no-spin a `wheel.warning` calls for: only a persistent one with a known flag."""
    if data.get("persistent") is not True:
        return None
    flags = data.get("flags")
    if not isinstance(flags, list):
        return None
    for flag, no_spin in WARNING_NO_SPINS:
        if flag in flags:
            return no_spin
    return None


# What floord saw, or missed, is its own observation and no § 531.7 ruling.
SIGNALS_POLICY = (
    'floord policy, not a regulation: a launch or "no more bets" signal floord did not '
    "see is recorded for review; it voids nothing, as § 531.7(b) voids only a ball that "
    "did not complete four revolutions"
)
NO_ROUND_POLICY = (
    "floord policy, not a regulation: a number for which no round was in play (floord saw "
    "neither the game start nor the launch) is no result"
)
OTHER_SPIN_POLICY = (
    "floord policy, not a regulation: a round whose wheel reports the number of another "
    "spin is void"
)


def missing_signals(current: dict[str, Any]) -> list[str]:
    """The launch and "no more bets" signals of the round floord did not see."""
    missing = []
    if current["launches"] < 1:
        missing.append(EventType.WHEEL_BALL_LAUNCHED.value)
    if not current["no_more_bets"]:
        missing.append(EventType.WHEEL_NO_MORE_BETS.value)
    return missing


def signals_not_seen(
    round_id: str | None, missing: list[str], number: str, spin: Any
) -> EngineOutput:
    """floord's own observation, not a ruling: the launch or "no more bets" of the
    round was not seen. § 531.7(b) voids a ball that made fewer than four revolutions,
    which the revolution count (when the wheel reports one) or the wheel's own
    `failed_launch` shows; a signal floord missed shows neither, so the number stands."""
    if not missing:
        return EngineOutput()
    body = {
        "what": "signals_not_seen",
        "missing": missing,
        "spin": spin,
        "number": number,
        "detail": "floord did not see "
        + " or ".join(missing)
        + " for this spin; the number stands: review the spin from video",
        "policy": SIGNALS_POLICY,
    }
    return EngineOutput([Decision(EventType.TABLE_WARNING, body, None, round_id)])
