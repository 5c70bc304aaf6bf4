"""What every engine's snapshot shares: its header check, a safe copy, and a book's
named fields written and read back.

A snapshot restores a table after a restart, so a snapshot of another table, another
game (or wheel) or another version must never be taken for this one: restoring the
wrong state would be worse than starting closed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
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


def snapshot_fields(owner: object, names: Iterable[str]) -> dict[str, Any]:
    """A book's snapshot: each of `owner`'s attributes `names`, a copy, in that order."""
    return {name: json_copy(getattr(owner, name)) for name in names}


def restore_fields(owner: object, names: Iterable[str], body: Mapping[str, Any]) -> None:
    """Each of `names` that `body` holds set on `owner`, a copy; one it lacks (a snapshot
    written before the field was recorded) keeps the value `owner` was made with."""
    for name in names:
        if name in body:
            setattr(owner, name, json_copy(body[name]))
