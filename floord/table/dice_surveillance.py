"""Live dice-integrity surveillance of a Craps or Mini-Craps table.

As for a wheel (`floord.table.surveillance`): the table's runner hands this watcher every
decision the engine makes; it follows the dice set in play (`craps.dice` set), counts
each roll called (`craps.roll`) in `DiceWatch`, and returns what it raises as
`surveillance.alert` decisions recorded in the same transaction. Open alerts stay in the
retained state until `ack_alert` and survive a restart through the snapshot; the windows
go on from where they were kept (`watch_state`), the rolls after it replayed from the
journal on start (all of them when nothing was kept).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from floord.analytics.dice_report import DiceRoll, DiceSetup
from floord.analytics.dice_watch import DiceWatch
from floord.analytics.stream_events import EventError
from floord.contract import EventType
from floord.engine.core.types import Decision
from floord.table.surveillance import AlertKeeper, kept_parts, kept_state


class DiceSurveillance(AlertKeeper):
    """One table's dice tests and its open alerts (the wheel's alert bookkeeping)."""

    def __init__(self, setup: DiceSetup, saved: dict[str, Any] | None = None) -> None:
        super().__init__(saved)
        self.setup = setup
        self.dice = DiceWatch(setup.window, setup.level, setup.shooter_window, setup.shooter_bins)

    def warm_up_rolls(self, history: Iterable[DiceRoll]) -> int:
        """Replay the journal's rolls so every window is as it was before the restart;
        the alerts they raise were recorded the first time round. The rolls replayed."""
        self.changes += 1
        replayed = 0
        for past in history:
            replayed += 1
            try:
                self.dice.set_dice(past.dice_set)
                self.dice.add(past.faces, past.dice, past.shooter)
            except (ValueError, TypeError) as exc:
                raise EventError(f"roll seq {past.seq}: {exc}", past.seq) from exc
        return replayed

    def watch_state(self) -> dict[str, Any]:
        """Every test's window and alarm, for a start to go on from
        (`floord.table.watch_state`), with the settings they were kept under."""
        return kept_state(self.setup, dice=self.dice.state())

    def resume(self, state: Any) -> None:
        """Go on from a saved `watch_state()`; ValueError when it was kept under other
        settings or does not fit (nothing is changed then)."""
        self.dice.load(kept_parts(state, self.setup).get("dice"))
        self.changes += 1

    def dice_at_table(self) -> tuple[str, ...]:
        """The ids of the dice set in play, as the journal's rolls carry them."""
        return tuple(self.dice.dice_set.split(",")) if self.dice.dice_set else ()

    def on_decisions(self, decisions: list[Decision]) -> list[Decision]:
        raised: list[Decision] = []
        for decision in decisions:
            data = decision.data
            if decision.type == EventType.CRAPS_DICE and data.get("action") == "set":
                self.changes += 1
                self.dice.set_dice([d for d in data.get("dice") or [] if isinstance(d, str)])
            elif decision.type == EventType.CRAPS_ROLL:
                self.changes += 1
                d1, d2 = (int(f) for f in data["faces"])
                dice = [d if isinstance(d, str) else None for d in data.get("dice") or []]
                shooter = data.get("shooter")
                seat = shooter if isinstance(shooter, int) else None
                for alert in self.dice.add((d1, d2), dice, seat):
                    raised.append(self._raise(alert, decision.round))
        return raised
