"""`floord report wheel`: a wheel's fairness statistics, read back from the journal.

Surveillance asks after the fact how a wheel has been running: the results of a table in
a time range, the pocket and sector tests over all of them, and the alerts the running
watch would have raised (replaying `WheelWatch` over the same results, so the report and
the live watch can never disagree). The journal is opened read-only: a report must never
write to the record it reads.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from floord.analytics.pace import PaceSettings
from floord.analytics.sliding_chi_square import MIN_EXPECTED, evaluate
from floord.analytics.spin_physics import SpinSettings
from floord.analytics.stream_events import EventError, checked_event, stream_events
from floord.analytics.wheel_physics import SpinRecord, WheelPhysics, physics_report, spin_record
from floord.analytics.wheel_watch import BIG_SIX, WheelWatch
from floord.contract import EventType, parse_ts
from floord.engine.core.copies import Fixed

RESULT_TYPES = (EventType.ROULETTE_RESULT.value, EventType.BIGSIX_RESULT.value)


@dataclass(frozen=True)
class WheelResult:
    """One result as journaled: its seq and time, the pocket or symbol, the section index."""

    seq: int
    ts: str
    result: str
    position: int | None
    dealer: str | None = None  # Roulette: the dealer signed in (`dealer_in`), if any
    release: str | None = None  # Roulette: the release pocket, from a kit with an encoder
    spin: SpinRecord | None = None  # Roulette: what the pace and spin physics tests read


@dataclass(frozen=True)
class WheelSetup(Fixed):
    """What the tests need to know of a wheel, and how the running watch is tuned."""

    kind: str
    order: tuple[str, ...]
    window: int
    level: float
    sectors: int
    section_counts: dict[str, int] | None = None
    # The dealer signature test (Roulette only; 0 bins: off).
    dealer_window: int = 300
    dealer_bins: int = 0
    # The pace and spin physics tests of a Roulette wheel (None: off).
    pace: PaceSettings | None = None
    spin: SpinSettings | None = None


def read_results(
    journal: Path, table: str, since: datetime | None, until: datetime | None = None
) -> list[WheelResult]:
    """The table's `roulette.result` and `bigsix.result` events, in order, in [since,
    until), from its journal."""
    return list(journal_results(journal, table, since, until))


def journal_results(
    journal: Path,
    table: str,
    since: datetime | None,
    until: datetime | None = None,
    after: int = 0,
) -> Iterator[WheelResult]:
    """`read_results`, one at a time (those after seq `after`): a live watch refilled at
    start holds its windows, not the table's every result."""
    events = (event for _, event in stream_events(journal, table, RESULT_TYPES, after))
    return results_in(events, since, until, f"journal {journal}: {table!r}")


def results_of(
    events: Iterable[dict[str, Any]],
    since: datetime | None,
    until: datetime | None,
    where: str,
) -> list[WheelResult]:
    """The wheel results among `events` (one table's, in order: a journal's stream or an
    archive's rows) in [since, until); `where` names the source in an error."""
    return list(results_in(events, since, until, where))


def results_in(
    events: Iterable[dict[str, Any]],
    since: datetime | None,
    until: datetime | None,
    where: str,
) -> Iterator[WheelResult]:
    """`results_of`, one at a time."""
    for unchecked in events:
        event = checked_event(unchecked, f"{where} seq {unchecked.get('seq')}")
        if event["type"] not in RESULT_TYPES:
            continue
        try:
            found = _result(event, since, until)
        except (ValueError, KeyError, TypeError, OverflowError) as exc:
            seq = event["seq"]
            raise EventError(f"{where} seq {seq} is unreadable: {exc!r}", seq) from exc
        if found is not None:
            yield found


def _result(
    event: dict[str, Any], since: datetime | None, until: datetime | None
) -> WheelResult | None:
    """The result a checked result event records; None outside [since, until)."""
    seq, ts = int(event["seq"]), event["ts"]
    when = parse_ts(ts)
    if (since is not None and when < since) or (until is not None and when >= until):
        return None
    data = event["data"]
    if event["type"] != EventType.ROULETTE_RESULT:
        return WheelResult(seq, ts, str(data["symbol"]), int(data["section"]))
    dealer, release = data.get("dealer"), data.get("release_pocket")
    return WheelResult(
        seq,
        ts,
        str(data["number"]),
        None,
        dealer if isinstance(dealer, str) else None,
        release if isinstance(release, str) else None,
        spin_record(data, ts),
    )


def wheel_report(setup: WheelSetup, results: Sequence[WheelResult]) -> dict[str, Any]:
    """Counts against the fair distribution, the tests over every result, replayed alerts."""
    # Here: a daemon's watchers use this module, never the dealer's report.
    from floord.analytics.dealer_report import dealer_report

    watch = WheelWatch(
        setup.kind,
        setup.order,
        setup.window,
        setup.level,
        setup.sectors,
        section_counts=setup.section_counts,
    )
    n = len(results)
    counts = Counter(r.result for r in results)
    tests: list[dict[str, Any]] = []
    too_few: list[str] = []
    for running in (watch.pocket, watch.sector):
        if running is None:
            continue
        least = min(c.probability for c in running.categories)
        if n * least < MIN_EXPECTED:
            too_few.append(f"{running.test}: {n} results, {MIN_EXPECTED / least:.0f} needed")
            continue
        if running.test == "pocket":
            observed = [counts[c.label] for c in running.categories]
        else:
            # By position: a Big Six symbol shows in every arc, its section says which.
            observed = [0] * len(running.categories)
            for r in results:
                arc = watch.sector_of(r.result, r.position if setup.kind == BIG_SIX else None)
                if arc is not None:
                    observed[arc] += 1
        test = evaluate(running.test, running.categories, observed, n)
        tests.append({**test, "level": setup.level, "below_level": test["p_value"] < setup.level})
    alerts = []
    for r in results:
        position = r.position if setup.kind == BIG_SIX and setup.sectors else None
        for alert in watch.add(r.result, position=position):
            alerts.append({**alert, "seq": r.seq, "ts": r.ts})
    physics = WheelPhysics(setup.kind, setup.order, setup.level, setup.pace, setup.spin)
    return {
        "kind": setup.kind,
        "results": n,
        "first": results[0].ts if results else None,
        "last": results[-1].ts if results else None,
        "pockets": [
            {"label": c.label, "observed": counts[c.label], "probability": c.probability}
            for c in watch.pocket.categories
        ],
        "tests": tests,
        "too_few": too_few,
        "window": setup.window,
        "level": setup.level,
        "sectors": setup.sectors,
        "alerts": alerts,
        "dealer_signature": dealer_report(
            setup.kind, setup.order, setup.dealer_window, setup.level, setup.dealer_bins, results
        )
        if setup.kind != BIG_SIX
        else None,
        "physics_settings": {
            "pace": None if setup.pace is None else asdict(setup.pace),
            "spin_physics": None if setup.spin is None else asdict(setup.spin),
        },
        "physics_alerts": physics_report(physics, results),
    }


def format_report(table: str, report: dict[str, Any]) -> str:
    """The report as text for a person at a console."""
    from floord.analytics.dealer_report import format_dealer_report

    lines = [
        f"table {table}: {report['kind']} wheel, {report['results']} results"
        + (f" from {report['first']} to {report['last']}" if report["results"] else ""),
    ]
    if "settings" in report:
        used = ", ".join(
            f"{name} {s['value']} (from {s['from']})" for name, s in report["settings"].items()
        )
        lines.append(f"settings: {used}")
    if report.get("live") is False:
        lines.append("surveillance is off in the config: the table raised no live alerts")
    n = report["results"]
    lines.append("pocket  observed  expected")
    for p in report["pockets"]:
        lines.append(f"{p['label']:>6}  {p['observed']:>8}  {p['probability'] * n:>8.1f}")
    for t in report["tests"]:
        verdict = "BELOW LEVEL" if t["below_level"] else "ok"
        top = ", ".join(
            f"{c['label']} ({c['observed']} vs {c['expected']:.1f})" for c in t["over_represented"]
        )
        lines.append(
            f"{t['test']} test over all {t['window']} results: chi-square {t['statistic']:.3f}"
            f", dof {t['dof']}, p {t['p_value']:.4g} ({verdict} at {t['level']})"
            + (f"; most over-represented: {top}" if top else "")
        )
    for text in report["too_few"]:
        lines.append(f"too few results for the {text}")
    lines.append(
        f"running watch (window {report['window']}, level {report['level']}, sectors "
        f"{report['sectors']}): {len(report['alerts'])} alert(s)"
    )
    for a in report["alerts"]:
        lines.append(
            f"  {a['ts']} seq {a['seq']}: {a['test']} p {a['p_value']:.4g}, "
            f"over-represented {[c['label'] for c in a['over_represented']]}"
        )
    if report.get("dealer_signature") is not None:
        lines.extend(format_dealer_report(report["dealer_signature"]))
    physics = report.get("physics_alerts") or []
    for name, tuned in (report.get("physics_settings") or {}).items():
        used = "off" if tuned is None else ", ".join(f"{k} {v}" for k, v in tuned.items())
        lines.append(f"{name}: {used}")
    lines.append(f"pace and spin physics: {len(physics)} alert(s)")
    lines.extend(f"  {a['ts']} seq {a['seq']}: {a['test']}: {a['summary']}" for a in physics)
    return "\n".join(lines)
