"""Device events (`device.*`, `wheel.*`, `reader.*`, `shoe.*`, `shuffler.*`, the Big Six
sensor) as sentences: what the table's hardware said, in the words of docs/contract.md.

Each function gets the event's `data` and its envelope and answers one line.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from floord.contract import Envelope, EventType
from floord.watch.wording import get, optional, words

Sentence = Callable[[dict[str, Any], Envelope], str]


def _side(data: dict[str, Any]) -> str:
    return optional(data, "side", " ({} side)")


def _spin(data: dict[str, Any]) -> str:
    return f"spin {get(data, 'spin')}"


def _online(d: dict[str, Any], e: Envelope) -> str:
    again = " (said again for a restarted daemon)" if d.get("announced") else ""
    return f"{e.source} online on {get(d, 'port')}{again}"


def _identified(d: dict[str, Any], e: Envelope) -> str:
    text = f"{e.source} identified: {get(d, 'maker')} {get(d, 'model')}"
    text += optional(d, "serial", ", serial {}") + optional(d, "firmware", ", firmware {}")
    return text + optional(d, "pockets", ", {} pockets")


def _protocol_errors(d: dict[str, Any], e: Envelope) -> str:
    sample = d.get("sample")
    first = sample.get("reason") if isinstance(sample, dict) else None
    text = f"{e.source}: {get(d, 'count')} protocol errors in {get(d, 'interval_s')} s"
    return text + (f" (first: {first})" if first else "")


def _command_result(d: dict[str, Any], e: Envelope) -> str:
    if d.get("ok") is True:
        return f"{e.source} did {get(d, 'name')}" + optional(d, "reply", ": {}")
    return f"{e.source} could not {get(d, 'name')}: {get(d, 'error')}"


def _ball_launched(d: dict[str, Any], e: Envelope) -> str:
    text = f"{_spin(d)}: ball launched, rotor {get(d, 'rotor_direction')}"
    text += f" at {get(d, 'rotor_rpm')} rpm" + optional(d, "ball_direction", ", ball {}")
    return text + optional(d, "release_pocket", ", released at pocket {}")


def _wheel_warning(d: dict[str, Any], e: Envelope) -> str:
    text = f"{_spin(d)}: wheel warning {get(d, 'code')}" + optional(d, "flags", " (flags {})")
    return text + (", persistent" if d.get("persistent") else "")


def _reader_peek(d: dict[str, Any], e: Envelope) -> str:
    blackjack = d.get("blackjack")
    if blackjack is None:
        found = "blackjack not known"
    else:
        found = "dealer has blackjack" if blackjack else "no dealer blackjack"
    return f"card reader peek: {found}" + optional(d, "hole_card", ", hole card {}")


def _self_test(d: dict[str, Any], e: Envelope) -> str:
    if d.get("passed") is True:
        return f"{e.source} self-test passed"
    return f"{e.source} self-test failed: {get(d, 'text')} (code {get(d, 'code')})"


def _card_drawn(d: dict[str, Any], e: Envelope) -> str:
    return f"card {get(d, 'count')} drawn: {get(d, 'card', 'not read')}{_side(d)}"


def _out_of_order(d: dict[str, Any], e: Envelope) -> str:
    return _device_order("shuffler", d)


def _device_order(device: str, d: dict[str, Any]) -> str:
    if d.get("code") in (0, "0"):
        return f"{device} back in service"
    return f"{device} out of order: {get(d, 'text')} (code {get(d, 'code')})"


def _die(die: Any) -> str:
    """One die of a throw: `4`, `4 (cocked)`, `off the table`, with its id when known."""
    if not isinstance(die, dict):
        return "?"
    face = die.get("face")
    text = str(face) if face is not None else "no face"
    rest = die.get("rest")
    if rest == "off":
        text = "off the table"
    elif rest == "die":
        text += " on the other die"
    elif rest not in (None, "table"):
        text += f" on the {words(rest)}" if rest != "cup" else " in the dice cup"
    if die.get("lie") in ("cocked", "cocked_multi"):
        text += f" ({words(die.get('lie'))})"
    return f"{die['id']}: {text}" if die.get("id") else text


def _throw(d: dict[str, Any], e: Envelope) -> str:
    dice = d.get("dice")
    shown = ", ".join(_die(die) for die in dice) if isinstance(dice, list) and dice else "no dice"
    text = f"throw {get(d, 'throw')}: {shown}"
    if d.get("together") is False:
        text += "; the dice did not leave the hand together"
    if isinstance(dice, list) and any(
        isinstance(x, dict) and x.get("far_end") is False for x in dice
    ):
        text += "; short of the far end"
    return text


def _dice_ids(d: dict[str, Any]) -> str:
    dice = d.get("dice")
    if not isinstance(dice, list):
        return "?"
    return ", ".join(str(x) for x in dice) if dice else "none"


DEVICE_SENTENCES: dict[str, Sentence] = {
    EventType.DEVICE_ONLINE: _online,
    EventType.DEVICE_OFFLINE: lambda d, e: f"{e.source} offline: {get(d, 'reason')}",
    EventType.DEVICE_IDENTIFIED: _identified,
    EventType.DEVICE_FAULT: lambda d, e: (
        f"{e.source} fault {get(d, 'code', '')}: {get(d, 'text')}"
        f" (seen by {words(d.get('origin'))})"
    ),
    EventType.DEVICE_PROTOCOL_ERROR: lambda d, e: f"{e.source} protocol error: {get(d, 'reason')}",
    EventType.DEVICE_PROTOCOL_ERRORS: _protocol_errors,
    EventType.DEVICE_COMMAND_RESULT: _command_result,
    EventType.DEVICE_HEARTBEAT_LOST: lambda d, e: (
        f"{e.source} heartbeat lost: {get(d, 'missed')} beats missed"
    ),
    EventType.DEVICE_TAMPER: lambda d, e: (
        f"{e.source} tampered with: {get(d, 'text')} (code {get(d, 'code')})"
    ),
    EventType.WHEEL_GAME_STARTED: lambda d, e: (
        f"{_spin(d)}: game started, rotor {get(d, 'rotor_direction')} at {get(d, 'rotor_rpm')} rpm"
    ),
    EventType.WHEEL_BALL_LAUNCHED: _ball_launched,
    EventType.WHEEL_NO_MORE_BETS: lambda d, e: f"{_spin(d)}: no more bets",
    EventType.WHEEL_NUMBER: lambda d, e: f"{_spin(d)}: the wheel reads {get(d, 'number')}",
    EventType.WHEEL_WARNING: _wheel_warning,
    EventType.WHEEL_IDLE: lambda d, e: f"{_spin(d)}: wheel idle",
    EventType.WHEEL_BALL_REVOLUTIONS: lambda d, e: (
        f"{_spin(d)}: ball went round {get(d, 'count')} times"
    ),
    EventType.WHEEL_BALL_OFF: lambda d, e: f"{_spin(d)}: the ball left the wheel",
    EventType.WHEEL_FOREIGN_OBJECT: lambda d, e: f"{_spin(d)}: a foreign object in the wheel",
    EventType.READER_PEEK: _reader_peek,
    EventType.READER_SELF_TEST: _self_test,
    EventType.SHOE_LOADED: lambda d, e: f"shoe loaded with {get(d, 'cards')} cards{_side(d)}",
    EventType.SHOE_CARD_DRAWN: _card_drawn,
    EventType.SHOE_CARD_FACE_UP: lambda d, e: f"card face up: {get(d, 'card')}{_side(d)}",
    EventType.SHOE_CUTTING_CARD: lambda d, e: (
        f"cutting card out after {get(d, 'count')} cards{_side(d)}"
    ),
    EventType.SHOE_EMPTY: lambda d, e: f"shoe empty{_side(d)}",
    EventType.SHOE_OUT_OF_ORDER: lambda d, e: _device_order("shoe", d),
    EventType.SHUFFLER_SHUFFLE_STARTED: lambda d, e: f"shuffling batch {get(d, 'batch')}",
    EventType.SHUFFLER_SHUFFLE_COMPLETED: lambda d, e: (
        f"batch {get(d, 'batch')} shuffled, {get(d, 'cards')} cards"
    ),
    EventType.SHUFFLER_BATCH_READY: lambda d, e: (
        f"batch {get(d, 'batch')} ready, {get(d, 'cards')} cards"
    ),
    EventType.SHUFFLER_BATCH_REMOVED: lambda d, e: f"batch {get(d, 'batch')} taken out",
    EventType.SHUFFLER_JAM: lambda d, e: (
        f"shuffler jammed on batch {get(d, 'batch')}: {get(d, 'text')} (code {get(d, 'code')})"
    ),
    EventType.SHUFFLER_DOOR: lambda d, e: (
        "shuffler door opened" if d.get("open") else "shuffler door closed"
    ),
    EventType.SHUFFLER_OUT_OF_ORDER: _out_of_order,
    EventType.SHUFFLER_MODE: lambda d, e: (
        "shuffler in continuous mode" if d.get("continuous") else "shuffler in batch mode"
    ),
    EventType.BIGSIX_SPIN_STARTED: lambda d, e: f"Big Six wheel spun {get(d, 'direction')}",
    EventType.BIGSIX_REVOLUTION: lambda d, e: f"Big Six wheel: {get(d, 'count')} revolutions",
    EventType.BIGSIX_AT_REST: lambda d, e: f"Big Six wheel at rest on section {get(d, 'section')}",
    EventType.BIGSIX_BETWEEN_SECTIONS: lambda d, e: (
        f"Big Six clapper on the divider between sections {get(d, 'left')} and {get(d, 'right')}"
    ),
    EventType.DICE_SET: lambda d, e: f"dice at the table: {_dice_ids(d)}",
    EventType.DICE_SELECTED: lambda d, e: f"the shooter selected dice {_dice_ids(d)}",
    EventType.DICE_THROW: _throw,
}
