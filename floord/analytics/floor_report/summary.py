"""The floor report's tallies summed up: per table, per dealer, per halt cause, the
alerts with their acknowledgements; the JSON-ready shape docs/reports.md gives."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from statistics import median
from typing import Any

from floord.analytics.floor_report.compute import FloorTally
from floord.contract import format_ts


@dataclass
class DealerSum:
    """One dealer over every table: rounds, seconds at an open table, where."""

    rounds: int = 0
    seconds: float = 0.0
    tables: set[str] = field(default_factory=set)


def _per_hour(rounds: int, seconds: float) -> float | None:
    return round(rounds / (seconds / 3600), 2) if seconds > 0 else None


def floor_report(
    events: Iterable[dict[str, Any]], since: datetime | None, until: datetime | None
) -> dict[str, Any]:
    """The report of `events` (the tables' own streams, each in its order) over
    [since, until): a JSON-ready dict, in the shape docs/reports.md gives."""
    tally = FloorTally(since, until)
    for event in events:
        try:
            tally.add(event)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            where = f"{event.get('site')}/{event.get('table')} seq {event.get('seq')}"
            raise ValueError(f"event {where} cannot be read: {exc!r}") from exc
    for t in tally.tables.values():
        t.clock.close_period()
    return summarise(tally)


def summarise(tally: FloorTally) -> dict[str, Any]:
    tables, dealers, halts, violations, refused = [], [], [], [], []
    dealer_sum: dict[str, DealerSum] = {}
    cause_minutes: dict[str, float] = {}
    cause_count: Counter[str] = Counter()
    for (site, table), t in sorted(tally.tables.items()):
        halted_s = 0.0
        for spell in t.clock.spells:
            seconds = t.clock.halted_s(spell)
            if seconds <= 0 and not tally.inside(spell.start):
                continue
            halted_s += seconds
            cause_minutes[spell.cause] = cause_minutes.get(spell.cause, 0.0) + seconds / 60
            halts.append(
                {
                    "site": site,
                    "table": table,
                    "cause": spell.cause,
                    "halted_at": format_ts(spell.start),
                    "resumed_at": format_ts(spell.end) if spell.end else None,
                    "minutes": round(seconds / 60, 2),
                    "also": spell.also,
                    "resumed_by": spell.resumed_by,
                    "reason": spell.reason,
                }
            )
        for code, n in t.halts.items():
            cause_count[code] += n
        tables.append(
            {
                "site": site,
                "table": table,
                "game": t.game,
                "rounds": t.rounds,
                "rounds_started": t.started,
                "rounds_voided": t.voided,
                "hours_open": round(t.clock.open_s / 3600, 2),
                "rounds_per_hour": _per_hour(t.rounds, t.clock.open_s),
                "halts": sum(t.halts.values()),
                "minutes_halted": round(halted_s / 60, 2),
                "violations": sum(t.violations.values()),
                "refused": sum(t.refused.values()),
            }
        )
        for dealer in sorted(set(t.dealer_rounds) | {d for d, s in t.clock.dealer_s.items() if s}):
            seconds = t.clock.dealer_s.get(dealer, 0.0)
            rounds = t.dealer_rounds.get(dealer, 0)
            dealers.append(
                {
                    "dealer": dealer,
                    "site": site,
                    "table": table,
                    "rounds": rounds,
                    "hours": round(seconds / 3600, 2),
                    "rounds_per_hour": _per_hour(rounds, seconds),
                }
            )
            whole = dealer_sum.setdefault(dealer, DealerSum())
            whole.rounds += rounds
            whole.seconds += seconds
            whole.tables.add(f"{site}/{table}")
        for (what, rule), n in sorted(t.violations.items(), key=lambda x: (x[0][0], x[0][1] or "")):
            violations.append(
                {"site": site, "table": table, "what": what, "rule": rule, "count": n}
            )
        for (code, name, rule), n in sorted(
            t.refused.items(), key=lambda x: (x[0][0], x[0][1], x[0][2] or "")
        ):
            refused.append(
                {
                    "site": site,
                    "table": table,
                    "code": code,
                    "command": name,
                    "rule": rule,
                    "count": n,
                }
            )
    alerts = sorted(tally.alerts.values(), key=lambda a: (*_when(a), str(a["id"])))
    waits = [a["minutes_to_ack"] for a in alerts if a["minutes_to_ack"] is not None]
    return {
        "from": format_ts(tally.since) if tally.since else None,
        "to": format_ts(tally.until) if tally.until else None,
        "events": tally.events,
        "tables": tables,
        "dealers": dealers,
        "dealer_totals": [
            {
                "dealer": d,
                "rounds": s.rounds,
                "hours": round(s.seconds / 3600, 2),
                "rounds_per_hour": _per_hour(s.rounds, s.seconds),
                "tables": sorted(s.tables),
            }
            for d, s in sorted(dealer_sum.items())
        ],
        "halt_causes": [
            {
                "cause": c,
                "halts": cause_count.get(c, 0),
                "minutes": round(cause_minutes.get(c, 0.0), 2),
            }
            for c in sorted(set(cause_count) | set(cause_minutes))
        ],
        "halts": halts,
        "alerts": alerts,
        "alert_summary": {
            "raised": len(alerts),
            "acknowledged": len(waits),
            "open": len(alerts) - len(waits),
            "median_minutes_to_ack": round(median(waits), 2) if waits else None,
            "max_minutes_to_ack": max(waits) if waits else None,
            "by": dict(
                sorted(
                    Counter(
                        str(a["acknowledged_by"])
                        for a in alerts
                        if a["acknowledged_by"] is not None
                    ).items()
                )
            ),
        },
        "inspections": sorted(tally.inspections, key=_when),
        "decks": sorted(tally.decks, key=_when),
        "violations": violations,
        "refused": refused,
    }


def _when(row: dict[str, Any]) -> tuple[str, str, str]:
    """Rows of every table in time order, whatever order their source read the tables."""
    return (str(row["ts"]), str(row["site"]), str(row["table"]))
