"""The floor report's figures, from the tables' events.

Each table is followed event by event in its stream's order (`Timeline` for the clock);
what happened in the period, [since, until), is counted. A table's state at `since`
needs its events before it, so a source reads each table from its start (of the types
in `TYPES` only) up to `until`. The definitions are in docs/reports.md.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from floord.analytics.floor_report.rows import deck_row, log_row, subject
from floord.analytics.floor_report.timeline import NO_DEALER, Timeline
from floord.contract import EventType, parse_ts

E = EventType
INSPECTION_LOG = (
    E.OPERATOR_INSPECTION.value,
    E.ROULETTE_WHEEL_SERVICE.value,
    E.ROULETTE_BALL_REPLACED.value,
)
DECKS = (
    E.CARDS_DECKS_RECEIVED.value,
    E.CARDS_DECKS_CHANGED.value,
    E.CARDS_DECKS_INSPECTED.value,
    E.CARDS_DECKS_SPREAD.value,
    E.CARDS_DECK_REMOVED.value,
)
CLOCK = (
    E.TABLE_OPENED.value,
    E.TABLE_CLOSED.value,
    E.TABLE_HALTED.value,
    E.TABLE_RESUMED.value,
    E.DAEMON_STARTED.value,
    E.DAEMON_STOPPED.value,
)
# Every type the report reads: a source may leave the others out.
TYPES = (
    *CLOCK,
    E.ROUND_STARTED.value,
    E.ROUND_ENDED.value,
    E.ROUND_VOIDED.value,
    E.OPERATOR_COMMAND.value,
    E.OPERATOR_COMMAND_REFUSED.value,
    E.SURVEILLANCE_ALERT.value,
    E.SURVEILLANCE_ALERT_ACKNOWLEDGED.value,
    E.PROCEDURE_VIOLATION.value,
    *INSPECTION_LOG,
    *DECKS,
)


def _game(data: dict[str, Any]) -> str | None:
    """The game a `round.started` is of: a card table names it; the wheels and the dice
    are told by their keys (docs/contract.md, `round.started`)."""
    if isinstance(data.get("game"), str):
        return str(data["game"])
    if "wheel" in data:
        return "roulette"
    if "called_by" in data:
        return "big_six"
    if "throw" in data and "shooter" in data:
        return "craps"
    return None


@dataclass
class TableTally:
    """What one table did in the period."""

    site: str
    table: str
    clock: Timeline
    game: str | None = None
    rounds: int = 0
    voided: int = 0
    started: int = 0
    round_dealer: dict[str, str | None] = field(default_factory=dict)
    dealer_rounds: Counter[str] = field(default_factory=Counter)
    halts: Counter[str] = field(default_factory=Counter)
    violations: Counter[tuple[str, str | None]] = field(default_factory=Counter)
    refused: Counter[tuple[str, str, str | None]] = field(default_factory=Counter)


@dataclass
class FloorTally:
    """The whole floor: its tables, and the period's alerts, log rows and deck rows."""

    since: datetime | None
    until: datetime | None
    tables: dict[tuple[str, str], TableTally] = field(default_factory=dict)
    alerts: dict[tuple[str, str, str], dict[str, Any]] = field(default_factory=dict)
    inspections: list[dict[str, Any]] = field(default_factory=list)
    decks: list[dict[str, Any]] = field(default_factory=list)
    events: int = 0

    def inside(self, when: datetime) -> bool:
        return (self.since is None or when >= self.since) and (
            self.until is None or when < self.until
        )

    def table(self, site: str, table: str) -> TableTally:
        key = (site, table)
        if key not in self.tables:
            self.tables[key] = TableTally(site, table, Timeline(self.since, self.until))
        return self.tables[key]

    def add(self, event: dict[str, Any]) -> None:
        """One envelope of a table's own stream (device streams say nothing counted here)."""
        kind = event.get("type")
        if kind not in TYPES:
            return
        now = parse_ts(str(event["ts"]))
        if self.until is not None and now >= self.until:
            return
        tally = self.table(str(event["site"]), str(event["table"]))
        data = event.get("data") or {}
        tally.clock.advance(now)
        if kind in CLOCK:
            tally.clock.apply(str(kind), data, now)
        if kind == E.OPERATOR_COMMAND and data.get("name") == "dealer_in":
            tally.clock.dealer = str(data.get("by"))
        elif kind == E.ROUND_STARTED:
            tally.game = _game(data) or tally.game
            tally.round_dealer[str(event.get("round"))] = tally.clock.dealer
        if not self.inside(now):
            return
        self.events += 1
        self._count(tally, str(kind), event, data, now)

    def _count(
        self,
        tally: TableTally,
        kind: str,
        event: dict[str, Any],
        data: dict[str, Any],
        now: datetime,
    ) -> None:
        where = {"site": tally.site, "table": tally.table, "ts": event["ts"]}
        if kind == E.ROUND_STARTED:
            tally.started += 1
        elif kind == E.ROUND_ENDED:
            tally.rounds += 1
            round_id = str(event.get("round"))
            dealer = tally.round_dealer.pop(round_id, tally.clock.dealer)
            tally.dealer_rounds[dealer or NO_DEALER] += 1
        elif kind == E.ROUND_VOIDED:
            tally.voided += 1
        elif kind == E.TABLE_HALTED:
            tally.halts[str(data.get("code"))] += 1
        elif kind == E.PROCEDURE_VIOLATION:
            tally.violations[(str(data.get("what")), event.get("rule"))] += 1
        elif kind == E.OPERATOR_COMMAND_REFUSED:
            tally.refused[(str(data.get("code")), str(data.get("name")), event.get("rule"))] += 1
        elif kind == E.SURVEILLANCE_ALERT:
            self.alerts[(tally.site, tally.table, str(data.get("id")))] = {
                **where,
                "id": data.get("id"),
                "test": data.get("test"),
                "p_value": data.get("p_value"),
                "level": data.get("level"),
                "subject": subject(data),
                "acknowledged_by": None,
                "acknowledged_at": None,
                "minutes_to_ack": None,
                "note": None,
            }
        elif kind == E.SURVEILLANCE_ALERT_ACKNOWLEDGED:
            alert = self.alerts.get((tally.site, tally.table, str(data.get("id"))))
            if alert is not None:
                raised = parse_ts(str(alert["ts"]))
                alert.update(
                    acknowledged_by=data.get("by"),
                    acknowledged_at=event["ts"],
                    note=data.get("note"),
                    minutes_to_ack=round((now - raised).total_seconds() / 60, 2),
                )
        elif kind in INSPECTION_LOG:
            self.inspections.append(log_row(kind, where, event, data))
        elif kind in DECKS:
            self.decks.append(deck_row(kind, where, event, data))
