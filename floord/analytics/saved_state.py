"""Reading back the state a live test saved (`state()` / `load()` of each test).

A table's live wheel tests keep their windows on the journal beside the record
(`floord.table.watch_state`), so a restart goes on from them instead of replaying every
result. What is read back came from a file, so each test's `load` checks every field
with these and raises ValueError, changing nothing, when one does not fit: the caller
then replays the record as if nothing was saved.
"""

from __future__ import annotations

from typing import Any


def field(state: Any, key: str, kind: type) -> Any:
    """`state[key]`, which must be a `kind` (a bool is not an int); ValueError if not."""
    value = state.get(key) if isinstance(state, dict) else None
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        raise ValueError(f"a saved test state needs {key} ({kind.__name__})")
    return value


def optional(state: Any, key: str, kind: type) -> Any:
    """`state[key]` when it is there and not null (then a `kind`), else None."""
    if isinstance(state, dict) and state.get(key) is not None:
        return field(state, key, kind)
    return None


def numbers(values: list[Any], what: str) -> list[float]:
    """`values`, each a finite number (a float, as the test keeps it)."""
    if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
        raise ValueError(f"a saved {what} holds something that is not a number")
    out = [float(v) for v in values]
    if any(v != v or v in (float("inf"), float("-inf")) for v in out):
        raise ValueError(f"a saved {what} holds a number that is not finite")
    return out
