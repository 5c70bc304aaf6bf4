"""One log record as one line of text: `event key=value ...`, for the journal.

What `systemctl status floord` and `journalctl -u floord` show: the journal already
stamps each line with its time, the unit and its priority (the `<N>` prefix,
`floord.system.journald`), so the line holds only what happened and its fields, in the
order they were bound (table and device first). A value with a space, a quote, an `=` or
a character that is not printable is written as a JSON string, so the line stays one line
and a reader (or a script) can tell where a value ends. A traceback (a bug, never an
expected failure) follows on the lines after it.
"""

from __future__ import annotations

import json
from collections.abc import MutableMapping
from typing import Any

# Fields the journal has already (time, priority) or the line's own parts.
_NOT_FIELDS = frozenset({"event", "level", "timestamp", "logger", "exception", "exc_info"})


def _value(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if not isinstance(value, str):
        return json.dumps(value, ensure_ascii=False, default=str, separators=(",", ":"))
    plain = value and value.isprintable() and not any(c in value for c in ' ="')
    return value if plain else json.dumps(value, ensure_ascii=False)


class OneLineRenderer:
    """A structlog renderer: `event key=value ...`; a library's logger name is added as
    `logger=` (floord's own are known by their fields)."""

    def __call__(self, _logger: Any, _name: str, event_dict: MutableMapping[str, Any]) -> str:
        event = str(event_dict.get("event", ""))
        parts = [event.replace("\n", "\\n")]
        parts += [f"{k}={_value(v)}" for k, v in event_dict.items() if k not in _NOT_FIELDS]
        logger = event_dict.get("logger")
        if logger and not str(logger).startswith("floord"):
            parts.append(f"logger={_value(logger)}")
        line = " ".join(parts)
        exception = event_dict.get("exception")
        return f"{line}\n{exception}" if exception else line
