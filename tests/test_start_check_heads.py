"""A stream's head in `streams`, or a row's seq, that floord never writes: the start check
names it and the table halts (`journal_integrity`), and `verify` names it too, where
both used to crash or to let the table play until its next append failed."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from test_journal_integrity import TABLE, start

from floord.contract import Envelope
from floord.journal.audit import verify_journal
from floord.journal.store import Journal

pytestmark = pytest.mark.unit

DEVICE = f"{TABLE}/devices/wheel"
INTEGRITY, FAILURE = "journal_integrity", "journal_failure"


def played(tmp: Path) -> Path:
    """A journal of two starts, and a device event on the wheel's stream."""
    start(tmp, 0).journal.close()
    start(tmp, 1).journal.close()
    path = tmp / "journal.db"
    journal = Journal(path)
    try:
        ts = "2026-12-07T10:00:00.000000Z"
        journal.append(
            DEVICE, lambda seq: Envelope("s1", TABLE, seq, ts, "device.online", "wheel", {})
        )
    finally:
        journal.close()
    return path


@pytest.mark.parametrize(
    ("damage", "kind", "code"),
    [
        (f"DELETE FROM streams WHERE stream = '{DEVICE}'", "inserted", INTEGRITY),
        (
            f"UPDATE streams SET last_hash = NULL WHERE stream = '{DEVICE}'",
            "head_mismatch",
            INTEGRITY,
        ),
        (
            f"UPDATE events SET seq = 'abc' WHERE stream = '{TABLE}' AND seq = 2",
            "unreadable",
            INTEGRITY,
        ),
        # The table's own head: the record of the break cannot be appended after it either,
        # so the table halts for the journal failing, naming the head.
        (f"UPDATE streams SET last_seq = 'abc' WHERE stream = '{TABLE}'", "unreadable", FAILURE),
        (f"UPDATE streams SET last_seq = -3 WHERE stream = '{TABLE}'", "unreadable", FAILURE),
    ],
)
def test_a_head_or_seq_floord_never_writes_halts_the_table_and_fails_verify(
    tmp_path: Path, damage: str, kind: str, code: str
) -> None:
    path = played(tmp_path)
    db = sqlite3.connect(path)
    try:
        db.execute(damage)
        db.commit()
    finally:
        db.close()

    broken = verify_journal(path).broken
    assert broken is not None and broken.kind == kind
    daemon = start(tmp_path, 5)
    try:
        state = daemon.tables[TABLE].runner.state()
    finally:
        daemon.journal.close()
    assert state["state"] == "halted"
    [reason] = state["halt_reasons"]
    assert reason["code"] == code
    assert (kind if code == INTEGRITY else "has a head whose seq is") in reason["detail"]


def test_a_deleted_snapshot_of_a_table_that_played_halts_it(tmp_path: Path) -> None:
    """Without its snapshot a table starts afresh, its round count back at 1 and its
    round ids used again: the start check names it, unless the state was retired."""
    path = played(tmp_path)
    db = sqlite3.connect(path)
    try:
        db.execute("DELETE FROM snapshots")
        db.commit()
    finally:
        db.close()
    daemon = start(tmp_path, 5)
    try:
        [reason] = daemon.tables[TABLE].runner.state()["halt_reasons"]
    finally:
        daemon.journal.close()
    assert reason["code"] == INTEGRITY and "snapshot_missing" in reason["detail"]


def test_a_journal_with_events_and_no_schema_version_is_refused_not_made_anew(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from test_journal_integrity import config

    from floord.cli.main import main
    from floord.journal.errors import JournalError

    path = played(tmp_path)
    db = sqlite3.connect(path)
    try:
        db.execute("DELETE FROM meta WHERE key = 'schema_version'")
        db.commit()
    finally:
        db.close()
    assert main(["check", "-c", str(config(tmp_path))]) == 1
    assert "it holds events but no version" in capsys.readouterr().out
    with pytest.raises(JournalError, match="holds events but no schema version"):
        Journal(path)
