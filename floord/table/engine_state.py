"""A table's engine and watcher: the live ones, and the state last committed.

The engine acts only on inputs the journal holds. The runner feeds the live engine; its
recorder keeps the turn's snapshot as the committed state once the turn is on the
record (`keep`), and puts the committed state back when the journal refuses a turn
(`roll_back`): an input the journal refused leaves no trace in the engine (no round
started that the record does not show). `P/state` is built from the committed snapshot
(`floord.table.recorder`), so nothing shows there before it is durable.

The engine is put back as a restart restores it: a copy of the engine as it was built,
restored from the committed snapshot (`TableEngineBase.restore`; every game's engine
restores from its snapshot exactly what it decides by: tests/test_restored_engines.py).
A refusal is rare (the table halts), so a commit keeps no copy of the engine, only the
snapshot it built for the journal anyway. The watcher's windows of past results are not
in the snapshot (a restart reads them from the journal, which may be what failed), so
the watcher is still copied, and only when it changed since the copy kept last.
"""

from __future__ import annotations

from typing import Any

from floord.engine.core.copies import deep_copy
from floord.engine.core.snapshots import json_copy
from floord.engine.core.types import EngineOutput
from floord.table.surveillance import AlertKeeper
from floord.table.vocabulary import TableEngine

Pair = tuple[TableEngine, AlertKeeper | None]


class EngineState:
    def __init__(self, engine: TableEngine, surveillance: AlertKeeper | None) -> None:
        self.engine = engine
        self.surveillance = surveillance
        # The engine as built: what a roll-back restores the committed snapshot into.
        self._built = deep_copy(engine)
        # The snapshot last committed (or the one the table was built from), never
        # changed once kept: the engine's snapshot is a fresh body every time.
        self.committed: dict[str, Any] = self.snapshot()
        # The watcher as last committed: the live one, its `changes` count then, and a
        # copy of it taken then (None: no watcher).
        self._watcher: tuple[AlertKeeper, int, AlertKeeper] | None = None
        self._keep_watcher()

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

    def watch(self, output: EngineOutput) -> None:
        """The watcher's alerts on what the engine decided, added to be recorded with it."""
        if self.surveillance is not None:
            output.events.extend(self.surveillance.alerts_on(output.events))

    def public(self) -> dict[str, Any]:
        """What the retained `P/state` shows of the committed state: the engine's
        public view of it, and the watcher's open alerts. A new dict (the committed
        snapshot is shared, and never changed)."""
        snap = self.committed
        watcher = snap.get("surveillance")
        if watcher is None:
            return dict(self.engine.public_of(snap))
        public = dict(self.engine.public_of(_engine_part(snap)))
        public["alerts"] = watcher["alerts"]
        return public

    def keep(self, snapshot: dict[str, Any] | None = None) -> None:
        """Keep the live state as the committed one: `snapshot` (the one the turn just
        committed took of it; None: taken now), and the watcher."""
        self.committed = snapshot if snapshot is not None else self.snapshot()
        self._keep_watcher()

    @property
    def committed_watcher(self) -> AlertKeeper | None:
        """The copy of the watcher as last committed (never changed; None: no watcher)."""
        return self._watcher[2] if self._watcher is not None else None

    def restored(self) -> TableEngine:
        """A new engine, as a restart would restore the committed snapshot."""
        engine = deep_copy(self._built)
        engine.restore(json_copy(_engine_part(self.committed)))
        return engine

    def roll_back(self) -> None:
        """Put the committed state back: the engine forgets what the journal refused."""
        self.engine = self.restored()
        kept = self.committed_watcher
        if kept is not None:
            self.surveillance = deep_copy(kept)

    def _keep_watcher(self) -> None:
        """The watcher copied, only if it changed since the copy kept last (its `changes`
        count): most inputs feed it nothing (a result comes once a spin, a roll once a
        throw), and the kept copy is never changed (a roll-back takes a copy of it)."""
        kept, watcher = self._watcher, self.surveillance
        if watcher is None:
            self._watcher = None
        elif kept is None or kept[0] is not watcher or kept[1] != watcher.changes:
            self._watcher = (watcher, watcher.changes, deep_copy(watcher))


def _engine_part(snapshot: dict[str, Any]) -> dict[str, Any]:
    """The engine's own snapshot: the table's without the watcher's part."""
    return {k: v for k, v in snapshot.items() if k != "surveillance"}
