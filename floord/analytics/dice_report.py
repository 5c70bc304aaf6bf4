"""`floord report dice`: a Craps table's dice statistics, read back from the journal.

The rolls called (`craps.roll`, with the dice set in play from the `craps.dice` set
events before them) of a table in a time range; per die its faces, per dice set its
totals and per shooter the runs of totals, each tested over all of them; and the alerts
the running watch raises when replayed over the same rolls through the same code
(`DiceWatch`), so the report and the live table can never disagree. The journal is
opened read-only.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from floord.analytics.dice_watch import FACE_CELLS, TOTAL_CELLS, DiceWatch, set_name
from floord.analytics.sliding_chi_square import MIN_EXPECTED, Category, evaluate
from floord.analytics.stream_events import EventError, checked_event, stream_events
from floord.contract import EventType, parse_ts


@dataclass(frozen=True)
class DiceSetup:
    """How a table's dice watch is tuned (the config's `surveillance:`)."""

    window: int
    level: float
    shooter_window: int
    shooter_bins: int


@dataclass(frozen=True)
class DiceRoll:
    """One roll called as journaled, with the dice set at the table when it was thrown."""

    seq: int
    ts: str
    faces: tuple[int, int]
    dice: tuple[str | None, ...]
    shooter: int | None
    dice_set: tuple[str, ...]


def _ids(value: Any) -> tuple[str | None, ...]:
    return tuple(d if isinstance(d, str) else None for d in value or [])


def _roll(
    event: dict[str, Any], dice_set: tuple[str, ...]
) -> tuple[tuple[str, ...], DiceRoll | None]:
    """The dice set after one checked event of `ROLL_TYPES`, and the roll it calls (None
    for a set of dice)."""
    data = event["data"]
    if event["type"] == EventType.CRAPS_DICE:
        if data.get("action") == "set":
            dice_set = tuple(d for d in data.get("dice") or [] if isinstance(d, str))
        return dice_set, None
    d1, d2 = (int(f) for f in data["faces"])
    shooter = data.get("shooter")
    roll = DiceRoll(
        int(event["seq"]),
        event["ts"],
        (d1, d2),
        _ids(data.get("dice")),
        shooter if isinstance(shooter, int) else None,
        dice_set,
    )
    return dice_set, roll


def read_rolls(
    journal: Path, table: str, since: datetime | None, until: datetime | None = None
) -> list[DiceRoll]:
    """The table's rolls called, in order, in [since, until) (the dice set as it stood),
    from its journal."""
    return list(journal_rolls(journal, table, since, until))


def journal_rolls(
    journal: Path,
    table: str,
    since: datetime | None,
    until: datetime | None = None,
    after: int = 0,
    dice_set: tuple[str, ...] = (),
) -> Iterator[DiceRoll]:
    """`read_rolls`, one at a time: a live watch refilled at start holds its windows, not
    the table's every roll. With `after`, the rolls after that seq, the dice at the
    table then being `dice_set`."""
    events = (event for _, event in stream_events(journal, table, ROLL_TYPES, after))
    return rolls_in(events, since, until, f"journal {journal}: {table!r}", dice_set)


ROLL_TYPES = (EventType.CRAPS_DICE.value, EventType.CRAPS_ROLL.value)


def rolls_of(
    events: Iterable[dict[str, Any]],
    since: datetime | None,
    until: datetime | None,
    where: str,
) -> list[DiceRoll]:
    """The rolls among `events` (one table's, in order: a journal's stream or an
    archive's rows) in [since, until), each with the dice set as it stood (a set before
    `since` still counts); `where` names the source in an error."""
    return list(rolls_in(events, since, until, where))


def rolls_in(
    events: Iterable[dict[str, Any]],
    since: datetime | None,
    until: datetime | None,
    where: str,
    dice_set: tuple[str, ...] = (),
) -> Iterator[DiceRoll]:
    """`rolls_of`, one at a time (the dice at the table before the first: `dice_set`)."""
    for unchecked in events:
        event = checked_event(unchecked, f"{where} seq {unchecked.get('seq')}")
        if event["type"] not in ROLL_TYPES:
            continue
        try:
            dice_set, roll = _roll(event, dice_set)
            if roll is None:
                continue
            when = parse_ts(roll.ts)
        except (ValueError, KeyError, TypeError, OverflowError) as exc:
            seq = event["seq"]
            raise EventError(f"{where} seq {seq} is an unreadable roll: {exc!r}", seq) from exc
        if (since is None or when >= since) and (until is None or when < until):
            yield roll


def replay(watch: DiceWatch, rolls: Sequence[DiceRoll]) -> list[dict[str, Any]]:
    """Feed the rolls to a watch as the live table does; the alerts, with seq and ts."""
    alerts = []
    for r in rolls:
        watch.set_dice(r.dice_set)
        for alert in watch.add(r.faces, r.dice, r.shooter):
            alerts.append({**alert, "seq": r.seq, "ts": r.ts})
    return alerts


def _test(
    name: str, cells: Sequence[Category], counts: Sequence[int], level: float, **who: Any
) -> dict[str, Any]:
    """The test over all the counts, or why there are too few for it."""
    n = sum(counts)
    least = min(c.probability for c in cells)
    if n * least < MIN_EXPECTED:
        return {"test": name, **who, "n": n, "too_few": f"{MIN_EXPECTED / least:.0f} needed"}
    found = evaluate(name, cells, counts, n)
    return {**found, **who, "n": n, "level": level, "below_level": found["p_value"] < level}


def dice_report(setup: DiceSetup, rolls: Sequence[DiceRoll]) -> dict[str, Any]:
    """Per die, per set and per shooter the tests over every roll; replayed alerts."""
    watch = DiceWatch(setup.window, setup.level, setup.shooter_window, setup.shooter_bins)
    faces: dict[str, Counter[int]] = defaultdict(Counter)
    totals: dict[str, Counter[int]] = defaultdict(Counter)
    shooters: dict[int, Counter[int]] = defaultdict(Counter)
    for r in rolls:
        for face, die in zip(r.faces, r.dice, strict=False):
            if die is not None:
                faces[die][face] += 1
        totals[set_name(r.dice_set)][sum(r.faces)] += 1
        if setup.shooter_bins and r.shooter is not None:
            shooters[r.shooter][watch.shooter_bin(sum(r.faces))] += 1
    tests = [
        _test("dice_faces", FACE_CELLS, [faces[d][f] for f in range(1, 7)], setup.level, die=d)
        for d in sorted(faces)
    ]
    tests += [
        _test(
            "dice_totals",
            TOTAL_CELLS,
            [totals[s][t] for t in range(2, 13)],
            setup.level,
            dice_set=s,
        )
        for s in sorted(totals)
    ]
    cells = watch.shooter_categories
    tests += [
        _test(
            "shooter_signature",
            cells,
            [shooters[s][b] for b in range(len(cells))],
            setup.level,
            shooter=s,
        )
        for s in sorted(shooters)
    ]
    return {
        "rolls": len(rolls),
        "first": rolls[0].ts if rolls else None,
        "last": rolls[-1].ts if rolls else None,
        "tests": tests,
        "window": setup.window,
        "level": setup.level,
        "shooter_window": setup.shooter_window,
        "shooter_bins": setup.shooter_bins,
        "alerts": replay(watch, rolls),
    }


def _who(item: dict[str, Any]) -> str:
    if "die" in item:
        return f"die {item['die']}"
    if "shooter" in item:
        return f"shooter at seat {item['shooter']}"
    return f"dice set {item.get('dice_set') or '(none recorded)'}"


def format_dice_report(table: str, report: dict[str, Any]) -> str:
    """The report as text for a person at a console."""
    span = f" from {report['first']} to {report['last']}" if report["rolls"] else ""
    lines = [f"table {table}: {report['rolls']} rolls{span}"]
    if "settings" in report:
        used = ", ".join(
            f"{name} {s['value']} (from {s['from']})" for name, s in report["settings"].items()
        )
        lines.append(f"settings: {used}")
    if report.get("live") is False:
        lines.append("surveillance is off in the config: the table raised no live alerts")
    for t in report["tests"]:
        if "too_few" in t:
            lines.append(f"{t['test']} test of {_who(t)}: too few rolls ({t['n']}, {t['too_few']})")
            continue
        verdict = "BELOW LEVEL" if t["below_level"] else "ok"
        top = ", ".join(
            f"{c['label']} ({c['observed']} vs {c['expected']:.1f})" for c in t["over_represented"]
        )
        lines.append(
            f"{t['test']} test of {_who(t)} over all {t['n']} rolls: chi-square "
            f"{t['statistic']:.3f}, dof {t['dof']}, p {t['p_value']:.4g} ({verdict} at "
            f"{t['level']})" + (f"; most over-represented: {top}" if top else "")
        )
    lines.append(
        f"running watch (window {report['window']}, level {report['level']}, shooter window "
        f"{report['shooter_window']}, shooter bins {report['shooter_bins']}): "
        f"{len(report['alerts'])} alert(s)"
    )
    for a in report["alerts"]:
        lines.append(
            f"  {a['ts']} seq {a['seq']}: {a['test']} of {_who(a)} p "
            f"{a['p_value']:.4g}, over-represented "
            f"{[c['label'] for c in a['over_represented']]}"
        )
    return "\n".join(lines)
