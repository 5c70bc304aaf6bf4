"""Every text of a config, before any field reads it: no control characters (a NUL in a
path stops `open` with a ValueError, an escape sequence would write itself into the
logs), no lone surrogates, nothing overlong. Each problem names its key, as every other
config check does (`FILE: KEY.PATH: expected, found`).
"""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import Any

MAX_TEXT = 4096  # the longest path Linux takes; no config text needs more
ALLOWED_CONTROLS = frozenset("\t\n")


def _text_problem(text: str) -> str | None:
    if len(text) > MAX_TEXT:
        return f"text of at most {MAX_TEXT} characters expected, found {len(text)} characters"
    for ch in text:
        if ch in ALLOWED_CONTROLS:
            continue
        if unicodedata.category(ch) in ("Cc", "Cs"):
            kind = "a lone surrogate" if unicodedata.category(ch) == "Cs" else "a control character"
            return f"text without control characters expected, found {kind} in {text[:80]!r}"
    return None


def text_problems(path: Path, raw: Any) -> list[str]:
    """Walk the parsed YAML (iteratively, each container once: YAML aliases may repeat
    or even contain themselves) and name every key or value that is bad text."""
    problems: list[str] = []
    seen: set[int] = set()
    stack: list[tuple[str, Any]] = [("", raw)]
    while stack:
        key, node = stack.pop()
        if isinstance(node, dict | list):
            if id(node) in seen:
                continue
            seen.add(id(node))
            items = node.items() if isinstance(node, dict) else enumerate(node)
            for name, value in items:
                where = f"{key}.{name}" if key else str(name)
                if isinstance(name, str) and (problem := _text_problem(name)):
                    problems.append(f"{path}: {key or '(top)'}: {problem}")
                    continue
                stack.append((where, value))
        elif isinstance(node, str) and (problem := _text_problem(node)):
            problems.append(f"{path}: {key or '(top)'}: {problem}")
    return sorted(problems)
