"""A Roulette result as floord records it (58 Pa. Code § 531.4(e), § 531.5).

The winning number settles the round: `roulette.result` names the number, its colour
and pocket, every winning wager, the even-money wagers that lose on a zero and the order
of settlement, with what the wheel measured of the spin for the pace and spin physics
tests. It is built from the finished round alone, so the engine keeps only the round
book and what it remembers of the last result; a second source, a sensor kit and the
"no spin" cases decide whether a number gets here at all.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from floord.contract import EventType, cite, format_ts
from floord.engine.core.types import Decision, EngineOutput
from floord.engine.roulette import ball_speed
from floord.engine.roulette.layout import (
    EVEN_MONEY_WAGERS,
    WheelSpec,
    colour,
    loses_even_money,
    pocket_index,
    settlement_order,
    winning_wagers,
)


def measurements(current: dict[str, Any], now: datetime) -> dict[str, Any]:
    """What the wheel measured of the round's spin, for the pace and spin physics tests
    (`floord.analytics.wheel_physics`): when the number was decided, the rotor's
    direction and speed as the game began, the ball's revolutions and speed when a kit
    counts its laps."""
    return {
        "at": format_ts(now),
        "rotor_direction": current.get("rotor_direction"),
        "rotor_rpm": current.get("rotor_rpm"),
        "ball_revolutions": current.get("ball_revolutions"),
        "ball_rps": ball_speed.revolutions_per_second(current),
    }


def result_of(
    wheel: WheelSpec, rnd: dict[str, Any], number: str, data: dict[str, Any], now: datetime
) -> tuple[EngineOutput, dict[str, Any]]:
    """`roulette.result` (§ 531.5(a)) and `round.ended` for the finished round `rnd`
    whose ball came to rest in `number`, and the engine's record of the last result."""
    lost = loses_even_money(number)
    winning = winning_wagers(wheel.kind, number)
    body = {
        "number": number,
        "colour": colour(number),
        "pocket_index": pocket_index(wheel.kind, number),
        "spin": data.get("spin"),
        "origin": data.get("origin"),
        "wheel": wheel.kind,
        "dealer": rnd.get("dealer"),
        "release_pocket": rnd.get("release_pocket"),
        **measurements(rnd, now),
        "winning_wagers": [w.to_dict() for w in winning],
        "losing_even_money": lost,
        "even_money_wagers_lost": list(EVEN_MONEY_WAGERS) if lost else [],
        "even_money_rule": cite(wheel.even_money_section) if lost else None,
        **settlement_order(wheel.kind, len(winning)),
    }
    last_result = {
        "round": rnd["id"],
        "number": number,
        "colour": body["colour"],
        "pocket_index": body["pocket_index"],
        "spin": body["spin"],
        "at": format_ts(now),
    }
    ended = {"number": number, "outcome": "result", "spin": body["spin"]}
    out = EngineOutput(
        [
            Decision(EventType.ROULETTE_RESULT, body, cite("531.5(a)"), rnd["id"]),
            Decision(EventType.ROUND_ENDED, ended, None, rnd["id"]),
        ]
    )
    return out, last_result
