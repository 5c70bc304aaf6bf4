"""The snapshot is in the chain, and `run` checks the chain's tail.

Editing the snapshot row of a stopped journal (to lift a latched halt) makes `floord
journal verify` fail, and the next start keeps the table halted with
`journal_integrity` and a `journal.integrity` event naming the break. An edited event
in the tail is found on start the same way. A version-2 journal (snapshots unchained)
still opens, and is chained.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml
from table_turns import restore, take
from test_engine_support import T0

from floord.adapters.local import Received
from floord.config.load import load_config
from floord.contract import Envelope, EventType
from floord.events import DeviceEvent
from floord.journal.audit import verify_journal
from floord.journal.chain import event_hash
from floord.journal.errors import JournalError
from floord.journal.integrity import snapshot_hash, tail_breaks, unsupported_halt
from floord.journal.readers import older_schema_problem
from floord.journal.store import DISK_FULL, Journal
from floord.processes.daemon import Daemon
from floord.table.bus import Tick

pytestmark = pytest.mark.unit

TABLE = "t1"


def config(tmp: Path) -> Path:
    (tmp / "fp.key").write_text("secret\n")
    body = {
        "site": "s1",
        "broker": {"url": "mqtt://127.0.0.1:1"},
        "journal": "journal.db",
        "operators": [{"id": "FP-1001", "role": "floorperson", "key_file": "fp.key"}],
        "tables": [
            {
                "id": TABLE,
                "game": "roulette",
                "rules": {"wheel": "single_zero"},
                "devices": [{"id": "wheel", "profile": "cammegh-ss2", "port": "/dev/null"}],
            }
        ],
    }
    path = tmp / "floord.yaml"
    path.write_text(yaml.safe_dump(body))
    return path


def start(tmp: Path, minutes: int) -> Daemon:
    """A daemon started on the journal (restored, as `run` does before anything else)."""
    daemon = Daemon(load_config(config(tmp)), clock=lambda: T0 + timedelta(minutes=minutes))
    restore(daemon)
    return daemon


def events(path: Path, stream: str = TABLE) -> list[dict[str, Any]]:
    db = sqlite3.connect(path)
    try:
        rows = db.execute(
            "SELECT body FROM events WHERE stream = ? ORDER BY seq", (stream,)
        ).fetchall()
    finally:
        db.close()
    return [json.loads(r[0]) for r in rows]


def halted_by_a_full_disk(tmp: Path) -> Path:
    """A first run whose table is halted, the halt recorded: the disk filled, then had
    room again. Returns the journal's path, the daemon stopped."""
    daemon = start(tmp, 0)
    runner = daemon.tables[TABLE].runner
    try:
        daemon.journal._db.execute("PRAGMA max_page_count = 1")  # no new page: full
        for i in range(500):
            noise = {"reason": "bad", "raw": repr(f"garbled frame {i:04d} " + "x" * 60)}
            event = DeviceEvent(EventType.DEVICE_PROTOCOL_ERROR, noise)
            take(runner, Received("wheel", event, T0 + timedelta(seconds=i), 0))
            if runner.record_failure:
                break
        assert runner.record_failure_code == DISK_FULL
        daemon.journal._db.execute("PRAGMA max_page_count = 1000000")
        take(runner, Tick(T0 + timedelta(minutes=1)))
        assert runner.record_failure is None
        assert runner.state()["state"] == "halted"
    finally:
        daemon.journal.close()
    return tmp / "journal.db"


def edit_snapshot(path: Path, *, rehash: bool) -> None:
    """Lift the latched halt in the snapshot row; with `rehash`, recompute its hash
    too, as someone who knows the scheme would."""
    db = sqlite3.connect(path)
    try:
        text, after_seq, after_hash = db.execute(
            "SELECT state, after_seq, after_hash FROM snapshots WHERE table_id = ?", (TABLE,)
        ).fetchone()
        state = json.loads(text)
        assert state["halt_reasons"]
        state["halt_reasons"], state["state"] = [], state["underlying"]
        edited = json.dumps(state, separators=(",", ":"), sort_keys=True)
        db.execute("UPDATE snapshots SET state = ? WHERE table_id = ?", (edited, TABLE))
        if rehash:
            own = snapshot_hash(TABLE, after_seq, after_hash, state)
            db.execute("UPDATE snapshots SET hash = ? WHERE table_id = ?", (own, TABLE))
        db.commit()
    finally:
        db.close()


def check_halt_stays(tmp: Path, path: Path, kinds: set[str]) -> None:
    """The next start: halted, with a reason saying why, and the break on the record."""
    daemon = start(tmp, 5)
    try:
        state = daemon.tables[TABLE].runner.state()
        assert state["state"] == "halted"
        codes = [r["code"] for r in state["halt_reasons"]]
        assert "journal_integrity" in codes and len(codes) == len(set(codes))
    finally:
        daemon.journal.close()
    record = events(path)
    [integrity] = [e for e in record if e["type"] == EventType.JOURNAL_INTEGRITY]
    assert {b["kind"] for b in integrity["data"]["breaks"]} == kinds
    assert integrity["data"]["ok"] is False and integrity["source"] == "daemon"
    assert record[-1]["type"] == EventType.TABLE_HALTED
    assert record[-1]["data"]["code"] == "journal_integrity"
    # The start recorded the break and rewrote the snapshot: the record is whole again.
    assert verify_journal(path).broken is None

    # Latched: a further start keeps it, and records the same break no second time.
    daemon = start(tmp, 10)
    try:
        assert daemon.tables[TABLE].runner.state()["state"] == "halted"
    finally:
        daemon.journal.close()
    after = events(path)
    assert [e["type"] for e in after].count(EventType.JOURNAL_INTEGRITY) == 1
    assert all(e["type"] != EventType.TABLE_RESUMED for e in after)


def test_an_edited_snapshot_fails_verify_and_the_halt_stays(tmp_path: Path) -> None:
    path = halted_by_a_full_disk(tmp_path)
    assert verify_journal(path).broken is None
    edit_snapshot(path, rehash=False)
    broken = verify_journal(path).broken
    assert broken is not None and (broken.stream, broken.kind) == (TABLE, "snapshot_edited")
    check_halt_stays(tmp_path, path, {"snapshot_edited", "halt_unsupported"})


def test_a_rehashed_snapshot_is_still_not_supported_by_the_events(tmp_path: Path) -> None:
    path = halted_by_a_full_disk(tmp_path)
    edit_snapshot(path, rehash=True)
    broken = verify_journal(path).broken
    assert broken is not None and broken.kind == "halt_unsupported"
    assert "journal_disk_full" in broken.detail
    check_halt_stays(tmp_path, path, {"halt_unsupported"})


def test_a_deleted_snapshot_row_does_not_lift_the_halt(tmp_path: Path) -> None:
    path = halted_by_a_full_disk(tmp_path)
    db = sqlite3.connect(path)
    db.execute("DELETE FROM snapshots")
    db.commit()
    db.close()
    assert verify_journal(path).broken.kind == "halt_unsupported"  # type: ignore[union-attr]
    check_halt_stays(tmp_path, path, {"halt_unsupported"})


def test_an_edited_event_in_the_tail_halts_the_table_on_start(tmp_path: Path) -> None:
    daemon = start(tmp_path, 0)
    daemon.journal.close()
    path = tmp_path / "journal.db"
    assert daemon.tables[TABLE].runner.state()["state"] == "closed"
    [first] = events(path)[:1]
    first["data"]["version"] = "0.0.0-edited"
    db = sqlite3.connect(path)
    db.execute(
        "UPDATE events SET body = ? WHERE stream = ? AND seq = 1", (json.dumps(first), TABLE)
    )
    db.commit()
    db.close()

    daemon = start(tmp_path, 5)
    try:
        state = daemon.tables[TABLE].runner.state()
        assert state["state"] == "halted"
        [reason] = state["halt_reasons"]
        assert reason["code"] == "journal_integrity" and "seq 1: edited" in reason["detail"]
    finally:
        daemon.journal.close()
    [integrity] = [e for e in events(path) if e["type"] == EventType.JOURNAL_INTEGRITY]
    assert integrity["data"]["breaks"] == [
        {
            "stream": TABLE,
            "seq": 1,
            "kind": "edited",
            "detail": "its content no longer hashes to its own `hash`",
        }
    ]
    # The break stays in the chain: the full verify still names it.
    assert verify_journal(path).broken.kind == "edited"  # type: ignore[union-attr]


def test_a_whole_record_starts_with_no_integrity_event(tmp_path: Path) -> None:
    start(tmp_path, 0).journal.close()
    start(tmp_path, 5).journal.close()
    record = events(tmp_path / "journal.db")
    assert [e["type"] for e in record].count(EventType.JOURNAL_INTEGRITY) == 0
    assert all(e["type"] != EventType.TABLE_HALTED for e in record)


def test_the_tail_walk_names_every_break_not_only_the_first(tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    journal = Journal(path)
    for _ in range(8):
        journal.append_many(TABLE, [_builder(TABLE)], snapshot=(TABLE, {"n": 1}))
    journal.close()
    db = sqlite3.connect(path)
    for seq in (3, 6):
        body = json.loads(db.execute("SELECT body FROM events WHERE seq = ?", (seq,)).fetchone()[0])
        body["data"]["edited"] = True
        db.execute("UPDATE events SET body = ? WHERE seq = ?", (json.dumps(body), seq))
    db.commit()
    found = tail_breaks(db, [TABLE], last=64)
    window = tail_breaks(db, [TABLE], last=3)  # seq 5..8: seq 5 is the anchor
    db.close()
    assert [(b.seq, b.kind) for b in found] == [(3, "edited"), (6, "edited")]
    assert [(b.seq, b.kind) for b in window] == [(6, "edited")]


def _builder(stream: str) -> Callable[[int], Envelope]:
    def build(seq: int) -> Envelope:
        ts = "2024-03-05T15:00:00.000Z"
        data = {"n": seq}
        return Envelope(
            site="s1",
            table=stream,
            seq=seq,
            ts=ts,
            type="daemon.started",
            source="daemon",
            data=data,
        )

    return build


def test_a_version_2_journal_opens_and_its_snapshot_is_chained(tmp_path: Path) -> None:
    path = halted_by_a_full_disk(tmp_path)
    db = sqlite3.connect(path)
    for column in ("hash", "after_hash", "after_seq"):  # back to the version-2 layout
        db.execute(f"ALTER TABLE snapshots DROP COLUMN {column}")
    db.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
    db.commit()
    db.close()
    assert verify_journal(path).broken is None  # events checked; snapshots not chained yet

    daemon = start(tmp_path, 5)
    try:
        assert daemon.tables[TABLE].runner.state()["state"] == "halted"
    finally:
        daemon.journal.close()
    db = sqlite3.connect(path)
    meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
    db.close()
    assert meta["schema_version"] == "3"
    assert json.loads(meta["snapshots_migrated"]) == {"from_version": 2, "snapshots": 1}
    assert verify_journal(path).broken is None
    assert all(e["type"] != EventType.JOURNAL_INTEGRITY for e in events(path))
    assert event_hash(events(path)[-1]) == events(path)[-1]["hash"]


@pytest.mark.parametrize(
    ("claimed", "columns"),
    [("1", "streams.last_hash, snapshots.after_seq"), ("2", "(snapshots.after_seq")],
)
def test_a_version_edited_back_is_refused_by_name_not_half_migrated(
    tmp_path: Path, claimed: str, columns: str
) -> None:
    """A version-3 file whose recorded version was set back: chaining it again would
    fail on SQL's "duplicate column"; the reader `check` asks and the journal's open
    name the columns that give it away, and the file is left as it was."""
    path = halted_by_a_full_disk(tmp_path)
    db = sqlite3.connect(path)
    db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (claimed,))
    db.commit()
    db.close()
    found = older_schema_problem(path)
    assert found is not None
    assert f"schema version {claimed} is recorded" in found and columns in found
    with pytest.raises(JournalError, match="its version was edited"):
        Journal(path)
    assert older_schema_problem(path) == found  # nothing was chained


def test_a_true_version_2_file_has_no_shape_problem(tmp_path: Path) -> None:
    path = halted_by_a_full_disk(tmp_path)
    db = sqlite3.connect(path)
    for column in ("hash", "after_hash", "after_seq"):
        db.execute(f"ALTER TABLE snapshots DROP COLUMN {column}")
    db.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
    db.commit()
    db.close()
    assert older_schema_problem(path) is None


def test_a_rebuilt_chain_verifies_whole(tmp_path: Path) -> None:
    """What the chain cannot do (docs/journal.md): someone who edits an event and
    recomputes every hash after it, the head and the snapshot, passes `verify`. Only a
    witness outside the file (the head seen on MQTT) shows the change."""
    start(tmp_path, 0).journal.close()
    path = tmp_path / "journal.db"
    witness = events(path)[-1]["hash"]  # what a subscriber saw
    record = events(path)
    record[0]["data"]["version"] = "0.0.0-forged"
    db = sqlite3.connect(path)
    prev = record[0]["prev"]
    for body in record:
        body["prev"] = prev
        body["hash"] = prev = event_hash(body)
        db.execute(
            "UPDATE events SET body = ? WHERE stream = ? AND seq = ?",
            (json.dumps(body), TABLE, body["seq"]),
        )
    db.execute("UPDATE streams SET last_hash = ? WHERE stream = ?", (prev, TABLE))
    text, after_seq = db.execute("SELECT state, after_seq FROM snapshots").fetchone()
    own = snapshot_hash(TABLE, after_seq, prev, json.loads(text))
    db.execute("UPDATE snapshots SET after_hash = ?, hash = ?", (prev, own))
    db.commit()
    db.close()
    assert verify_journal(path).broken is None
    assert events(path)[-1]["hash"] != witness


@pytest.mark.parametrize(
    "reasons", ["device_offline", 3, ["device_offline"], {"code": "x"}, [{"code": ["x"]}]]
)
def test_a_latched_halt_whose_reasons_cannot_be_read_is_a_break(reasons: Any) -> None:
    """A `table.halted` floord never writes (the file edited and chained again): nothing
    shows the snapshot holds its reasons, so it is a break, never a crash."""
    latch = json.dumps({"seq": 9, "type": "table.halted", "data": {"reasons": reasons}})
    broken = unsupported_halt(TABLE, {"halt_reasons": []}, latch)
    assert broken is not None
    assert (broken.seq, broken.kind) == (9, "unreadable")


def test_a_latch_not_an_event_is_a_break_and_unreadable_held_reasons_hold_none() -> None:
    for latch in ("{not json", "null", "[" * 100_000):
        broken = unsupported_halt(TABLE, None, latch)
        assert broken is not None and broken.kind == "unreadable"
    halted = {"seq": 4, "type": "table.halted", "data": {"reasons": [{"code": "tilt"}]}}
    for held_badly in ("tilt", [{"code": "tilt", "device": ["wheel"]}]):
        broken = unsupported_halt(TABLE, {"halt_reasons": held_badly}, json.dumps(halted))
        assert broken is not None and broken.kind == "halt_unsupported"
    held = {"halt_reasons": [{"code": "tilt"}]}
    assert unsupported_halt(TABLE, held, json.dumps(halted)) is None
