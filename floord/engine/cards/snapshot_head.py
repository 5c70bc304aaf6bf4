"""The head of a card game's snapshot checked before anything in it is restored.

Poker, War and the carnival games each restore only a snapshot of their own version,
table and game: one taken of another table, or of another game at this table, is refused
before a single field of it replaces the engine's state. Pure.
"""

from __future__ import annotations

from typing import Any

from floord.engine.core.snapshots import SnapshotError


def check_snapshot_head(snap: Any, version: int, table_id: str, game: str) -> None:
    """Raise `SnapshotError` unless `snap` is a version `version` object of this table and game."""
    if not isinstance(snap, dict) or snap.get("version") != version:
        raise SnapshotError(f"a version {version} snapshot object expected")
    for key, mine in (("table", table_id), ("game", game)):
        if snap.get(key) != mine:
            raise SnapshotError(f"the snapshot is for {key} {snap.get(key)!r}, not {mine!r}")
