"""The start check against a forger who rewrites events in the tail instead of rebuilding
the chain: a `journal.integrity` event is what excuses a break already known, so one
made by editing an event must not excuse anything (`floord.table.start_check`)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from test_journal_integrity import TABLE, edit_snapshot, events, halted_by_a_full_disk, start

from floord.contract import EventType

pytestmark = pytest.mark.unit


def rewrite(path: Path, seq: int, body: dict[str, Any]) -> None:
    """The stored body of the table's event `seq` replaced, its stored `hash` kept: an
    edit, not a rebuilt chain."""
    db = sqlite3.connect(path)
    try:
        db.execute(
            "UPDATE events SET body = ? WHERE stream = ? AND seq = ?",
            (json.dumps(body, separators=(",", ":")), TABLE, seq),
        )
        db.commit()
    finally:
        db.close()


def naming(event: dict[str, Any], breaks: Any) -> dict[str, Any]:
    """`event` turned into a `journal.integrity` event naming `breaks`, its hash kept."""
    return {
        **event,
        "type": EventType.JOURNAL_INTEGRITY,
        "source": "daemon",
        "data": {"ok": False, "breaks": breaks, "more": 0},
    }


def halt_codes(tmp: Path, minutes: int) -> list[str]:
    daemon = start(tmp, minutes)
    try:
        state = daemon.tables[TABLE].runner.state()
    finally:
        daemon.journal.close()
    return [r["code"] for r in state["halt_reasons"]] if state["state"] == "halted" else []


def test_a_halt_event_edited_into_one_that_names_itself_does_not_lift_the_halt(
    tmp_path: Path,
) -> None:
    path = halted_by_a_full_disk(tmp_path)
    halted = [e for e in events(path) if e["type"] == EventType.TABLE_HALTED][-1]
    rewrite(
        path,
        halted["seq"],
        naming(halted, [{"stream": TABLE, "seq": halted["seq"], "kind": "edited"}]),
    )
    edit_snapshot(path, rehash=True)  # the snapshot's halt lifted and hashed again

    assert "journal_integrity" in halt_codes(tmp_path, 5)
    integrity = [e for e in events(path) if e["type"] == EventType.JOURNAL_INTEGRITY]
    [recorded] = [e for e in integrity if e["seq"] > halted["seq"]]  # not the forged one
    assert {"stream": TABLE, "seq": halted["seq"], "kind": "edited"}.items() <= (
        recorded["data"]["breaks"][0].items()
    )


def test_an_event_naming_a_later_break_does_not_excuse_it(tmp_path: Path) -> None:
    """Two events edited: the earlier made into a record naming the later one."""
    start(tmp_path, 0).journal.close()
    start(tmp_path, 1).journal.close()
    path = tmp_path / "journal.db"
    first, second = events(path)[:2]
    rewrite(path, 2, {**second, "data": {**second["data"], "edited": True}})
    rewrite(path, 1, naming(first, [{"stream": TABLE, "seq": 2, "kind": "edited"}]))

    assert halt_codes(tmp_path, 5) == ["journal_integrity"]
    [recorded] = [e for e in events(path)[2:] if e["type"] == EventType.JOURNAL_INTEGRITY]
    assert sorted(b["seq"] for b in recorded["data"]["breaks"]) == [1, 2]


@pytest.mark.parametrize(
    "breaks",
    [5, "x", [5], [{"stream": TABLE, "seq": "abc", "kind": "edited"}], [{"seq": [1]}]],
)
def test_a_record_of_breaks_of_the_wrong_shape_names_none_and_the_start_goes_on(
    tmp_path: Path, breaks: Any
) -> None:
    """An edited record of breaks (it no longer hashes) is a break itself: the table
    halts on it, and nothing it holds is read as a break already known."""
    daemon = start(tmp_path, 0)
    daemon.journal.close()
    path = tmp_path / "journal.db"
    [first] = events(path)[:1]
    rewrite(path, 1, naming(first, breaks))

    assert halt_codes(tmp_path, 5) == ["journal_integrity"]
