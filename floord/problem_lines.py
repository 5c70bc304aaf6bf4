"""One `FILE: KEY.PATH: what was expected, what was found` line per pydantic error.

Shared by every strict YAML file floord reads (configs, device profiles, simulator
scenarios), so that an engineer reads floord's words whichever file is wrong, never
pydantic's ("Input should be a valid dictionary or instance of RouletteRules"): the
values a field allows listed once each, unquoted, the value found quoted once, and the
nearest allowed value offered when the one found looks like a typo of it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date, datetime, time
from pathlib import Path
from typing import Any

from pydantic import ValidationError

_MAPPING = "a mapping (its keys indented under it)"
# What each kind of pydantic error expected, in floord's words (ctx: the error's context).
_EXPECTED: dict[str, str] = {
    "int_parsing": "a whole number",
    "int_type": "a whole number",
    "int_from_float": "a whole number",
    "float_parsing": "a number",
    "float_type": "a number",
    "bool_parsing": "true or false",
    "bool_type": "true or false",
    "string_type": "text",
    "list_type": "a list",
    "tuple_type": "a list",
    "dict_type": _MAPPING,
    "model_type": _MAPPING,
    "model_attributes_type": _MAPPING,
    "time_parsing": "a time of day as HH:MM",
    "time_type": "a time of day as HH:MM",
    "datetime_parsing": "a date and time such as 2025-01-31T18:00:00+00:00",
    "datetime_type": "a date and time such as 2025-01-31T18:00:00+00:00",
    "datetime_from_date_parsing": "a date and time such as 2025-01-31T18:00:00+00:00",
    "timezone_aware": "a date and time with its UTC offset, such as 2025-01-31T18:00:00+00:00",
    "path_type": "a file path",
    "greater_than_equal": "a number of at least {ge}",
    "greater_than": "a number above {gt}",
    "less_than_equal": "a number of at most {le}",
    "less_than": "a number below {lt}",
    "too_short": "at least {min_length} item(s)",
    "too_long": "at most {max_length} item(s)",
    "string_too_short": "text of at least {min_length} character(s)",
    "string_too_long": "text of at most {max_length} character(s)",
}
_QUOTED = re.compile(r"'((?:[^'\\]|\\.)*)'")


def one_of(values: Iterable[str]) -> str:
    """`one of a, b or c`: the values a field allows, each once and unquoted."""
    listed = list(values)
    if len(listed) < 2:
        return "".join(listed)
    return f"one of {', '.join(listed[:-1])} or {listed[-1]}"


def closest(found: object, allowed: Iterable[str]) -> str | None:
    """The allowed value `found` most likely misspells (the same but for case, or close)."""
    if not isinstance(found, str) or not found:
        return None
    choices = list(allowed)
    by_case = {c.lower(): c for c in choices}
    if found.lower() in by_case:
        return by_case[found.lower()]
    # difflib is imported here, for a file that is wrong: a config that is right (every
    # daemon's start) never needs it, nor its 0.2 MiB.
    import difflib

    close = difflib.get_close_matches(found, choices, n=1, cutoff=0.6)
    return close[0] if close else None


def did_you_mean(found: object, allowed: Iterable[str]) -> str:
    """` (did you mean 'x'?)` when `found` is text close to one allowed value, else ''."""
    meant = closest(found, allowed)
    return f" (did you mean {meant!r}?)" if meant is not None else ""


def found_text(value: object) -> str:
    """The value found, quoted once; an empty value or a whole section by what it is."""
    if value is None:
        return "nothing (an empty value)"
    if isinstance(value, datetime | date | time):
        return repr(value.isoformat())  # YAML reads an unquoted timestamp as one
    text = repr(value)
    if isinstance(value, dict) and len(text) > 60:
        return f"a mapping of {len(value)} key(s)"
    if isinstance(value, list) and len(text) > 60:
        return f"a list of {len(value)} item(s)"
    return text if len(text) <= 200 else f"{text[:200]}..."


def _allowed_values(expected: str) -> list[str]:
    """The values in pydantic's `'a', 'b' or 'c'` (or `5, 6 or 8`), unquoted."""
    quoted = _QUOTED.findall(expected)
    return quoted or [v for v in re.split(r", | or ", expected) if v]


def _message(err: Any) -> str:
    kind, found, ctx = err["type"], err.get("input"), err.get("ctx") or {}
    if kind == "extra_forbidden":
        return f"unknown key, found {found_text(found)}"
    if kind == "missing":
        return "a value expected, found nothing (the key is missing)"
    if kind in ("literal_error", "enum"):
        values = _allowed_values(str(ctx.get("expected", "")))
        hint = did_you_mean(found, values)
        return f"{one_of(values)} expected, found {found_text(found)}{hint}"
    if kind == "string_pattern_mismatch":
        return f"text matching {ctx['pattern']} expected, found {found_text(found)}"
    if kind == "value_error":
        # Our own validators already say what was expected and what was found.
        return str(ctx.get("error", err["msg"]))
    if kind in ("too_short", "too_long"):
        count = ctx.get("actual_length")
        return f"{_EXPECTED[kind].format(**ctx)} expected, found {count or 'none'}"
    if kind == "string_type" and isinstance(found, int | float) and not isinstance(found, bool):
        # YAML reads an unquoted 0403 as the octal number 259, 6:30 as 390, 1e3 as 1000.0.
        return f"text expected, found the number {found} (YAML read it as one: put it in quotes)"
    if kind in _EXPECTED:
        return f"{_EXPECTED[kind].format(**ctx)} expected, found {found_text(found)}"
    expected = str(err["msg"]).removeprefix("Input should be ")
    return f"{expected} expected, found {found_text(found)}"


def validation_problems(path: Path, exc: ValidationError, drop: tuple[str, ...] = ()) -> list[str]:
    """One `FILE: KEY.PATH: what was expected, what was found` line per pydantic error.

    `drop`: tags pydantic puts in a path that are not keys in the file (the chosen member
    of a tagged union, such as a table's game).
    """
    lines = []
    for err in exc.errors():
        key = ".".join(str(p) for p in err["loc"] if p not in drop)
        message = _message(err)
        if key:
            lines.append(f"{path}: {key}: {message}")
        elif err["type"] == "value_error":
            lines.append(f"{path}: {message}")  # a whole-file check names its own keys
        else:
            lines.append(f"{path}: (top): {message}")
    return lines
