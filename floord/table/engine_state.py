"""A table's engine and watcher: the live ones, and a copy of them as last committed.

The engine acts only on inputs the journal holds. The runner feeds the live engine; its
recorder keeps the live state as the committed one once a turn is on the record
(`keep`), and puts the committed one back when the journal refuses a turn (`roll_back`):
an input the journal refused leaves no trace in the engine (no round started that the
record does not show). While a commit is under way `P/state` shows the committed copy.
"""

from __future__ import annotations

from typing import Any

from floord.engine.core.copies import deep_copy
from floord.table.surveillance import AlertKeeper
from floord.table.vocabulary import TableEngine

Pair = tuple[TableEngine, AlertKeeper | None]


class EngineState:
    def __init__(self, engine: TableEngine, surveillance: AlertKeeper | None) -> None:
        self.engine = engine
        self.surveillance = surveillance
        self.committed: Pair = self.copy()
        # The watcher last copied into `committed`, its `changes` count then, and that copy.
        self._kept_watcher: tuple[AlertKeeper, int, AlertKeeper] | None = None

    def copy(self) -> Pair:
        """A copy of the engine and the watcher, so `deep_copy`: what `copy.deepcopy`
        gives, at about half its cost (`floord.engine.core.copies`)."""
        return deep_copy((self.engine, self.surveillance))

    def put_back(self, before: Pair) -> None:
        """The live state as it was `before` an input (a copy taken then)."""
        self.engine, self.surveillance = before

    def snapshot(self) -> dict[str, Any]:
        """What restores the table: the engine's snapshot, and the open alerts."""
        snap = self.engine.snapshot()
        if self.surveillance is not None:
            snap = {**snap, "surveillance": self.surveillance.snapshot()}
        return snap

    def keep(self) -> None:
        """Keep the live state as the committed one: the engine copied; the watcher copied
        only if it changed since the copy kept last (its `changes` count), else that copy
        kept again. Most inputs feed the watcher nothing (a result comes once a spin, a
        roll once a throw), and the kept copy is never changed (a roll-back takes a copy
        of it), so keeping it again is as good as a new copy; the watcher's copy is more
        than half of a full copy's cost (`bench/state_copy.py`)."""
        kept, watcher = self._kept_watcher, self.surveillance
        if kept is not None and kept[0] is watcher and kept[1] == kept[0].changes:
            self.committed = (deep_copy(self.engine), kept[2])
            return
        self.committed = self.copy()
        copied = self.committed[1]
        if watcher is None or copied is None:
            self._kept_watcher = None
        else:
            self._kept_watcher = (watcher, watcher.changes, copied)

    def roll_back(self) -> None:
        """Put the committed state back: the engine forgets what the journal refused."""
        self.engine, self.surveillance = deep_copy(self.committed)
