"""The floor report's definitions, one at a time, on a table's record written for them.

Each test journals a short record (real `Journal` appends, so the envelopes are what a box
stores), loads it into an archive file, and reads the report back through the command
line: the figures are the ones docs/reports.md defines, worked out here by hand from the
times the record was written at.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from archive_fixture import build_archive

from floord.cli.main import main
from floord.contract import Envelope, format_ts
from floord.journal.store import Journal

pytestmark = pytest.mark.unit

T0 = datetime(2026, 12, 1, 18, 0, tzinfo=UTC)
Record = list[tuple[float, str, dict[str, Any]] | tuple[float, str, dict[str, Any], str]]


def minutes(m: float) -> datetime:
    return T0 + timedelta(minutes=m)


def write(tmp: Path, table: str, record: Record, name: str = "box.db") -> Path:
    """`record`: (minute, type, data[, round]) on the table's stream, in order."""
    path = tmp / name
    journal = Journal(path)
    try:
        for item in record:
            at, kind, data = item[0], item[1], item[2]
            rnd = item[3] if len(item) > 3 else None
            rule = "58 Pa. Code § 531.3(f)" if kind == "procedure.violation" else None
            journal.append(
                table,
                lambda seq, at=at, kind=kind, data=data, rnd=rnd, rule=rule: Envelope(
                    "s1", table, seq, format_ts(minutes(at)), kind, "engine", data, rule, rnd
                ),
            )
    finally:
        journal.close()
    return path


def report(tmp: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    archive = tmp / "archive.db"
    if not archive.exists():
        build_archive(archive, sorted(tmp.glob("*.db")))
    assert main(["report", "floor", "--archive", str(archive), *argv, "--format", "json"]) == 0
    return dict(json.loads(capsys.readouterr().out))


def dealer_in(at: float, who: str) -> tuple[float, str, dict[str, Any]]:
    return (
        at,
        "operator.command",
        {
            "id": f"c{at}",
            "name": "dealer_in",
            "by": who,
            "role": "dealer",
            "args": {},
            "key": "current",
        },
    )


def spin(start: float, end: float, n: int) -> Record:
    rnd = f"RL-01-2026-12-01-{n:04d}"
    return [
        (start, "round.started", {"n": n, "wheel": "single_zero"}, rnd),
        (end, "round.ended", {"outcome": "result"}, rnd),
    ]


def test_hours_open_stop_at_a_halt_and_at_a_daemon_stop_and_rounds_go_to_their_dealer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record: Record = [
        (0, "daemon.started", {}),
        dealer_in(1, "dl-a"),
        (2, "table.opened", {"by": "fp"}),  # open 2..32
        *spin(10, 11, 1),
        *spin(29, 31, 2),  # started under dl-a, ended after dl-b came in: dl-a's
        dealer_in(30, "dl-b"),
        (32, "table.halted", {"code": "device_offline"}),  # halted 32..47
        (40, "table.halted", {"code": "device_fault"}),  # latched in the same halt
        (47, "table.resumed", {"by": "fp", "reason": "fixed", "state": "open"}),  # open 47..62
        *spin(50, 51, 3),
        (62, "daemon.stopped", {"reason": "clean stop"}),  # down 62..92: not open
        (92, "daemon.started", {}),  # open 92..122
        *spin(100, 101, 4),
        (122, "table.closed", {"by": "fp", "state": "closed"}),
        (130, "procedure.violation", {"what": "spin_while_not_open"}),
    ]
    write(tmp_path, "RL-01", record)
    got = report(tmp_path, capsys)
    [table] = got["tables"]
    assert table["rounds"] == 4 and table["game"] == "roulette"
    assert table["hours_open"] == round((30 + 15 + 30) / 60, 2)
    assert table["rounds_per_hour"] == round(4 / (75 / 60), 2)
    assert table["halts"] == 2 and table["minutes_halted"] == 15.0
    assert got["halt_causes"] == [
        {"cause": "device_fault", "halts": 1, "minutes": 0.0},
        {"cause": "device_offline", "halts": 1, "minutes": 15.0},
    ]
    [halt] = got["halts"]
    assert halt["also"] == ["device_fault"] and halt["resumed_by"] == "fp"
    dealers = {d["dealer"]: d for d in got["dealers"]}
    assert dealers["dl-a"]["rounds"] == 2 and dealers["dl-a"]["hours"] == round(28 / 60, 2)
    assert dealers["dl-b"]["rounds"] == 2 and dealers["dl-b"]["hours"] == round(47 / 60, 2)
    assert got["violations"] == [
        {
            "site": "s1",
            "table": "RL-01",
            "what": "spin_while_not_open",
            "rule": "58 Pa. Code § 531.3(f)",
            "count": 1,
        }
    ]

    # A period cut through the open spell and the halt counts only its part of each.
    cut = report(tmp_path, capsys, "--from", format_ts(minutes(20)), "--to", format_ts(minutes(40)))
    [table] = cut["tables"]
    assert table["hours_open"] == round(12 / 60, 2) and table["minutes_halted"] == 8.0
    assert table["rounds"] == 1 and table["halts"] == 1  # the halt at 40 is outside


def test_an_alert_is_listed_with_its_acknowledgement_or_as_open(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    alert = {"id": "A00001", "test": "pocket", "p_value": 0.0004, "level": 0.001, "wheel": "x"}
    record: Record = [
        (0, "surveillance.alert", alert),
        (1, "surveillance.alert", {**alert, "id": "A00002", "test": "sector"}),
        (7.5, "surveillance.alert_acknowledged", {"id": "A00001", "by": "sup", "note": "ok"}),
        (90, "surveillance.alert_acknowledged", {"id": "A00002", "by": "sec", "note": "late"}),
    ]
    write(tmp_path, "RL-01", record)
    whole = report(tmp_path, capsys)
    assert [(a["id"], a["acknowledged_by"], a["minutes_to_ack"]) for a in whole["alerts"]] == [
        ("A00001", "sup", 7.5),
        ("A00002", "sec", 89.0),
    ]
    assert whole["alert_summary"] == {
        "raised": 2,
        "acknowledged": 2,
        "open": 0,
        "median_minutes_to_ack": 48.25,
        "max_minutes_to_ack": 89.0,
        "by": {"sec": 1, "sup": 1},
    }
    early = report(tmp_path, capsys, "--to", format_ts(minutes(60)))
    assert [a["acknowledged_by"] for a in early["alerts"]] == ["sup", None]
    assert early["alert_summary"]["open"] == 1


def test_deck_receipts_inspections_and_refusals_are_listed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record: Record = [
        (
            0,
            "cards.decks_received",
            {"by": "fp", "role": "floorperson", "decks": 6, "inspection": "required"},
        ),
        (
            5,
            "cards.decks_inspected",
            {
                "by": "dl",
                "role": "dealer",
                "step": "inspected",
                "defects_found": False,
                "cleared": False,
            },
        ),
        (
            9,
            "cards.decks_spread",
            {"by": "dl", "role": "dealer", "defects_found": False, "cleared": True},
        ),
        (
            12,
            "operator.command_refused",
            {"id": "x", "name": "round_start", "by": "dl", "code": "refused"},
        ),
        (
            13,
            "operator.command_refused",
            {"id": "y", "name": "open", "by": "dl", "code": "role_not_allowed"},
        ),
        (
            14,
            "operator.inspection",
            {
                "by": "fp",
                "role": "floorperson",
                "passed": False,
                "failed_items": ["parts_secure"],
                "note": "loose",
            },
        ),
    ]
    write(tmp_path, "BJ-01", record)
    got = report(tmp_path, capsys)
    assert [(d["what"], d["by"], d["cleared"]) for d in got["decks"]] == [
        ("received", "fp", None),
        ("inspected", "dl", False),
        ("spread", "dl", True),
    ]
    assert got["decks"][0]["decks"] == 6 and got["decks"][0]["inspection"] == "required"
    assert [(r["code"], r["command"]) for r in got["refused"]] == [
        ("refused", "round_start"),
        ("role_not_allowed", "open"),
    ]
    [log] = got["inspections"]
    assert log["passed"] is False and "parts_secure" in log["detail"]
    assert got["tables"][0]["rounds_per_hour"] is None  # never open


def test_text_and_csv_give_the_same_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record: Record = [
        dealer_in(0, "dl-a"),
        (1, "table.opened", {}),
        *spin(2, 3, 1),
        (61, "table.closed", {"state": "closed"}),
    ]
    write(tmp_path, "RL-01", record)
    archive = tmp_path / "archive.db"
    build_archive(archive, [tmp_path / "box.db"])
    assert main(["report", "floor", "--archive", f"sqlite://{archive}", "--format", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("site,table,game,rounds,")
    assert lines[1].startswith("s1,RL-01,roulette,1,1,0,1.0,1.0,0,0.0,")
    assert main(["report", "floor", "--archive", str(archive)]) == 0
    text = capsys.readouterr().out
    assert "  s1    RL-01  roulette  1       0       1.0         1.0       0" in text
    assert "  dl-a    1       1.0    1.0       s1/RL-01" in text


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--db", "nowhere.db"], "no journal at nowhere.db"),
        (["--archive", "/nonexistent/archive.db"], "no such file"),
        (["--archive", "sqlite:relative.db"], "sqlite:///<absolute path>"),
        ([], "--archive URL or --db JOURNAL"),
        (["--db", "a.db", "--archive", "b.db"], "not both"),
        (["--archive", "x.db", "--from", "yesterday"], "--from 'yesterday': an ISO 8601"),
        (["--archive", "x.db", "--from", "2026-12-02", "--to", "2026-12-01"], "is not after"),
    ],
)
def test_bad_requests_are_one_line(
    argv: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", "floor", *argv]) == 1
    err = capsys.readouterr().err
    assert says in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_a_file_that_is_not_an_archive_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal = write(tmp_path, "RL-01", [(0, "table.opened", {})])
    assert main(["report", "floor", "--archive", str(journal)]) == 1
    err = capsys.readouterr().err
    assert "no such table: archive_events" in err and "Traceback" not in err


def test_png_draws_the_charts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    write(
        tmp_path,
        "RL-01",
        [(1, "table.opened", {}), *spin(2, 3, 1), (4, "table.halted", {"code": "device_offline"})],
    )
    png = tmp_path / "floor.png"
    build_archive(tmp_path / "archive.db", [tmp_path / "box.db"])
    assert (
        main(["report", "floor", "--archive", str(tmp_path / "archive.db"), "--png", str(png)]) == 0
    )
    assert f"charts written to {png}" in capsys.readouterr().out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_an_event_the_report_cannot_read_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, "RL-01", [(0, "table.opened", {}), (1, "table.halted", {"code": "x"})])
    archive = tmp_path / "archive.db"
    build_archive(archive, [tmp_path / "box.db"])
    db = sqlite3.connect(archive)
    db.execute(
        'UPDATE archive_events SET body = replace(body, \'"ts":"\', \'"ts":"x\') WHERE seq = 2'
    )
    db.commit()
    db.close()
    assert main(["report", "floor", "--archive", str(archive)]) == 1
    err = capsys.readouterr().err
    assert "event s1/RL-01 seq 2 cannot be read" in err and "Traceback" not in err
