"""What a called roll decides for the Fire Bets (58 Pa. Code § 537.3(a)(40), § 537.12).

`fire.py` keeps the book: the pending bets and the points each has seen. This module
turns a roll's decision into the events the contract carries: the point marker when a
point is made (§ 537.12(a)(4), (b)(2)), the surveillance notice at four unique points
(§ 537.12(a)(6)) and the settlement on a loser 7 (§ 537.12(a)(5)). The engine's round
flow decides the roll and calls these; the bets' resolution stays out of that flow.
"""

from __future__ import annotations

from typing import Any

from floord.contract import EventType, cite
from floord.engine.core.types import Decision
from floord.engine.craps.fire import FireBet, FireBook
from floord.engine.craps.rules import PayTable


def point_counted(
    fire: FireBook, shooter: dict[str, Any], point: int, first_time: bool, round_id: str
) -> list[Decision]:
    """The point marker for `point`, made by `shooter` (already in `shooter["points"]`;
    `first_time` when it counted), and the four-point notice when one is due."""
    reached = fire.point_made(point, shooter["n"])
    unique = len(shooter["points"])
    marker = {
        "action": "point_marker",
        "point": point,
        "unique_points": unique,
        "points": list(shooter["points"]),
        "counted": first_time,
    }
    rule = cite("537.12(a)(4)") if first_time else cite("537.12(b)(2)")
    events = [Decision(EventType.CRAPS_FIRE_BET, marker, rule, round_id)]
    own_four = first_time and unique == 4 and not shooter.get("fire_notice")
    if own_four or reached:
        events.append(four_points_notice(fire, shooter, reached, round_id))
    return events


def four_points_notice(
    fire: FireBook, shooter: dict[str, Any], reached: list[FireBet], round_id: str
) -> Decision:
    """§ 537.12(a)(6): the surveillance department confirms the Fire Bets. Sent once
    for the shooter's own fourth point and once for each bet that reaches four (a bet
    carried from an earlier shooter may reach four first); each bet names who made
    its points (`made_by`, the shooter numbers)."""
    shooter["fire_notice"] = True
    own = list(shooter["points"])
    notice = {
        "what": "fire_bet_four_unique_points",
        "shooter": shooter["seat"],
        "shooter_n": shooter["n"],
        "points": own,
        "reached": [b.seat for b in reached],
        "fire_bets": [b.record() for b in fire.bets],
        "detail": f"the shooter has made {len(own)} different unique points "
        f"({', '.join(map(str, own)) or 'none'}); Fire Bets at four or "
        "more: confirm all Fire Bets and payouts",
    }
    return Decision(EventType.SURVEILLANCE_NOTICE, notice, cite("537.12(a)(6)"), round_id)


def settlement(fire: FireBook, pays: PayTable, shooter_n: int, round_id: str) -> list[Decision]:
    """§ 537.12(a)(5): every pending bet settled on a loser 7 thrown by the shooter
    numbered `shooter_n`; four or more points win (§ 537.3(a)(40)(i)), fewer lose."""
    events = []
    for bet in fire.settle():
        won = len(bet.points) >= 4
        body = {
            "action": "won" if won else "lost",
            "seat": bet.seat,
            "amount": bet.amount,
            "points": bet.points,
            "unique_points": len(bet.points),
            "odds": pays.fire(len(bet.points)) if won else None,
            "settled_rule": cite("537.12(a)(5)"),
        }
        if bet.shooter != shooter_n:
            body["carried_from_shooter"] = bet.shooter
            body["carried_rule"] = cite("537.12(a)(2)")
        rule = cite("537.3(a)(40)(i)") if won else cite("537.3(a)(40)(ii)")
        events.append(Decision(EventType.CRAPS_FIRE_BET, body, rule, round_id))
    return events
