"""What every engine's snapshot shares: its header check and a safe copy.

A snapshot restores a table after a restart, so a snapshot of another table, another
game (or wheel) or another version must never be taken for this one: restoring the
wrong state would be worse than starting closed.
"""

from __future__ import annotations

from typing import Any


class SnapshotError(ValueError):
    """A snapshot that cannot restore this table; the message says why."""


def check_header(snap: Any, version: int, identity: dict[str, str]) -> dict[str, Any]:
    """Refuse a snapshot that is not an object, not this version, or not this table.

    `identity` names what must match, e.g. `{"table": "BJ-01", "game": "blackjack"}`.
    """
    if not isinstance(snap, dict):
        raise SnapshotError(f"a snapshot must be an object, found {type(snap).__name__}")
    if snap.get("version") != version:
        raise SnapshotError(f"snapshot version {version} expected, found {snap.get('version')!r}")
    for key, mine in identity.items():
        if snap.get(key) != mine:
            raise SnapshotError(
                f"the snapshot is for {key} {snap.get(key)!r}, this engine is for {mine!r}"
            )
    return snap


def json_copy(value: Any) -> Any:
    """A deep copy of JSON data, so the engine's state and a snapshot never share lists."""
    if isinstance(value, dict):
        return {k: json_copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_copy(v) for v in value]
    return value
