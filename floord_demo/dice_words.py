"""The demo's words for the dice tables: each Craps call and Pai Gow shake on one line,
and a dice table's row (`view`): the last roll and the point, or the last hand's position.

A roll is said as its faces and total, then what it decided and the point after it; a
"no roll" as its reason, and whether the throw was invalid (§ 537.9(a)) or called
(§ 537.9(b)); a Fire Bet as its action and the unique points made; a surveillance notice
as what it is about and the points, so a line cut to a narrow terminal says it first.
"""

from __future__ import annotations

from typing import Any


def _faces(data: dict[str, Any]) -> str:
    faces = data.get("faces")
    shown = "+".join(str(f) for f in faces) if isinstance(faces, list) else "?"
    return f"{shown} = {data.get('total', '?')}"


def _no_roll(data: dict[str, Any]) -> str:
    how = "invalid roll" if data.get("invalid") else "no roll"
    by = f" called by {data['called_by']}" if data.get("called_by") else ""
    undone = data.get("reverses")
    if isinstance(undone, dict):
        by += f", the {undone.get('total')} called ({undone.get('decision')}) reversed"
    return f"{how}: {data.get('reason')}{by}, thrown again"


def _fire_bet(data: dict[str, Any]) -> str:
    action = data.get("action")
    if action == "point_marker":
        return f"Fire Bet marker on {data.get('point')}: {data.get('unique_points')} unique points"
    seat, amount = data.get("seat"), data.get("amount")
    odds = f" at {data['odds']}" if data.get("odds") else ""
    return f"Fire Bet {action}, seat {seat}, {amount}{odds}"


def _reasons(data: dict[str, Any]) -> str:
    return ", ".join(str(r.get("reason")) for r in data.get("reasons") or [])


def _deal_position(data: dict[str, Any]) -> str:
    return f"shaken {_faces(data)}: deal from {data.get('position')}"


DICE_WORDS = {
    "craps.roll": lambda d: (
        f"{_faces(d)}: {d.get('decision')}, point {d.get('point') or 'off'}"
        + (f", called by {d['called_by']}" if d.get("called_by") else "")
    ),
    "craps.no_roll": _no_roll,
    "craps.throw_held": lambda d: (
        f"{_faces(d)} held: {', '.join(str(r.get('reason')) for r in d.get('reasons') or [])}"
    ),
    "craps.fire_bet": _fire_bet,
    "craps.shooter": lambda d: (
        f"shooter {d.get('action')}: seat {d.get('seat')}"
        + (f" ({d['reason']})" if d.get("reason") else "")
    ),
    "surveillance.notice": lambda d: (
        f"{d.get('what')}: shooter {d.get('shooter')}, points {d.get('points')}"
    ),
    "paigow.deal_position": _deal_position,
    "paigow.dealt": lambda d: (
        f"dealt from {d.get('from')}, "
        f"{'as the dice named' if d.get('as_determined') else 'NOT as the dice named'}"
    ),
}


def describe_dice(kind: str, data: dict[str, Any]) -> str | None:
    """A dice table's event in words; None for one that is not a dice table's own."""
    words = DICE_WORDS.get(kind)
    return words(data) if words is not None else None


def dice_row(state: dict[str, Any]) -> str | None:
    """A dice table's last result for its row; None for a table of another game."""
    if state.get("game") in ("craps", "mini_craps"):
        roll = state.get("last_roll") or {}
        point = state.get("point") or "off"
        if not roll:
            return f"- point {point}"
        return f"{roll.get('total')} {roll.get('decision')}, point {point}"
    if state.get("game") == "pai_gow":
        deal = state.get("last_deal") or {}
        return f"from {deal['position']}" if deal.get("position") is not None else "-"
    return None
