"""The journal's index of latched halts (`events_latches`): the start check finds a
table's last `table.halted` or `table.resumed` through it, in a few pages, where it read
the table's whole stream back (a month of a busy wheel: about 0.3 s a table, at every
start). An index made again under another condition is not taken; one whose entries do
not agree with the events is found by `floord journal verify`, which reads the events.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from test_journal_integrity import (
    TABLE,
    check_halt_stays,
    edit_snapshot,
    halted_by_a_full_disk,
)

from floord.contract import EventType
from floord.journal.audit import verify_journal
from floord.journal.integrity import last_latch, latch_index_kept
from floord.journal.schema import LATCH_INDEX, LATCH_INDEX_SQL
from floord.journal.store import Journal

pytestmark = pytest.mark.unit

SCAN = "SCAN"


def _read(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)


def _remade(path: Path, condition: str, *, claim_floords: bool = False) -> None:
    """The index dropped and made again under `condition`; with `claim_floords`, its
    recorded text then set to floord's own (what an edit of the file's pages can do)."""
    db = sqlite3.connect(path)
    db.execute(f"DROP INDEX {LATCH_INDEX}")
    db.execute(f"CREATE INDEX {LATCH_INDEX} ON events (stream, seq) WHERE {condition}")
    if claim_floords:
        db.execute("PRAGMA writable_schema = ON")
        db.execute(
            "UPDATE sqlite_master SET sql = ? WHERE name = ?",
            (LATCH_INDEX_SQL.replace(" IF NOT EXISTS", "", 1), LATCH_INDEX),
        )
        db.execute("PRAGMA writable_schema = OFF")
    db.commit()
    db.close()


def test_the_last_latch_is_read_through_the_index_as_the_events_give_it(tmp_path: Path) -> None:
    path = halted_by_a_full_disk(tmp_path)
    db = _read(path)
    try:
        assert latch_index_kept(db)
        latch = last_latch(db, TABLE)
        assert latch is not None and json.loads(latch)["type"] == EventType.TABLE_HALTED
        assert latch == last_latch(db, TABLE, indexed=False)
        plan = db.execute(
            "EXPLAIN QUERY PLAN SELECT body FROM events INDEXED BY events_latches "
            f"WHERE stream = ? AND {LATCH_INDEX_SQL.split(' WHERE ', 1)[1]} "
            "ORDER BY seq DESC LIMIT 1",
            (TABLE,),
        ).fetchall()
        assert LATCH_INDEX in str(plan) and SCAN not in str(plan)
    finally:
        db.close()


def test_an_older_file_gains_the_index_when_floord_opens_it(tmp_path: Path) -> None:
    path = halted_by_a_full_disk(tmp_path)
    db = sqlite3.connect(path)
    db.execute(f"DROP INDEX {LATCH_INDEX}")
    db.commit()
    db.close()
    db = _read(path)
    try:
        assert not latch_index_kept(db)
        assert json.loads(last_latch(db, TABLE) or "{}")["type"] == EventType.TABLE_HALTED
    finally:
        db.close()
    Journal(path).close()
    db = _read(path)
    try:
        assert latch_index_kept(db)
    finally:
        db.close()


def test_an_index_made_again_under_another_condition_hides_no_halt(tmp_path: Path) -> None:
    """Dropped and made again empty (`WHERE 0`), with the snapshot's halt lifted and its
    hash recomputed: the start reads the events instead, and the halt stays."""
    path = halted_by_a_full_disk(tmp_path)
    _remade(path, "0")
    edit_snapshot(path, rehash=True)
    db = _read(path)
    try:
        assert not latch_index_kept(db)
    finally:
        db.close()
    check_halt_stays(tmp_path, path, {"halt_unsupported"})


def test_an_index_whose_entries_hide_the_halt_is_found_by_verify(tmp_path: Path) -> None:
    """Its recorded text floord's, its entries none (what only an edit of the file's
    pages makes): `verify` reads every latch from the events and names the index."""
    path = halted_by_a_full_disk(tmp_path)
    _remade(path, "0", claim_floords=True)
    edit_snapshot(path, rehash=True)
    db = _read(path)
    try:
        assert latch_index_kept(db) and last_latch(db, TABLE) is None
    finally:
        db.close()
    broken = verify_journal(path).broken
    assert broken is not None and (broken.stream, broken.kind) == (TABLE, "latch_index_mismatch")
    assert "index was edited" in broken.detail
