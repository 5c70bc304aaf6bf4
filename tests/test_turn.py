"""A table's turn (`floord.table.turn`) and its recorder (`floord.table.recorder`): one
frozen value a transaction records; the journal numbers the turn's device rows inside
it and the recorder reports each number back on its row; a refused turn leaves its rows
on no stream, named with `device_seq` 0, while a row an earlier turn recorded keeps its
number when its input is named."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

import pytest
import structlog
from test_engine_support import WHEEL, make_table
from test_journal_disk_full import FakeLink

from floord.adapters.device_rows import DeviceRows, Row
from floord.contract import Envelope, EventType
from floord.engine.core.types import Decision
from floord.journal.store import DISK_FULL, Journal
from floord.table.engine_state import EngineState
from floord.table.recorder import Recorder
from floord.table.turn import Step, Turn
from floord.table.unrecorded import Unrecorded

pytestmark = pytest.mark.unit

TS = "2026-01-01T00:00:00.000000Z"


def _row(rows: DeviceRows, n: int, pad: int = 0) -> Row:
    def build(seq: int) -> Envelope:
        return Envelope(site="s1", table="R01", seq=seq, ts=TS, type="device.protocol_error",
                        source=WHEEL, data={"reason": f"bad {n}", "raw": "x" * pad})  # fmt: skip

    return rows.row(build)


def _turn(live: EngineState, rows: tuple[Row, ...], n: int) -> Turn:
    named = {"source": WHEEL, "type": "device.protocol_error", "ts": TS, "device_seq": 0}
    decision = Decision(EventType.DEVICE_PROTOCOL_ERROR, {"reason": f"bad {n}"}, source=WHEEL)
    steps = tuple(Step((decision,), TS, named, row=row) for row in rows)
    return Turn(inputs=(), steps=steps, snapshot=live.snapshot(), rows=rows)


def test_a_turn_is_a_frozen_value() -> None:
    live = EngineState(make_table().engine, None)
    turn = _turn(live, (), 1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        turn.command_id = ("c1", TS)  # type: ignore[misc]


def test_the_journal_numbers_a_turns_rows_and_the_recorder_reports_them_back(
    tmp_path: Path,
) -> None:
    table = make_table()
    journal = Journal(tmp_path / "journal.db")
    live = EngineState(table.engine, None)
    link = FakeLink()
    recorder = Recorder(site="s1", table=table.engine.table_id, journal=journal, live=live,
                        committed=link, clock=lambda: table.clock.now,
                        log=structlog.get_logger())  # fmt: skip
    wheel = DeviceRows(f"{table.engine.table_id}/devices/{WHEEL}", structlog.get_logger())
    other = DeviceRows(f"{table.engine.table_id}/devices/other", structlog.get_logger())
    try:
        first = (_row(wheel, 1), _row(other, 2), _row(wheel, 3))
        written = asyncio.run(recorder.commit(_turn(live, first, 1)))
        assert len(written) == 3 and link.notified == 1
        assert [row.seq for row in first] == [1, 1, 2]  # each stream numbered on its own
        # The next turn refused: its rows are on no stream, and a halt names them with 0.
        journal._db.execute("PRAGMA max_page_count = 1")
        refused = (_row(wheel, 4, pad=3000),)  # needs a page the journal cannot have
        assert asyncio.run(recorder.commit(_turn(live, refused, 4))) == []
        assert recorder.failure_code == DISK_FULL and refused[0].seq == 0
        assert journal.last_seq(wheel.stream) == 2
        journal._db.execute("PRAGMA max_page_count = 1000000")
        again = (_row(wheel, 5),)
        asyncio.run(recorder.commit(_turn(live, again, 5)))
        assert again[0].seq == 3 and recorder.failure is None  # from the stream's head
    finally:
        journal.close()


def test_an_input_is_named_by_its_rows_number_as_it_stands() -> None:
    rows = DeviceRows("R01/devices/wheel", structlog.get_logger())
    row = _row(rows, 1)
    noted = Unrecorded()
    described = {"source": WHEEL, "type": "wheel.game_started", "ts": TS, "device_seq": 0}
    noted.note(described, row)
    noted.note({**described, "device_seq": 9})  # a remote device's, numbered by its adapter
    assert [n["device_seq"] for n in noted.named] == [0, 9]
    row.seq = 41  # the journal's number, reported back once its commit is durable
    assert [n["device_seq"] for n in noted.named] == [41, 9]
