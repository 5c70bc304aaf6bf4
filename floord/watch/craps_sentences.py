"""Craps and Mini-Craps decisions as sentences, and the surveillance department's notices.

Each event of docs/contract.md's Craps section in one line a boxperson or a surveillance
officer reads at a glance ("8 (4 and 4), point 8 established; shooter at 3").
"""

from __future__ import annotations

from typing import Any

from floord.contract import Envelope, EventType
from floord.watch.device_sentences import Sentence
from floord.watch.wording import get, optional, value_text, words


def _count(value: Any) -> int:
    """How many wagers an outcome list names; 0 for anything but a list."""
    return len(value) if isinstance(value, list) else 0


def _roll(d: dict[str, Any], e: Envelope) -> str:
    faces = d.get("faces")
    shown = value_text(faces).replace(" ", " and ") if isinstance(faces, list) else "?"
    text = f"{get(d, 'total')} ({shown}), {words(d.get('decision'))}"
    if d.get("decision") == "point_established":
        text += optional(d, "point", ", point {}")
    raw = d.get("outcomes")
    outcomes: dict[str, Any] = raw if isinstance(raw, dict) else {}
    text += f"; {_count(outcomes.get('win'))} wager kinds win, {_count(outcomes.get('lose'))} lose"
    return text + optional(d, "shooter", "; shooter at {}")


def _no_roll(d: dict[str, Any], e: Envelope) -> str:
    kind = "invalid roll" if d.get("invalid") is True else "no roll"
    text = f"{kind} ({words(d.get('reason'))})" + optional(d, "called_by", ", called by {}")
    undone = d.get("reverses")
    if isinstance(undone, dict):
        text += f", the {get(undone, 'total')} called ({words(undone.get('decision'))}) is void"
    return text + (", the dice are thrown again" if d.get("rethrow") is True else "")


def _held(d: dict[str, Any], e: Envelope) -> str:
    reasons = d.get("reasons")
    named = (
        [words(r.get("reason")) for r in reasons if isinstance(r, dict)]
        if isinstance(reasons, list)
        else []
    )
    why = ", ".join(named) or "?"
    return f"throw {get(d, 'throw')} held for the call ({why})" + optional(d, "total", ", reads {}")


def _shooter(d: dict[str, Any], e: Envelope) -> str:
    if d.get("action") == "new":
        return f"new shooter at {get(d, 'seat')}" + optional(d, "by", ", dice offered by {}")
    if d.get("action") == "restored":
        return f"the shooter at {get(d, 'seat')} keeps the dice (the loser 7 is void)"
    text = f"the shooter at {get(d, 'seat')} passed the dice ({words(d.get('reason'))})"
    return text + optional(d, "fire_bets_pending", ", {} Fire Bet(s) pending")


def _fire_bet(d: dict[str, Any], e: Envelope) -> str:
    action = d.get("action")
    if action == "point_marker":
        return f"Fire Bet marker: point {get(d, 'point')}, {get(d, 'unique_points')} unique"
    if action == "accepted":
        return f"Fire Bet ${get(d, 'amount')} accepted at area {get(d, 'seat')}"
    text = f"Fire Bet at area {get(d, 'seat')} {words(action)}"
    text += optional(d, "unique_points", " with {} unique points")
    return text + optional(d, "odds", ", paid {}")


def _dice(d: dict[str, Any], e: Envelope) -> str:
    if d.get("action") == "selected":
        return f"the shooter's dice: {get(d, 'dice')}"
    text = f"dice set recorded: {get(d, 'dice')}"
    if d.get("replaced") is True:
        text += optional(d, "removed", ", replaced {}") + optional(d, "added", " by {}")
    return text


def _notice(d: dict[str, Any], e: Envelope) -> str:
    text = f"surveillance notified: {words(d.get('what'))}"
    return text + optional(d, "shooter", ", shooter at {}") + optional(d, "points", ", points {}")


CRAPS_SENTENCES: dict[str, Sentence] = {
    EventType.CRAPS_ROLL: _roll,
    EventType.CRAPS_NO_ROLL: _no_roll,
    EventType.CRAPS_THROW_HELD: _held,
    EventType.CRAPS_SHOOTER: _shooter,
    EventType.CRAPS_FIRE_BET: _fire_bet,
    EventType.CRAPS_DICE: _dice,
    EventType.SURVEILLANCE_NOTICE: _notice,
}
