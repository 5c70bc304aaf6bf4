"""`floord report shuffle`: a table's shuffle quality, read back from the journal.

The events of the table's reading shoes (`shoe.loaded`, `shoe.card_drawn`, `shoe.empty`,
as the table recorded them with their source) are replayed from the start of the
record through the same code the live table runs (`ShuffleWatch`), so the alerts the
report lists are the alerts the table raised, with the same statistics and p-values;
each shoe's findings are listed too, alerting or not. `since` limits what is listed,
never what is replayed (a shoe is compared with the shoes before it). The journal is
opened read-only.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from floord.analytics.shuffle_watch import CORRELATION, SLUG, ShuffleSetup, ShuffleWatch
from floord.analytics.stream_events import stream_events
from floord.contract import EventType, parse_ts

SHOE_TYPES = frozenset(
    {EventType.SHOE_LOADED.value, EventType.SHOE_CARD_DRAWN.value, EventType.SHOE_EMPTY.value}
)


@dataclass(frozen=True)
class ShoeEvent:
    """One shoe event as journaled: where it is on the record and who reported it."""

    seq: int
    ts: str
    source: str | None
    type: str
    data: dict[str, Any]


def read_shoe_events(journal: Path, table: str) -> list[ShoeEvent]:
    """Every shoe event on the table's record, in order (any shoe's: the caller picks)."""
    return list(journal_shoe_events(journal, table))


def journal_shoe_events(journal: Path, table: str, after: int = 0) -> Iterator[ShoeEvent]:
    """`read_shoe_events`, one at a time (those after seq `after`): a live watch
    refilled at start holds the shoes it compares, not the table's every card."""
    for seq, event in stream_events(journal, table, SHOE_TYPES, after):
        data = event["data"]
        yield ShoeEvent(seq, event["ts"], event["source"], event["type"], data)


def replay(
    watch: ShuffleWatch, shoes: Iterable[str], events: Sequence[ShoeEvent]
) -> list[dict[str, Any]]:
    """Feed the reading shoes' events to a watch as the live table does; the alerts,
    each with the `seq` and `ts` of the event that raised it (and, with summaries, each
    shoe's findings with those of the event that ended it)."""
    reading = frozenset(shoes)
    alerts = []
    for e in events:
        if e.source not in reading:
            continue
        ended = len(watch.summaries or [])
        for alert in watch.on_event(e.type, e.data):
            alerts.append({**alert, "seq": e.seq, "ts": e.ts})
        for summary in (watch.summaries or [])[ended:]:
            summary.update(seq=e.seq, ts=e.ts)
    return alerts


def shuffle_report(
    setup: ShuffleSetup,
    shoes: Sequence[str],
    events: Sequence[ShoeEvent],
    since: datetime | None = None,
) -> dict[str, Any]:
    """Every shoe's findings and the replayed alerts (those from `since`, if given)."""
    watch = ShuffleWatch(setup, summaries=True)
    alerts = replay(watch, shoes, events)
    summaries = watch.summaries or []
    reading = [e for e in events if e.source in frozenset(shoes)]
    if since is not None:
        alerts = [a for a in alerts if parse_ts(a["ts"]) >= since]
        summaries = [s for s in summaries if parse_ts(s["ts"]) >= since]
    return {
        "shoe_devices": list(shoes),
        "shoes": watch.shoes,
        "cards": sum(1 for e in reading if e.type == EventType.SHOE_CARD_DRAWN),
        "first": reading[0].ts if reading else None,
        "last": reading[-1].ts if reading else None,
        "setup": vars(setup),
        "open": [
            {"shoe": s.number, "side": s.side, "cards": len(s.cards)} for s in watch.open.values()
        ],
        "ended": summaries,
        "alerts": alerts,
    }


def _finding(t: dict[str, Any]) -> str:
    verdict = "ALERT" if t["p_value"] < t["level"] else "ok"
    if t["test"] == SLUG:
        run = t["run"]
        return (
            f"longest run {t['statistic']} card(s) as in shoe {run['shoe']} "
            f"p {t['p_value']:.4g} ({verdict})"
        )
    if t["test"] == CORRELATION:
        pairs = t["pairs"]
        return (
            f"successor pairs {pairs['observed']} vs {pairs['expected']:.1f} expected "
            f"({t['against'].replace('_', ' ')}) p {t['p_value']:.4g} ({verdict})"
        )
    suits, ranks = t["suits"], t["ranks"]
    return (
        f"same-suit neighbours {suits['observed']} vs {suits['expected']:.1f}, same-rank "
        f"{ranks['observed']} vs {ranks['expected']:.1f}, p {t['p_value']:.4g} "
        f"({verdict})"
    )


def _side(side: str | None) -> str:
    return f" ({side} side)" if side else ""


def format_shuffle_report(table: str, report: dict[str, Any]) -> str:
    """The report as text for a person at a console."""
    span = f" from {report['first']} to {report['last']}" if report["first"] else ""
    lines = [
        f"table {table}: {report['shoes']} shoe(s), {report['cards']} card(s) read by "
        f"{', '.join(report['shoe_devices'])}{span}"
    ]
    if "settings" in report:
        used = ", ".join(
            f"{name} {s['value']} (from {s['from']})" for name, s in report["settings"].items()
        )
        lines.append(f"settings: {used}")
    if report.get("live") is False:
        lines.append("the shuffle tests are off in the config: the table raised no live alerts")
    for shoe in report["ended"]:
        tests = "; ".join(_finding(t) for t in shoe["tests"]) or "too few cards to test"
        lines.append(f"shoe {shoe['shoe']}{_side(shoe['side'])}, {shoe['cards']} cards: {tests}")
    for shoe in report["open"]:
        lines.append(
            f"shoe {shoe['shoe']}{_side(shoe['side'])}: being dealt, {shoe['cards']} cards so far"
        )
    lines.append(f"alerts: {len(report['alerts'])}")
    for a in report["alerts"]:
        lines.append(
            f"  {a['ts']} seq {a['seq']}: {a['test']} shoe {a['shoe']}"
            f"{_side(a['side'])}: {_finding(a)}"
        )
    return "\n".join(lines)
