"""Live wheel-integrity surveillance of a wheel table: alerts kept until acknowledged.

The statistics (`floord/analytics/`) are not regulations, so they live beside the game
engine, not in it: the table's runner hands this watcher every result the engine
decides, and records the alerts it raises as `surveillance.alert` events in the same
transaction. An alert stays in the table's retained state until a supervisor or a member
of security acknowledges it (`ack_alert`), and survives a restart through the snapshot.
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from floord.analytics.dealer_signature import DealerSignature
from floord.analytics.report import WheelResult, WheelSetup
from floord.analytics.stream_events import EventError
from floord.analytics.wheel_physics import WheelPhysics, spin_record
from floord.analytics.wheel_watch import BIG_SIX, WheelWatch
from floord.contract import EventType
from floord.engine.core.snapshots import SnapshotError
from floord.engine.core.types import Decision
from floord.table.result_alerts import held_results

POLICY = "surveillance analytics (floord, not a regulation): a statistical flag to review"
# The form of `TableSurveillance.watch_state`; a state of another form is not taken.
WATCH_STATE_VERSION = 1


def setup_digest(setup: object) -> str:
    """A fingerprint of the tests' settings (the wheel, windows, levels, bins, bands): a
    state kept under others does not fit them."""
    return hashlib.sha256(repr(setup).encode()).hexdigest()[:32]


def kept_state(settings: object, **parts: Any) -> dict[str, Any]:
    """A watcher's `watch_state()`: its tests' `parts`, with the form's version and a
    fingerprint of the `settings` they were kept under."""
    return {"v": WATCH_STATE_VERSION, "setup": setup_digest(settings), **parts}


def kept_parts(state: Any, settings: object, what: str = "surveillance settings") -> Any:
    """A saved `kept_state` whose version and settings are this watcher's (its parts are
    for the watcher to load); ValueError naming which is not."""
    if not isinstance(state, dict) or state.get("v") != WATCH_STATE_VERSION:
        raise ValueError("saved by another version of the live tests")
    if state.get("setup") != setup_digest(settings):
        raise ValueError(f"saved under other {what}")
    return state


class AlertKeeper(ABC):
    """A table's open surveillance alerts, numbered, kept until acknowledged; what the
    runner asks of a watcher (a wheel's below, a table's dice in `dice_surveillance`)."""

    def __init__(self, saved: dict[str, Any] | None = None) -> None:
        self.alerts, self.raised = saved_alerts(saved)
        # Counted up by whatever changes the watcher (a result or a roll fed to its tests,
        # an alert raised or closed), so the runner keeps its copy of an unchanged watcher
        # as the committed one instead of copying it again (`floord.table.engine_state`).
        self.changes = 0

    @abstractmethod
    def on_decisions(self, decisions: list[Decision]) -> list[Decision]:
        """The alerts the engine's decisions raise, as decisions to record with them."""

    def alerts_on(self, decisions: list[Decision]) -> list[Decision]:
        """Every alert the decisions raise: the watcher's tests', and one for each result
        held for a floorperson's ruling (`floord.table.result_alerts`)."""
        held = [self._raise(alert, d.round) for d, alert in held_results(decisions)]
        return [*self.on_decisions(decisions), *held]

    def on_device(self, decision: Decision) -> list[Decision]:
        """The alerts a device's own event raises (recorded as `decision`), before the
        engine's decisions on it: what a watcher tests that is no engine decision (a
        shoe's read order, `floord.table.shuffle_surveillance`); none by default."""
        return []

    def _raise(self, alert: dict[str, Any], round_id: str | None) -> Decision:
        """Number and keep one alert; the decision that records it."""
        self.changes += 1
        self.raised += 1
        body = {"id": f"A{self.raised:05d}", **alert, "policy": POLICY}
        self.alerts.append(body)
        return Decision(EventType.SURVEILLANCE_ALERT, body, None, round_id)

    def acknowledge(self, alert_id: Any, by: str, note: str) -> Decision | None:
        """Close an open alert; None when there is no such open alert."""
        for alert in self.alerts:
            if alert["id"] == alert_id:
                self.changes += 1
                self.alerts.remove(alert)
                body = {"id": alert_id, "by": by, "note": note, "alert": alert}
                return Decision(EventType.SURVEILLANCE_ALERT_ACKNOWLEDGED, body, None, None)
        return None

    def snapshot(self) -> dict[str, Any]:
        return {"alerts": [dict(a) for a in self.alerts], "raised": self.raised}


def saved_alerts(saved: Any) -> tuple[list[dict[str, Any]], int]:
    """The open alerts and the count raised that a snapshot's `surveillance` holds (none:
    a table that never had any); a `SnapshotError` when it holds something else (an
    edited state), so the start refuses it in one line, as any state that does not fit."""
    if saved is None:
        return [], 0
    if not isinstance(saved, dict):
        raise SnapshotError("snapshot: surveillance must be an object of alerts and raised")
    alerts, raised = saved.get("alerts") or [], saved.get("raised") or 0
    if not isinstance(alerts, list) or not all(isinstance(a, dict) for a in alerts):
        raise SnapshotError("snapshot: surveillance.alerts must be a list of objects")
    if not isinstance(raised, int) or isinstance(raised, bool) or not 0 <= raised < 10**9:
        raise SnapshotError(f"snapshot: surveillance.raised must be a count, found {raised!r}")
    return [dict(a) for a in alerts], raised


class ResultAlerts(AlertKeeper):
    """The open alerts of a table with a second source and no live tests: only held
    results raise them."""

    def on_decisions(self, decisions: list[Decision]) -> list[Decision]:
        return []


class TableSurveillance(AlertKeeper):
    """One wheel's running tests and its open alerts."""

    def __init__(self, setup: WheelSetup, saved: dict[str, Any] | None = None) -> None:
        super().__init__(saved)
        self.setup = setup
        self.watch = WheelWatch(
            setup.kind,
            setup.order,
            setup.window,
            setup.level,
            setup.sectors,
            section_counts=setup.section_counts,
        )
        # A dealer who can aim shows in the distance from release to result; only a wheel
        # whose sensor reports the release pocket feeds it (`docs/analytics.md`).
        self.dealers: DealerSignature | None = None
        if setup.kind != BIG_SIX and setup.dealer_bins:
            self.dealers = DealerSignature(
                setup.kind, setup.order, setup.dealer_window, setup.level, setup.dealer_bins
            )

        # Pace and spin physics (`floord.analytics.wheel_physics`), when the table sets them.
        self.physics = WheelPhysics(setup.kind, setup.order, setup.level, setup.pace, setup.spin)

    def warm_up(self, history: Iterable[WheelResult], *, every: bool = False) -> int:
        """Replay the journal's results, oldest first, so every window is full again
        after a restart; alerts those would raise were already recorded the first time
        round. The results are read one at a time and only the pocket and sector tests'
        window of them is held: a table's record of months is not held whole. With
        `every`, the pocket and sector tests take every result too: the results since
        a saved state (`resume`), which go on from where it was. The results replayed."""
        self.changes += 1
        last: deque[WheelResult] = deque(maxlen=None if every else self.setup.window)
        replayed = 0
        for past in history:
            replayed += 1
            with _named(past):
                if every:
                    self.watch.add(past.result, position=past.position)
                else:
                    last.append(past)
                if self.dealers is not None and past.dealer and past.release:
                    self.dealers.add(past.dealer, past.release, past.result)
                if past.spin is not None:
                    self.physics.add(past.spin)
        for past in last:
            with _named(past):
                self.watch.add(past.result, position=past.position)
        return replayed

    def watch_state(self) -> dict[str, Any]:
        """Every test's window and alarm, for a start to go on from
        (`floord.table.watch_state`), with the settings they were kept under."""
        return kept_state(
            self.setup,
            watch=self.watch.state(),
            dealers=None if self.dealers is None else self.dealers.state(),
            physics=self.physics.state(),
        )

    def resume(self, state: Any) -> None:
        """Go on from a saved `watch_state()`. ValueError when it was kept under other
        settings (the table's surveillance config changed since) or does not fit: the
        tests may then be half loaded, so the caller builds the watcher again."""
        state = kept_parts(state, self.setup)
        if (state.get("dealers") is None) != (self.dealers is None):
            raise ValueError("saved with the dealer signature test on where it is off, or off")
        self.changes += 1
        self.watch.load(state.get("watch"))
        if self.dealers is not None:
            self.dealers.load(state.get("dealers"))
        self.physics.load(state.get("physics"))

    def on_decisions(self, decisions: list[Decision]) -> list[Decision]:
        raised: list[Decision] = []
        for decision in decisions:
            if decision.type == EventType.ROULETTE_RESULT:
                self.changes += 1
                result, position = str(decision.data.get("number")), None
                found = self._dealer_alerts(decision.data, result)
                found += self.physics.add(spin_record(decision.data, ""))
            elif decision.type == EventType.BIGSIX_RESULT:
                self.changes += 1
                result, position = str(decision.data.get("symbol")), decision.data.get("section")
                found = []
            else:
                continue
            for alert in [*self.watch.add(result, position=position), *found]:
                raised.append(self._raise(alert, decision.round))
        return raised

    def _dealer_alerts(self, data: dict[str, Any], result: str) -> list[dict[str, Any]]:
        dealer, release = data.get("dealer"), data.get("release_pocket")
        if self.dealers is None or not isinstance(dealer, str) or not isinstance(release, str):
            return []
        return self.dealers.add(dealer, release, result)


@contextmanager
def _named(past: WheelResult) -> Iterator[None]:
    """A recorded result the tests refuse (no pocket of this wheel: the record was not
    written by this table's engine) named by its seq, for the table's start check."""
    try:
        yield
    except (ValueError, TypeError) as exc:
        raise EventError(f"result seq {past.seq}: {exc}", past.seq) from exc
