"""`floord report wheel` and `floord report dice` read from the archive give the numbers
they give from the box's journal, over the same events, and pick the table's site.

The archive is built from the box's journal and a second box's (another site, the same
table id: the archive holds many boxes), as `floord archive` stores them.
"""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest
from archive_fixture import build_archive
from test_analytics_report import _config, _journal
from test_surveillance_dice_live import TABLE, LiveCraps, _play, write_config

from floord.cli.dice_report import table_dice_report
from floord.cli.floor_report import when
from floord.cli.main import main
from floord.cli.report import Span, table_report
from floord.engine.roulette.layout import SINGLE_ZERO_ORDER

pytestmark = pytest.mark.unit


def test_a_wheel_report_from_the_archive_is_the_one_from_the_journal(tmp_path: Path) -> None:
    rng = random.Random(3)
    _journal(tmp_path, [rng.choice(SINGLE_ZERO_ORDER) for _ in range(800)])
    other = tmp_path / "other"
    other.mkdir()
    _journal(other, ["17"] * 50)  # another box: the same table id, at another site below
    archive = tmp_path / "archive.db"
    build_archive(archive, [tmp_path / "journal.db"])
    # The other box's events as another site's: rewritten before they are archived.
    build_archive(tmp_path / "other.db", [other / "journal.db"])
    db = sqlite3.connect(archive)
    db.execute("ATTACH ? AS o", (str(tmp_path / "other.db"),))
    db.execute(
        "INSERT INTO archive_events SELECT 'casino-2', stream, epoch, seq, table_id, device, "
        "ts, type, source, round, rule, hash, prev, replace(body, '\"casino-1\"', "
        "'\"casino-2\"'), stored_at FROM o.archive_events"
    )
    db.commit()
    db.close()

    config = _config(tmp_path)
    start, end = "2024-05-31T13:00:00Z", "2024-05-31T22:00:00Z"
    for span in (Span(), Span(start=when(start, "--from"), end=when(end, "--to"))):
        journal = table_report(config, "RL-01", None, span=span)
        archived = table_report(
            config, "RL-01", None, span=Span(f"sqlite://{archive}", None, span.start, span.end)
        )
        assert archived == journal
        assert journal["results"] == (800 if span.start is None else 540)
    other_site = table_report(config, "RL-01", None, span=Span(str(archive), "casino-2"))
    assert other_site["results"] == 50


def test_a_dice_report_from_the_archive_is_the_one_from_the_journal(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    table = LiveCraps(config)
    try:
        table.open()
        _play(table, random.Random(5), 260, loaded=True)
    finally:
        table.stop()
    archive = tmp_path / "archive.db"
    build_archive(archive, [tmp_path / "journal.db"])
    journal = table_dice_report(config, TABLE, None)
    archived = table_dice_report(config, TABLE, None, span=Span(str(archive)))
    assert archived == journal and journal["rolls"] == 260 and journal["alerts"]


def test_the_command_line_takes_the_archive_and_refuses_what_does_not_fit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _journal(tmp_path, ["1", "2", "3"])
    archive = tmp_path / "archive.db"
    build_archive(archive, [tmp_path / "journal.db"])
    config = str(_config(tmp_path))
    base = ["report", "wheel", "-c", config, "--table", "RL-01"]
    assert main([*base, "--archive", str(archive), "--to", "2024-06-01"]) == 0
    assert "single_zero wheel, 3 results" in capsys.readouterr().out
    for extra, says in (
        (["--since", "2024-05-31T12:00:00Z", "--from", "2024-05-31"], "--since or --from"),
        (["--site", "casino-1"], "--site reads the archive"),
        (["--archive", str(tmp_path / "none.db")], "no such file"),
    ):
        assert main([*base, *extra]) == 1
        err = capsys.readouterr().err
        assert says in err and "Traceback" not in err
