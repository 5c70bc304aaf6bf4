"""`floord report floor` over a week of play agrees with counts taken from the journals.

The week is `floor_week.py`'s (real roulette runners, three boxes, seed 7); the archive
is built from its journals as `floord archive` stores them (`archive_fixture.py`). Each
figure of the report is compared with a count made here straight from the journals'
rows (sqlite3, `mode=ro`), by other means than the report's: intervals cut and summed
for the hours open and halted, pairs matched for the alerts, plain counts for the rest.
The docs' example (docs/reports.md) is this week's report, checked verbatim.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections import Counter
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from archive_fixture import build_archive
from floor_week import WEEK_START, generate_week

from floord.analytics.floor_report.text import COLUMNS
from floord.cli.main import main
from floord.contract import parse_ts

# A week of real runners on real journals, about 30 s to build: the system tier.
pytestmark = pytest.mark.system

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def week(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("week")
    journals = generate_week(folder)
    archive = folder / "archive.db"
    build_archive(archive, journals)
    return {"journals": journals, "archive": archive, "folder": folder}


def journal_events(path: Path) -> list[dict[str, Any]]:
    """The table's own stream of one box's journal, in seq order."""
    db = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    try:
        rows = db.execute(
            "SELECT body FROM events WHERE stream NOT LIKE '%/%' ORDER BY seq"
        ).fetchall()
    finally:
        db.close()
    return [json.loads(r[0]) for r in rows]


def report(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["report", "floor", *argv, "--format", "json"]) == 0
    return dict(json.loads(capsys.readouterr().out))


def clip(spans: list[tuple[datetime, datetime]], lo: datetime, hi: datetime) -> float:
    return sum(max(0.0, (min(b, hi) - max(a, lo)).total_seconds()) for a, b in spans)


def spans(
    events: list[dict[str, Any]], start: str, stop: set[str]
) -> list[tuple[datetime, datetime]]:
    """[start event, the next stop event) pairs; one still running ends at the last event."""
    found, since = [], None
    for e in events:
        if e["type"] == start and since is None:
            since = parse_ts(e["ts"])
        elif e["type"] in stop and since is not None:
            found.append((since, parse_ts(e["ts"])))
            since = None
    if since is not None:
        found.append((since, parse_ts(events[-1]["ts"])))
    return found


def subtract(
    outer: list[tuple[datetime, datetime]], inner: list[tuple[datetime, datetime]]
) -> list[tuple[datetime, datetime]]:
    """`outer` less every part of it that `inner` covers (both sorted, each disjoint)."""
    result = []
    for a, b in outer:
        pieces = [(a, b)]
        for c, d in inner:
            pieces = [p for x, y in pieces for p in ((x, min(y, c)), (max(x, d), y)) if p[1] > p[0]]
        result.extend(pieces)
    return result


def expected(path: Path, lo: datetime, hi: datetime) -> dict[str, Any]:
    """One table's figures over [lo, hi), counted from its journal."""
    events = journal_events(path)
    inside = [e for e in events if lo <= parse_ts(e["ts"]) < hi]
    kinds = Counter(e["type"] for e in inside)
    opened = spans(events, "table.opened", {"table.closed"})
    halted = spans(events, "table.halted", {"table.resumed"})
    return {
        "table": events[0]["table"],
        "rounds": kinds["round.ended"],
        "rounds_started": kinds["round.started"],
        "hours_open": round(clip(subtract(opened, halted), lo, hi) / 3600, 2),
        "halts": kinds["table.halted"],
        "minutes_halted": round(clip(halted, lo, hi) / 60, 2),
        "violations": kinds["procedure.violation"],
        "refused": kinds["operator.command_refused"],
        "halt_codes": Counter(e["data"]["code"] for e in inside if e["type"] == "table.halted"),
        "inspections": kinds["operator.inspection"],
        "log": kinds["operator.inspection"]
        + kinds["roulette.wheel_service"]
        + kinds["roulette.ball_replaced"],
        "violation_kinds": Counter(
            e["data"]["what"] for e in inside if e["type"] == "procedure.violation"
        ),
        "refused_kinds": Counter(
            (e["data"]["code"], e["data"]["name"])
            for e in inside
            if e["type"] == "operator.command_refused"
        ),
        "alerts": {e["data"]["id"]: e for e in inside if e["type"] == "surveillance.alert"},
        "acks": {
            e["data"]["id"]: e for e in events if e["type"] == "surveillance.alert_acknowledged"
        },
    }


PERIODS = [
    (WEEK_START, WEEK_START + timedelta(days=7)),
    # Cut through the middle of a day's play: the tables open at the cut count from it.
    (WEEK_START + timedelta(days=2, hours=20), WEEK_START + timedelta(days=4, hours=19)),
]


@pytest.mark.parametrize(("lo", "hi"), PERIODS, ids=["week", "mid-day cut"])
def test_each_tables_figures_agree_with_its_journal(
    week: dict[str, Any], capsys: pytest.CaptureFixture[str], lo: datetime, hi: datetime
) -> None:
    url = f"sqlite://{week['archive']}"
    got = report(capsys, "--archive", url, "--from", lo.isoformat(), "--to", hi.isoformat())
    rows = {t["table"]: t for t in got["tables"]}
    assert len(rows) == len(week["journals"]) == 3
    halt_codes: Counter[str] = Counter()
    alerts_seen = 0
    for path in week["journals"]:
        want = expected(path, lo, hi)
        row = rows[want["table"]]
        for key in ("rounds", "rounds_started", "hours_open", "halts", "minutes_halted",
                    "violations", "refused"):  # fmt: skip
            assert row[key] == want[key], (want["table"], key)
        assert row["rounds"] > 0 and row["hours_open"] > 0
        # rounds/h is taken over the unrounded hours: within the rounding of hours_open.
        assert abs(row["rounds_per_hour"] - row["rounds"] / row["hours_open"]) < 0.1
        halt_codes.update(want["halt_codes"])
        mine = [v for v in got["violations"] if v["table"] == want["table"]]
        assert Counter({v["what"]: v["count"] for v in mine}) == want["violation_kinds"]
        refused = [r for r in got["refused"] if r["table"] == want["table"]]
        assert (
            Counter({(r["code"], r["command"]): r["count"] for r in refused})
            == want["refused_kinds"]
        )
        log = [r for r in got["inspections"] if r["table"] == want["table"]]
        assert len(log) == want["log"]
        assert sum(r["what"] == "inspection" for r in log) == want["inspections"]
        for alert in (a for a in got["alerts"] if a["table"] == want["table"]):
            alerts_seen += 1
            raised = want["alerts"].pop(alert["id"])
            ack = want["acks"].get(alert["id"])
            if ack is None or parse_ts(ack["ts"]) >= hi:
                assert alert["acknowledged_by"] is None and alert["minutes_to_ack"] is None
            else:
                assert alert["acknowledged_by"] == ack["data"]["by"]
                minutes = (parse_ts(ack["ts"]) - parse_ts(raised["ts"])).total_seconds() / 60
                assert alert["minutes_to_ack"] == round(minutes, 2)
        assert want["alerts"] == {}, "every alert raised in the period is listed"
    assert {c["cause"]: c["halts"] for c in got["halt_causes"]} == dict(halt_codes)
    assert got["alert_summary"]["raised"] == alerts_seen
    assert got["decks"] == []  # a roulette floor receives no decks
    for section, columns in COLUMNS.items():
        assert all(tuple(row) == columns for row in got[section]), section
    assert main(["report", "floor", "--archive", url, "--format", "csv", "--section", "decks"]) == 0
    assert capsys.readouterr().out == ",".join(COLUMNS["decks"]) + "\n"


def test_dealers_rounds_add_up_to_the_tables_and_follow_dealer_in(
    week: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    got = report(capsys, "--archive", str(week["archive"]))
    assert sum(d["rounds"] for d in got["dealers"]) == sum(t["rounds"] for t in got["tables"])
    for path in week["journals"]:
        # Each round.started of a roulette table names its dealer: the report's dealer of
        # a round is the last dealer_in, which the engine names in the round too.
        events = journal_events(path)
        ended = {e["round"] for e in events if e["type"] == "round.ended"}
        per_dealer = Counter(
            e["data"]["dealer"] or "(no dealer signed in)"
            for e in events
            if e["type"] == "round.started" and e["round"] in ended
        )
        assert len(per_dealer) > 1
        table = events[0]["table"]
        rows = {d["dealer"]: d["rounds"] for d in got["dealers"] if d["table"] == table}
        assert {k: v for k, v in rows.items() if v} == dict(per_dealer)


def test_the_archive_and_the_journals_give_the_same_report(
    week: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    period = ["--from", "2026-12-01T12:00:00Z", "--to", "2026-12-05"]
    from_archive = report(capsys, "--archive", f"sqlite://{week['archive']}", *period)
    dbs = [w for p in week["journals"] for w in ("--db", str(p))]
    from_journals = report(capsys, *dbs, *period)
    assert from_archive == from_journals
    one = report(capsys, "--archive", str(week["archive"]), "--table", "RL-02", *period)
    assert [t["table"] for t in one["tables"]] == ["RL-02"]
    assert one["tables"][0] == next(t for t in from_archive["tables"] if t["table"] == "RL-02")
    assert report(capsys, "--archive", str(week["archive"]), "--site", "elsewhere")["tables"] == []


def test_the_docs_show_this_weeks_report_verbatim(
    week: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    text = (ROOT / "docs" / "reports.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```text\n\$ (floord report floor [^\n]*)\n(.*?)```", text, re.S)
    assert len(blocks) >= 2, "docs/reports.md shows `floord report floor` and its output"
    for command, output in blocks:
        argv = command.split()[1:]
        argv = [str(week["archive"]) if a == "/srv/floord/week-archive.db" else a for a in argv]
        assert main(argv) == 0
        assert capsys.readouterr().out == output, command
