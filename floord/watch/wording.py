"""Small helpers that turn contract values into words for a person at the console.

Everything an event carries is untrusted text from the broker, so each helper takes
whatever it is given (a missing key, a number where text was expected, a nested list)
and answers with plain words: never JSON, never an exception.
"""

from __future__ import annotations

import math
from typing import Any

CODE_PREFIX = "58 Pa. Code "
LONGEST_VALUE = 160


def words(code: Any) -> str:
    """`device_offline` -> `device offline`: a contract code read as words."""
    if code is None:
        return "?"
    return code.replace("_", " ").strip() if isinstance(code, str) else value_text(code)


def cite(rule: Any) -> str:
    """`58 Pa. Code § 549.16(k)` -> `§ 549.16(k)`: the section, short enough for a line."""
    if not isinstance(rule, str) or not rule:
        return ""
    return rule.removeprefix(CODE_PREFIX).strip()


def round_number(round_id: Any) -> str:
    """`RL-01-2026-11-29-0042` -> `42`: the day's round number at the end of its id."""
    if not isinstance(round_id, str) or not round_id:
        return ""
    tail = round_id.rsplit("-", 1)[-1]
    return str(int(tail)) if tail.isdigit() else round_id


def p_text(value: Any) -> str:
    """A p-value (or any statistic) to 3 significant digits: 0.000213, 3.8e-10, 0.0123."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "?"
    if not math.isfinite(value):
        return str(value)
    return f"{value:.3g}"


def value_text(value: Any, limit: int = LONGEST_VALUE) -> str:
    """Any value as words: lists joined by spaces, groups as `key value`, text shortened."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return p_text(value) if abs(value) < 0.01 and value != 0 else f"{value:g}"
    if isinstance(value, list | tuple):
        text = " ".join(value_text(v, limit) for v in value)
    elif isinstance(value, dict):
        text = ", ".join(f"{words(k)} {value_text(v, limit)}" for k, v in value.items())
    else:
        text = str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def get(data: dict[str, Any], key: str, default: str = "?") -> str:
    """`data[key]` as words, or `default` when it is missing or null."""
    value = data.get(key)
    return default if value is None else value_text(value)


def optional(data: dict[str, Any], key: str, template: str) -> str:
    """`template` filled with `data[key]` when the key holds something, else ``."""
    value = data.get(key)
    if value is None or value == "" or value == [] or value == {}:
        return ""
    return template.format(value_text(value))


def pairs(data: dict[str, Any], skip: tuple[str, ...] = ()) -> str:
    """`alert A00001, note checked`: a command's arguments, or any group, as words."""
    shown = {k: v for k, v in data.items() if k not in skip}
    return ", ".join(f"{words(k)} {value_text(v)}" for k, v in shown.items())
