"""Live dice-integrity surveillance of a Craps or Mini-Craps table.

As for a wheel (`floord.table.surveillance`): the table's runner hands this watcher every
decision the engine makes; it follows the dice set in play (`craps.dice` set), counts
each roll called (`craps.roll`) in `DiceWatch`, and returns what it raises as
`surveillance.alert` decisions recorded in the same transaction. Open alerts stay in the
retained state until `ack_alert` and survive a restart through the snapshot; the windows
are refilled from the journal's rolls on start.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from floord.analytics.dice_report import DiceRoll, DiceSetup
from floord.analytics.dice_watch import DiceWatch
from floord.analytics.stream_events import EventError
from floord.contract import EventType
from floord.engine.core.types import Decision
from floord.table.surveillance import AlertKeeper


class DiceSurveillance(AlertKeeper):
    """One table's dice tests and its open alerts (the wheel's alert bookkeeping)."""

    def __init__(self, setup: DiceSetup, saved: dict[str, Any] | None = None) -> None:
        super().__init__(saved)
        self.setup = setup
        self.dice = DiceWatch(setup.window, setup.level, setup.shooter_window, setup.shooter_bins)

    def warm_up_rolls(self, history: Iterable[DiceRoll]) -> None:
        """Replay the journal's rolls so every window is as it was before the restart;
        the alerts they raise were recorded the first time round."""
        self.changes += 1
        for past in history:
            try:
                self.dice.set_dice(past.dice_set)
                self.dice.add(past.faces, past.dice, past.shooter)
            except (ValueError, TypeError) as exc:
                raise EventError(f"roll seq {past.seq}: {exc}", past.seq) from exc

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
