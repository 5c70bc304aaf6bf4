"""Live shuffle-quality surveillance of a table dealt from a card-recognition shoe.

Unlike a wheel's result or a roll, the order of the cards is not an engine decision:
the shoe reports it (`shoe.loaded`, `shoe.card_drawn` with the card, `shoe.empty`), so
the table's runner hands this watcher each device event before the engine's decisions
on it (`on_device`), and records what it raises as `surveillance.alert` decisions in
the same transaction. Only the events of the table's reading shoes count. Open alerts
stay in the retained state until `ack_alert` and survive a restart through the
snapshot; the shoes go on from where they were kept (`watch_state`), the journal's shoe
events after it replayed on start (`warm_up`; all of them when nothing was kept), so the
shoe being dealt goes on being compared with the shoes before it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from floord.analytics.shuffle_state import load_shuffle, shuffle_state
from floord.analytics.shuffle_watch import ShuffleSetup, ShuffleWatch
from floord.contract import EventType
from floord.engine.core.types import Decision
from floord.table.surveillance import AlertKeeper, kept_parts, kept_state

SHOE_EVENTS = frozenset({EventType.SHOE_LOADED, EventType.SHOE_CARD_DRAWN, EventType.SHOE_EMPTY})


class ShuffleSurveillance(AlertKeeper):
    """One table's shuffle tests and its open alerts (the wheel's alert bookkeeping)."""

    def __init__(
        self, setup: ShuffleSetup, shoes: Iterable[str], saved: dict[str, Any] | None = None
    ) -> None:
        super().__init__(saved)
        self.shoes = frozenset(shoes)
        self.watch = ShuffleWatch(setup)

    def warm_up(self, events: Iterable[tuple[str | None, str, dict[str, Any]]]) -> int:
        """Replay the journal's shoe events (source, type, data) so the watch holds the
        shoes it held; the alerts they raise were recorded the first time round. The
        events replayed."""
        self.changes += 1
        replayed = 0
        for source, etype, data in events:
            replayed += 1
            if source in self.shoes:
                self.watch.on_event(etype, data)
        return replayed

    def watch_state(self) -> dict[str, Any]:
        """The shoes, for a start to go on from (`floord.table.watch_state`), with the
        settings and reading shoes they were kept under."""
        return kept_state(self._settings(), shuffle=shuffle_state(self.watch))

    def resume(self, state: Any) -> None:
        """Go on from a saved `watch_state()`; ValueError when it was kept under other
        settings or does not fit (nothing is changed then)."""
        saved = kept_parts(state, self._settings(), "shuffle settings or shoes")
        load_shuffle(self.watch, saved.get("shuffle"))
        self.changes += 1

    def _settings(self) -> tuple[Any, list[str]]:
        """What the shoes were kept under: the table's settings and its reading shoes."""
        return self.watch.setup, sorted(self.shoes)

    def on_device(self, decision: Decision) -> list[Decision]:
        if decision.source not in self.shoes or decision.type not in SHOE_EVENTS:
            return []
        self.changes += 1
        return [
            self._raise(alert, decision.round)
            for alert in self.watch.on_event(str(decision.type), decision.data)
        ]

    def on_decisions(self, decisions: list[Decision]) -> list[Decision]:
        return []
