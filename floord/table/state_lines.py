"""The operator's log of a table: one line for each recorded event that changes its state.

The runner calls `log_recorded` with what it has just committed, so a line means the
event is on the record (with its `seq`), never a decision the journal refused. Only the
types below make a line: a table opened, closed, halted or resumed, a device online,
offline, identified, faulted, its fault cleared, tampered with or silent, a refused
command, a surveillance alert. Frames, spins, cards and accepted commands make none, so
a table in steady play is quiet at INFO and the log shows the moments an operator must
act on.

Each line carries a chosen few fields of the event, never the whole payload: a refused
command names the command, the operator, the code and the reason, and never the key
that signed it (nor its signature, which the record does not hold either).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from floord.contract import Envelope, EventType

# Long text from outside (a device's fault text, a refusal's reason) is cut to this.
MAX_TEXT = 200

# type -> (level, message, fields of `data` the line carries)
LINES: dict[str, tuple[str, str, tuple[str, ...]]] = {
    EventType.TABLE_OPENED: ("info", "table opened", ("by", "role")),
    EventType.TABLE_CLOSED: ("info", "table closed", ("by", "role", "from")),
    EventType.TABLE_HALTED: ("warning", "table halted", ("code", "device", "detail")),
    EventType.TABLE_RESUMED: ("info", "table resumed", ("by", "role", "reason")),
    EventType.TABLE_FAULT_CLEARED: ("info", "device fault cleared", ("device", "cleared_by")),
    EventType.DEVICE_ONLINE: ("info", "device online", ("port",)),
    EventType.DEVICE_OFFLINE: ("warning", "device offline", ("port", "reason")),
    EventType.DEVICE_IDENTIFIED: (
        "info",
        "device identified",
        ("maker", "model", "serial", "firmware"),
    ),
    EventType.DEVICE_FAULT: ("warning", "device fault", ("code", "text", "origin")),
    EventType.DEVICE_TAMPER: ("warning", "device tamper", ("code", "text")),
    EventType.DEVICE_HEARTBEAT_LOST: ("warning", "device heartbeat lost", ("missed",)),
    EventType.OPERATOR_COMMAND_REFUSED: (
        "warning",
        "command refused",
        ("name", "by", "code", "reason", "id"),
    ),
    EventType.OPERATOR_COMMANDS_REFUSED: (
        "warning",
        "commands refused, counted not recorded",
        ("count", "codes", "first", "last", "sample"),
    ),
    EventType.SURVEILLANCE_ALERT: (
        "warning",
        "surveillance alert",
        ("id", "test", "p_value", "level", "dealer"),
    ),
    EventType.JOURNAL_INTEGRITY: ("error", "journal integrity", ("breaks",)),
    # A table with a second source: a result held, or decided by a ruling.
    EventType.RESULT_DISPUTED: ("warning", "result disputed", ("detail",)),
    EventType.RESULT_SILENT: ("warning", "second source silent", ("on_silence", "detail")),
    EventType.RESULT_RULED: ("info", "result ruled", ("by", "role", "value", "void", "note")),
}

# Types whose line names the rule even when there is none (floord's policy, not a rule).
_RULED = frozenset(
    {EventType.TABLE_HALTED, EventType.TABLE_RESUMED, EventType.OPERATOR_COMMAND_REFUSED}
)


def state_line(envelope: Envelope) -> tuple[str, str, dict[str, Any]] | None:
    """(level, message, fields) of the line `envelope` makes, or None for no line."""
    found = LINES.get(str(envelope.type))
    if found is None:
        return None
    level, message, keys = found
    data = envelope.data if isinstance(envelope.data, dict) else {}
    fields: dict[str, Any] = {"seq": envelope.seq, "source": envelope.source}
    for key in keys:
        if key in data and data[key] is not None:
            fields[key] = _short(data[key])
    if envelope.type == EventType.TABLE_RESUMED:
        cleared = data.get("cleared") or []
        fields["cleared"] = [r.get("code") for r in cleared if isinstance(r, dict)]
    if envelope.rule or envelope.type in _RULED:
        # A halt, resume or refusal always says its rule; null: floord's own policy.
        fields["rule"] = envelope.rule
    if envelope.round:
        fields["round"] = envelope.round
    return level, message, fields


def log_recorded(log: Any, envelopes: Iterable[Envelope]) -> None:
    """One line on `log` for each state-changing event among those just recorded."""
    for envelope in envelopes:
        line = state_line(envelope)
        if line is not None:
            level, message, fields = line
            getattr(log, level)(message, **fields)


def _short(value: Any) -> Any:
    if isinstance(value, str) and len(value) > MAX_TEXT:
        return value[:MAX_TEXT] + "…"
    if isinstance(value, list | tuple) and len(value) > 10:
        return [*value[:10], f"… {len(value) - 10} more"]
    return value
