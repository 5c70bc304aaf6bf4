"""Text from outside floord: what is refused at the edge, and how text is escaped.

Anyone who can publish on the broker chooses every character of a payload, and JSON can
carry characters that cannot be stored or shown safely: a lone UTF-16 surrogate
(`"\\ud800"` is valid JSON, but no UTF-8 encoder can write it, so a record or a reply
that held it could not be written at all), control characters (which rewrite an
operator's terminal or split a log line) and strings of any length. This module says
what is wrong with such text, so the edge can refuse it as `malformed`, and escapes it
where it must still be written down (a refusal names what was refused). Pure: no I/O.
"""

from __future__ import annotations

import json
import re
from typing import Any

# C0 controls, DEL, C1 controls, the surrogate range, and the Unicode line and paragraph
# separators (which end a line for many readers as a newline does).
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
_SURROGATE = re.compile("[\ud800-\udfff]")

# A free-text value inside a command's args, or a key of its objects.
MAX_TEXT = 1024
# How deep a command's args may nest (objects and lists).
MAX_DEPTH = 16
ELLIPSIS = "..."


def _describe(ch: str) -> str:
    code = ord(ch)
    if 0xD800 <= code <= 0xDFFF:
        return f"a lone surrogate U+{code:04X}"
    return f"a control character U+{code:04X}"


def text_problem(value: str, *, max_length: int = MAX_TEXT, chars: bool = True) -> str | None:
    """Why `value` may not be taken as text (None when it may); with `chars` False,
    only its length is checked."""
    if len(value) > max_length:
        return f"at most {max_length} characters expected, found {len(value)}"
    found = _UNSAFE.search(value) if chars else None
    if found is not None:
        return f"{_describe(found.group())} at position {found.start()}"
    return None


def json_problem(
    value: Any,
    *,
    where: str,
    max_text: int = MAX_TEXT,
    max_depth: int = MAX_DEPTH,
    chars: bool = True,
) -> str | None:
    """The first unsafe or overlong text (in a key or a value) or too-deep nesting in a
    parsed JSON value, named by its path (`args.note`, `args.list[2]`); None when there
    is none; with `chars` False, unsafe characters are not looked for. Walks without
    recursion, so any depth json.loads accepted is safe to check."""
    stack: list[tuple[Any, str, int]] = [(value, where, 0)]
    while stack:
        item, path, depth = stack.pop()
        if isinstance(item, str):
            problem = text_problem(item, max_length=max_text, chars=chars)
            if problem:
                return f"{path}: {problem}"
        elif isinstance(item, dict | list):
            if depth >= max_depth:
                return f"{path}: nested deeper than {max_depth} levels"
            if isinstance(item, dict):
                for key, inner in item.items():
                    problem = text_problem(str(key), max_length=max_text, chars=chars)
                    if problem:
                        return f"{path}: a key: {problem}"
                    stack.append((inner, f"{path}.{key}", depth + 1))
            else:
                stack.extend((inner, f"{path}[{i}]", depth + 1) for i, inner in enumerate(item))
    return None


def _escape_char(found: re.Match[str]) -> str:
    code = ord(found.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape_text(value: str, max_length: int | None = None) -> str:
    """`value` with every unsafe character written as a printable escape (`\\u0007`,
    `\\ud800`), cut to `max_length` characters (ending in `...`) when given."""
    text = _UNSAFE.sub(_escape_char, value)
    if max_length is not None and len(text) > max_length:
        text = text[: max(0, max_length - len(ELLIPSIS))] + ELLIPSIS
    return text


def storable(value: Any) -> Any:
    """`value` with every lone surrogate escaped (in keys and strings, at any depth),
    so that UTF-8 can hold it; `value` itself when it has none. Only what UTF-8 cannot
    write is changed: other text is stored as it came (JSON escapes its controls)."""
    if isinstance(value, str):
        if value.isascii():  # no surrogate: a flag CPython keeps on the string
            return value
        return _SURROGATE.sub(_escape_char, value) if _SURROGATE.search(value) else value
    if isinstance(value, dict):
        return {storable(k): storable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [storable(v) for v in value]
    return value


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not a JSON number")


def parse_json(raw: bytes, *, max_bytes: int) -> Any:
    """A JSON document from outside: UTF-8, at most `max_bytes`, no NaN or Infinity.
    ValueError (never anything else) says why not."""
    if len(raw) > max_bytes:
        raise ValueError(f"at most {max_bytes} bytes expected, found {len(raw)}")
    try:
        return json.loads(raw.decode("utf-8"), parse_constant=_reject_constant)
    except RecursionError as exc:
        raise ValueError("JSON nested too deeply") from exc


def read_json(text: object) -> Any:
    """A JSON document read back from a file (a journal's row, an archive's, a bundle's
    line), as `json.loads` gives it; a document nested too deeply for the parser, or
    what is no text at all (a row's NULL or number), is a ValueError like any other
    text that is not JSON, never a RecursionError or a TypeError, so a damaged file is
    one named error wherever it is read."""
    if not isinstance(text, str | bytes | bytearray):
        raise ValueError(f"JSON text expected, found {type(text).__name__}")
    try:
        return json.loads(text)
    except RecursionError as exc:
        raise ValueError("JSON nested too deeply") from exc


def escaped(value: Any) -> Any:
    """`value` with every unsafe character escaped (`escape_text`) in its keys and
    strings, at any depth json_problem allowed; `value` itself when it has none."""
    if isinstance(value, str):
        return escape_text(value) if _UNSAFE.search(value) else value
    if isinstance(value, dict):
        return {escaped(k): escaped(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [escaped(v) for v in value]
    return value
