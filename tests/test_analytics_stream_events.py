"""What every report that reads a journal says of a file it cannot use: the same
ValueError, naming the file, the stream and the row (`floord.analytics.stream_events`)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from floord.analytics.dice_report import read_rolls, rolls_of
from floord.analytics.floor_report.sources import checked_events, journal_events
from floord.analytics.report import read_results, results_of
from floord.analytics.shuffle_report import read_shoe_events
from floord.analytics.stream_events import stream_events
from floord.contract import Envelope
from floord.journal.readers import stream_rows
from floord.journal.store import Journal

pytestmark = pytest.mark.unit

TABLE = "RL-01"


def build(seq: int) -> Envelope:
    ts = "2026-12-07T10:00:00.000Z"
    return Envelope("casino-1", TABLE, seq, ts, "table.opened", "engine", {})


def journal_of(tmp_path: Path, events: int) -> Path:
    path = tmp_path / "journal.db"
    journal = Journal(path)
    try:
        for _ in range(events):
            journal.append(TABLE, build)
    finally:
        journal.close()
    return path


def stored_as(path: Path, seq: int, body: str) -> None:
    """The row `seq` of the table's stream edited in the file (as a damaged disk would)."""
    db = sqlite3.connect(path)
    try:
        db.execute("UPDATE events SET body = ? WHERE stream = ? AND seq = ?", (body, TABLE, seq))
        db.commit()
    finally:
        db.close()


READERS: list[Callable[[Path], Any]] = [
    lambda path: list(stream_events(path, TABLE)),
    lambda path: read_results(path, TABLE, None),
    lambda path: read_rolls(path, TABLE, None),
    lambda path: read_shoe_events(path, TABLE),
    lambda path: list(journal_events([path])),
]
# The type of event each reader reads (the whole stream's readers: any).
READS = ["table.opened", "roulette.result", "craps.roll", "shoe.card_drawn", "table.opened"]


def test_the_events_come_in_seq_order_each_with_its_seq(tmp_path: Path) -> None:
    events = list(stream_events(journal_of(tmp_path, 3), TABLE))
    assert [seq for seq, _ in events] == [1, 2, 3]
    assert [event["seq"] for _, event in events] == [1, 2, 3]
    assert {event["type"] for _, event in events} == {"table.opened"}
    assert list(stream_events(tmp_path / "journal.db", "BJ-01")) == []  # a stream with no events


@pytest.mark.parametrize("read", READERS)
def test_a_missing_file_is_named(tmp_path: Path, read: Callable[[Path], Any]) -> None:
    with pytest.raises(ValueError) as refused:
        read(tmp_path / "nowhere.db")
    assert str(refused.value) == f"no journal at {tmp_path / 'nowhere.db'}"


@pytest.mark.parametrize("read", READERS)
@pytest.mark.parametrize(
    ("body", "said"),
    [("{not json", "is not JSON"), ("[" * 100_000, "is not JSON"), ("[1, 2]", "is not an event")],
)
def test_a_damaged_row_is_named_by_its_file_stream_and_seq(
    tmp_path: Path, read: Callable[[Path], Any], body: str, said: str
) -> None:
    path = journal_of(tmp_path, 3)
    stored_as(path, 2, body)
    with pytest.raises(ValueError) as refused:
        read(path)
    assert str(refused.value) == f"journal {path}: {TABLE!r} seq 2 {said}"


@pytest.mark.parametrize("read", READERS)
def test_a_file_that_is_no_journal_is_a_line_not_a_traceback(
    tmp_path: Path, read: Callable[[Path], Any]
) -> None:
    path = tmp_path / "journal.db"
    path.write_bytes(b"not a database at all, " * 100)
    with pytest.raises(ValueError) as refused:
        read(path)
    assert str(path) in str(refused.value)


def test_a_reader_of_one_kind_of_event_reads_only_those_in_order_across_batches(
    tmp_path: Path,
) -> None:
    """The reports' and the live tests' readers ask SQLite for their kind of event only:
    a table's record of months is mostly other events, which they need not decode (a
    damaged one among them is `verify`'s to name, not theirs)."""
    path = journal_of(tmp_path, 1200)
    for seq in range(3, 1201, 2):
        stored_as(path, seq, json.dumps(event_with(seq=seq, **ROULETTE)))
    stored_as(path, 2, json.dumps(event_with(seq=2, data=[1])))  # not a result: not read
    found = list(stream_events(path, TABLE, ["roulette.result"]))
    assert [seq for seq, _ in found] == list(range(3, 1201, 2))
    assert {event["type"] for _, event in found} == {"roulette.result"}
    assert [r.seq for r in read_results(path, TABLE, None)] == list(range(3, 1201, 2))
    assert list(stream_events(path, TABLE, [])) == []


def test_a_reader_stopped_half_way_leaves_no_connection_open(tmp_path: Path) -> None:
    """Each batch is read on a connection closed before its rows are handed on: a reader
    that stops at a damaged row holds nothing a thread could not close."""
    path = journal_of(tmp_path, 600)
    rows = stream_rows(path, TABLE, ["table.opened"])
    assert next(rows)[0] == 1
    db = sqlite3.connect(path)
    try:
        db.execute("PRAGMA journal_mode=DELETE")  # refused while another connection reads
    finally:
        db.close()
    rows.close()


def event_with(**fields: Any) -> dict[str, Any]:
    body = build(2).to_dict()
    body.update(fields)
    return body


@pytest.mark.parametrize(("read", "etype"), list(zip(READERS, READS, strict=True)))
@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({"data": [1]}, "its data is a list, not an object"),
        ({"ts": 7}, "its ts is a number"),
        ({"type": None}, "its type is missing"),
        ({"source": ["shoe"]}, "its source is a list"),
        ({"seq": "2"}, "its seq is text, not an integer"),
        ({"site": 1}, "its site is a number"),
        ({"rule": 5}, "its rule is a number"),
        ({"round": True}, "its round is true or false"),
    ],
)
def test_an_event_with_a_field_of_the_wrong_type_is_named(
    tmp_path: Path, read: Callable[[Path], Any], etype: str, fields: dict[str, Any], said: str
) -> None:
    path = journal_of(tmp_path, 3)
    stored_as(path, 2, json.dumps(event_with(**{"type": etype, **fields})))
    with pytest.raises(ValueError) as refused:
        read(path)
    assert str(refused.value) == f"journal {path}: {TABLE!r} seq 2 is not an event: {said}"


ROULETTE = {"type": "roulette.result", "data": {"number": "17", "colour": "black"}}
ROLL = {"type": "craps.roll", "data": {"faces": [3, 4]}}


@pytest.mark.parametrize(
    ("report", "event"),
    [
        (results_of, event_with(**{**ROULETTE, "data": None})),
        (results_of, event_with(**{**ROULETTE, "data": ["17"]})),
        (results_of, event_with(**{**ROULETTE, "ts": None})),
        (results_of, event_with(type="bigsix.result", data={"symbol": "1", "section": 1e999})),
        (rolls_of, event_with(**{**ROLL, "data": "3 4"})),
        (rolls_of, event_with(**{**ROLL, "data": {"faces": [1e999, 4]}})),
        (rolls_of, event_with(**{**ROLL, "seq": 1e999})),
    ],
)
def test_a_report_of_an_archives_events_names_a_damaged_one(
    report: Callable[..., Any], event: dict[str, Any]
) -> None:
    """An archive's rows reach the reports as decoded objects (`floord.archive.reader`):
    a field of the wrong type, or a number JSON reads as infinity, is the same one line."""
    with pytest.raises(ValueError) as refused:
        report([event], None, None, "archive: casino-1/RL-01")
    assert str(refused.value).startswith("archive: casino-1/RL-01")


def test_an_archives_events_for_the_floor_report_are_checked_as_a_journals() -> None:
    good = event_with(type="procedure.violation", data={"what": "spin_while_closed"})
    assert list(checked_events([good], "archive sqlite:///a.db:")) == [good]
    with pytest.raises(ValueError) as refused:
        list(checked_events([good, {**good, "seq": 3, "rule": 5}], "archive sqlite:///a.db:"))
    assert str(refused.value) == (
        "archive sqlite:///a.db: casino-1/RL-01 seq 3 is not an event: its rule is a number"
    )
