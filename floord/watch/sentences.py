"""A table's events as sentences for the console's detail view, never as JSON.

`sentence(env)` answers one line for any event: every type of `floord.contract.EventType`
has its own wording (here, in `device_sentences`, `game_sentences` and
`craps_sentences`); a type this
console does not know yet (a newer table) still reads as words, its type and data as
`key value` pairs. The citation of an engine decision ends its line (`§ 549.16(k)`).

`family(type)` sorts the types for the view's filter and colours: telemetry (the wheel's
and the shoe's running commentary, hidden by default), device, table, round, result,
violation, alert, operator, daemon.
"""

from __future__ import annotations

from typing import Any

from floord.contract import Envelope, EventType
from floord.watch.craps_sentences import CRAPS_SENTENCES
from floord.watch.device_sentences import DEVICE_SENTENCES, Sentence
from floord.watch.game_sentences import GAME_SENTENCES
from floord.watch.result_sentences import RESULT_SENTENCES
from floord.watch.shuffle_sentences import shuffle_alert
from floord.watch.table_view import halt_text
from floord.watch.wording import (
    cite,
    get,
    optional,
    p_text,
    pairs,
    round_number,
    value_text,
    words,
)

# What a wheel or a shoe says on every spin or card: kept, but hidden by default.
TELEMETRY: frozenset[str] = frozenset(
    {
        EventType.WHEEL_GAME_STARTED,
        EventType.WHEEL_BALL_LAUNCHED,
        EventType.WHEEL_NO_MORE_BETS,
        EventType.WHEEL_NUMBER,
        EventType.WHEEL_IDLE,
        EventType.WHEEL_BALL_REVOLUTIONS,
        EventType.BIGSIX_SPIN_STARTED,
        EventType.BIGSIX_REVOLUTION,
        EventType.BIGSIX_AT_REST,
        EventType.BIGSIX_BETWEEN_SECTIONS,
        EventType.SHOE_CARD_DRAWN,
        EventType.SHOE_CARD_FACE_UP,
    }
)
VIOLATIONS = frozenset({EventType.PROCEDURE_VIOLATION, EventType.JOURNAL_INTEGRITY})
ALERTS = frozenset(
    {
        EventType.SURVEILLANCE_ALERT,
        EventType.SURVEILLANCE_ALERT_ACKNOWLEDGED,
        EventType.SURVEILLANCE_NOTICE,
    }
)
HALTS = frozenset({EventType.TABLE_HALTED, EventType.TABLE_RESUMED})
VOIDS = frozenset(
    {
        EventType.ROUND_VOIDED,
        EventType.ROULETTE_NO_SPIN,
        EventType.BIGSIX_NO_SPIN,
        EventType.CRAPS_NO_ROLL,
    }
)
# A result held for a ruling is surveillance's business; the others are the table's.
HELD_RESULTS = frozenset({EventType.RESULT_DISPUTED})
RESULTS = frozenset(
    {
        EventType.ROULETTE_RESULT,
        EventType.BIGSIX_RESULT,
        EventType.BLACKJACK_RESULT,
        EventType.BACCARAT_RESULT,
        EventType.STUD_RESULT,
        EventType.CRAPS_ROLL,
    }
)

# The first word of a type nobody listed above says whose business it is: the people
# running floord's, or the table's (its own words, and each game's).
OPERATOR_HEADS = frozenset({"operator", "daemon", "journal"})
GAME_HEADS = frozenset({"blackjack", "baccarat", "stud", "roulette", "bigsix", "craps", "paigow"})
TABLE_HEADS = frozenset({"table", "round", "cards", "result"}) | GAME_HEADS


def family(kind: str) -> str:
    """The filter group of an event type (docs/console.md, "The detail view")."""
    if kind in TELEMETRY:
        return "telemetry"
    for name, kinds in (
        ("halt", HALTS),
        ("alert", ALERTS | HELD_RESULTS),
        ("violation", VIOLATIONS),
        ("void", VOIDS),
        ("result", RESULTS),
    ):
        if kind in kinds:
            return name
    head = kind.split(".", 1)[0]
    if head in OPERATOR_HEADS:
        return "operator"
    if head in TABLE_HEADS:
        return "table"
    return "device"


def _halted(d: dict[str, Any], e: Envelope) -> str:
    raw = d.get("code")
    code = raw if isinstance(raw, str) else words(raw)
    device = value_text(d["device"]) if d.get("device") else ""
    if device and code.startswith("device_"):
        what = f"{device} {words(code.removeprefix('device_'))}"
    else:
        what = words(code) + (f" ({device})" if device else "")
    text = f"halted: {what}" + optional(d, "detail", " ({})")
    others = len(d["reasons"]) - 1 if isinstance(d.get("reasons"), list) else 0
    return text + (f"; {others} more reason(s) latched" if others > 0 else "")


def _resumed(d: dict[str, Any], e: Envelope) -> str:
    cleared = halt_text(d.get("cleared")) or "nothing"
    return (
        f"resumed by {get(d, 'by')}: {get(d, 'reason')}; cleared {cleared}; now {get(d, 'state')}"
    )


def _fault_cleared(d: dict[str, Any], e: Envelope) -> str:
    fault = d.get("fault")
    what = get(fault, "text", "") if isinstance(fault, dict) else ""
    return (
        f"{get(d, 'device')} fault cleared"
        + (f" ({what})" if what else "")
        + optional(d, "detail", ": {}")
    )


def _covered(d: dict[str, Any], e: Envelope) -> str:
    how = "a sign put on it" if d.get("marked") == "sign" else "covered"
    text = f"{get(d, 'device')} out of order, {how} by {get(d, 'by')}: {get(d, 'reason')}"
    return text + f"; the table deals {_method(d.get('deal_by'))}"


def _uncovered(d: dict[str, Any], e: Envelope) -> str:
    text = f"{get(d, 'device')} uncovered by {get(d, 'by')}: {get(d, 'reason')}"
    return text + f"; the table deals {_method(d.get('dealing'))} again"


def _method(method: Any) -> str:
    known = {"hand": "from the hand", "manual_shoe": "from a manual shoe"}
    if isinstance(method, str):
        return known.get(method, f"from the {words(method)}")
    return "by another method"


def _closed(d: dict[str, Any], e: Envelope) -> str:
    text = f"table closed by {get(d, 'by')} (was {get(d, 'from')})"
    return text + ("; its next opening needs an inspection" if d.get("inspection_required") else "")


def _round_started(d: dict[str, Any], e: Envelope) -> str:
    text = f"round {round_number(e.round) or get(d, 'n')} started"
    text += optional(d, "spin", ", spin {}") + optional(d, "dealer", ", dealer {}")
    return text + optional(d, "game", " ({})")


def _round_ended(d: dict[str, Any], e: Envelope) -> str:
    text = f"{_round_of(e)} ended: {words(d.get('outcome'))}"
    return text + optional(d, "number", ", {}") + optional(d, "symbol", ", {}")


def _round_of(e: Envelope) -> str:
    number = round_number(e.round)
    return f"round {number}" if number else "round"


def _voided(d: dict[str, Any], e: Envelope) -> str:
    text = f"{_round_of(e)} voided: {words(d.get('reason'))}"
    return text + optional(d, "detail", " ({})")


def _alert(d: dict[str, Any], e: Envelope) -> str:
    if d.get("test") in ("result_disputed", "result_silent"):
        return f"alert {get(d, 'id')}: {words(d.get('test'))}, {_round_of(e)}" + optional(
            d, "detail", " ({})"
        )
    if "shoe" in d:
        return shuffle_alert(d)
    if isinstance(d.get("summary"), str):  # pace and spin physics: no p-value of their own
        return f"alert {get(d, 'id')}: {words(d.get('test'))} test: {d['summary']}"
    text = f"alert {get(d, 'id')}: {words(d.get('test'))} test p = {p_text(d.get('p_value'))}"
    text += f" below {p_text(d.get('level'))} over {get(d, 'window')} results"
    text += optional(d, "die", ", die {}") + optional(d, "shooter", ", shooter at seat {}")
    text += optional(d, "dice_set", ", dice set {}")
    return text + optional(d, "dealer", ", dealer {}")


def _acknowledged(d: dict[str, Any], e: Envelope) -> str:
    return f"alert {get(d, 'id')} acknowledged by {get(d, 'by')}" + optional(d, "note", ": {}")


def _inspection(d: dict[str, Any], e: Envelope) -> str:
    verdict = "passed" if d.get("passed") else "failed" + optional(d, "failed_items", " ({})")
    return f"inspection by {get(d, 'by')} ({get(d, 'role')}): {verdict}"


def _command(d: dict[str, Any], e: Envelope) -> str:
    args = d.get("args")
    shown = pairs(args) if isinstance(args, dict) else ""
    return f"{get(d, 'by')} ({get(d, 'role')}): {get(d, 'name')}" + (f" {shown}" if shown else "")


def _refused(d: dict[str, Any], e: Envelope) -> str:
    return f"{get(d, 'by')}'s {get(d, 'name')} refused ({get(d, 'code')}): {get(d, 'reason')}"


def _counted(d: dict[str, Any], e: Envelope) -> str:
    codes = d.get("codes")
    named = (
        ", ".join(f"{value_text(k)} {value_text(v)}" for k, v in codes.items())
        if isinstance(codes, dict)
        else ""
    )
    return f"{get(d, 'count')} more unsigned commands refused, counted not recorded ({named})"


def _integrity(d: dict[str, Any], e: Envelope) -> str:
    breaks = d.get("breaks")
    count = len(breaks) if isinstance(breaks, list) else 0
    return f"journal check found the record broken: {count} break(s)" + optional(
        d, "more", ", {} more"
    )


def _violation(d: dict[str, Any], e: Envelope) -> str:
    return f"procedure violation: {words(d.get('what'))}" + optional(d, "detail", " ({})")


def _warning(d: dict[str, Any], e: Envelope) -> str:
    text = f"warning: {words(d.get('what'))}"
    return text + optional(d, "text", " ({})") + optional(d, "detail", " ({})")


def _restored(d: dict[str, Any], e: Envelope) -> str:
    head, lost = d.get("head"), d.get("lost")
    seq = head.get("seq") if isinstance(head, dict) else None
    text = "journal restored from a backup"
    text += f", going on after seq {value_text(seq)}" if seq is not None else ""
    gone = [x for x in lost if isinstance(x, dict)] if isinstance(lost, list) else []
    return text + (f"; {len(gone)} streams lost events after it" if gone else "")


TABLE_SENTENCES: dict[str, Sentence] = {
    EventType.TABLE_OPENED: lambda d, e: f"table opened by {get(d, 'by')} ({get(d, 'role')})",
    EventType.TABLE_CLOSED: _closed,
    EventType.TABLE_HALTED: _halted,
    EventType.TABLE_RESUMED: _resumed,
    EventType.TABLE_FAULT_CLEARED: _fault_cleared,
    EventType.TABLE_WARNING: _warning,
    EventType.TABLE_DEVICE_COVERED: _covered,
    EventType.TABLE_DEVICE_UNCOVERED: _uncovered,
    EventType.TABLE_RETIRED: lambda d, e: (
        f"table retired by {get(d, 'by')}: {get(d, 'reason')}" + optional(d, "mismatch", " ({})")
    ),
    EventType.JOURNAL_RESTORED: _restored,
    EventType.ROUND_STARTED: _round_started,
    EventType.ROUND_ENDED: _round_ended,
    EventType.ROUND_VOIDED: _voided,
    EventType.PROCEDURE_VIOLATION: _violation,
    EventType.SURVEILLANCE_ALERT: _alert,
    EventType.SURVEILLANCE_ALERT_ACKNOWLEDGED: _acknowledged,
    EventType.OPERATOR_INSPECTION: _inspection,
    EventType.OPERATOR_COMMAND: _command,
    EventType.OPERATOR_COMMAND_REFUSED: _refused,
    EventType.OPERATOR_COMMANDS_REFUSED: _counted,
    EventType.DAEMON_STARTED: lambda d, e: f"daemon started (floord {get(d, 'version')})",
    EventType.DAEMON_STOPPED: lambda d, e: f"daemon stopped: {get(d, 'reason')}",
    EventType.JOURNAL_INTEGRITY: _integrity,
}

SENTENCES: dict[str, Sentence] = {
    **DEVICE_SENTENCES,
    **GAME_SENTENCES,
    **CRAPS_SENTENCES,
    **RESULT_SENTENCES,
    **TABLE_SENTENCES,
}


def fallback(env: Envelope) -> str:
    """A type without its own wording: its name and its data, as words."""
    data = env.data if isinstance(env.data, dict) else {}
    shown = pairs(data)
    return f"{words(env.type.replace('.', ' '))}" + (f": {shown}" if shown else "")


def sentence(env: Envelope) -> str:
    """One line for a person: what the event says, then its citation if it has one."""
    data = env.data if isinstance(env.data, dict) else {}
    wording = SENTENCES.get(env.type)
    try:
        text = wording(data, env) if wording is not None else fallback(env)
    except (TypeError, ValueError, AttributeError, KeyError):
        text = fallback(env)  # data of an unexpected shape still reads as words
    section = cite(env.rule)
    return f"{text}, {section}" if section else text
