"""The journal's hash chain: built on append, broken links named, pruning, migration."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import yaml

from floord.config.load import ConfigError, load_config
from floord.contract import Envelope, format_ts
from floord.journal.audit import AuditError, verify_journal
from floord.journal.chain import (
    Anchor,
    canonical_bytes,
    event_hash,
    genesis,
    verify_bodies,
)
from floord.journal.store import Journal
from floord.processes.daemon import Daemon

pytestmark = pytest.mark.unit

T0 = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
TABLE = "t1"
DEVICE = "t1/devices/wheel"


def builder(stream: str, minute: int = 0, note: str = "x"):
    def build(seq: int) -> Envelope:
        return Envelope(
            site="s1",
            table="t1",
            seq=seq,
            ts=format_ts(T0 + timedelta(minutes=minute)),
            type="wheel.number",
            source=stream,
            data={"note": note, "é": "ü"},
        )

    return build


def write(path: Path, count: int = 6) -> None:
    """`count` events on the table stream and on a device stream, a minute apart."""
    journal = Journal(path)
    try:
        for i in range(count):
            journal.append(TABLE, builder(TABLE, i, f"t{i}"))
            journal.append(DEVICE, builder("wheel", i, f"d{i}"))
    finally:
        journal.close()


def bodies(path: Path, stream: str) -> dict[int, dict]:
    db = sqlite3.connect(path)
    try:
        rows = db.execute("SELECT seq, body FROM events WHERE stream = ?", (stream,)).fetchall()
    finally:
        db.close()
    return {seq: json.loads(body) for seq, body in rows}


def tamper(path: Path, *statements: tuple[str, tuple]) -> None:
    db = sqlite3.connect(path, isolation_level=None)
    try:
        for sql, params in statements:
            db.execute(sql, params)
    finally:
        db.close()


def dumps(body: dict) -> str:
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False)


def rechained(body: dict, **changes) -> str:
    """A body changed and re-hashed, as a forger who knows the scheme would do."""
    new = {**body, **changes}
    new.pop("hash")
    new["hash"] = event_hash(new)
    return dumps(new)


@pytest.fixture
def path(tmp_path: Path) -> Path:
    p = tmp_path / "floord.db"
    write(p)
    return p


def test_canonical_form_sorts_keys_and_leaves_out_the_hash() -> None:
    body = {"b": 1, "a": "é", "hash": "ignored", "c": [1, {"z": 0, "y": None}]}
    assert canonical_bytes(body) == '{"a":"é","b":1,"c":[1,{"y":null,"z":0}]}'.encode()
    assert event_hash(body) == event_hash({k: v for k, v in body.items() if k != "hash"})
    assert genesis("s1", "t1") != genesis("s1", "t2") != genesis("s2", "t1")
    assert len(genesis("s1", "t1")) == 64


def test_every_event_links_to_the_one_before_it(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "floord.db")
    try:
        first = journal.append(TABLE, builder(TABLE))
        second, third = journal.append_many(TABLE, [builder(TABLE, 1), builder(TABLE, 2)])
        dev = journal.append(DEVICE, builder("wheel"))
        stored = [json.loads(b) for b in journal.read_range(TABLE, 1, 3)]
        assert journal.read_range(TABLE, 1, 3) == [e.to_json() for e in (first, second, third)]
        assert first.prev == genesis("s1", TABLE)
        assert dev.prev == genesis("s1", DEVICE)
        assert second.prev == first.hash and third.prev == second.hash
        for body in stored:
            assert body["hash"] == event_hash(body)
        assert journal.chain_head(TABLE) == (3, third.hash)
        assert journal.chain_head(DEVICE) == (1, dev.hash)
        assert journal.chain_head("never") == (0, "")
    finally:
        journal.close()
    assert verify_journal(tmp_path / "floord.db").broken is None


def test_an_envelope_without_chain_fields_still_loads_and_omits_them() -> None:
    old = '{"v":1,"site":"s","table":"t","seq":1,"ts":"x","type":"a","source":"d","data":{}}'
    envelope = Envelope.from_json(old)
    assert envelope.prev is None and envelope.hash is None
    assert "prev" not in envelope.to_dict() and "hash" not in envelope.to_dict()
    chained = Envelope.from_json(dumps({**json.loads(old), "prev": "p", "hash": "h"}))
    assert (chained.prev, chained.hash) == ("p", "h")
    assert json.loads(chained.to_json())["hash"] == "h"


def test_a_whole_journal_verifies(path: Path) -> None:
    report = verify_journal(path)
    assert report.broken is None
    assert (report.streams, report.events) == (2, 12)
    assert verify_journal(path, DEVICE).events == 6
    with pytest.raises(AuditError, match="no stream"):
        verify_journal(path, "t9")


def test_an_edited_body_is_named(path: Path) -> None:
    body = bodies(path, TABLE)[3]
    body["data"]["note"] = "forged"
    tamper(path, ("UPDATE events SET body = ? WHERE stream = ? AND seq = 3", (dumps(body), TABLE)))
    broken = verify_journal(path).broken
    assert (broken.stream, broken.seq, broken.kind) == (TABLE, 3, "edited")


def test_an_edit_that_recomputes_its_own_hash_breaks_the_next_link(path: Path) -> None:
    body = bodies(path, TABLE)[3]
    forged = rechained(body, data={"note": "forged"})
    tamper(path, ("UPDATE events SET body = ? WHERE stream = ? AND seq = 3", (forged, TABLE)))
    broken = verify_journal(path).broken
    assert (broken.stream, broken.seq, broken.kind) == (TABLE, 4, "prev_mismatch")
    assert "seq 3" in broken.detail


def test_a_deleted_event_is_named(path: Path) -> None:
    tamper(path, ("DELETE FROM events WHERE stream = ? AND seq = 3", (DEVICE,)))
    broken = verify_journal(path).broken
    assert (broken.stream, broken.seq, broken.kind) == (DEVICE, 4, "deleted")
    assert "seq 3..3 missing" in broken.detail


def test_a_deleted_last_event_is_caught_by_the_chain_head(path: Path) -> None:
    tamper(path, ("DELETE FROM events WHERE stream = ? AND seq = 6", (TABLE,)))
    broken = verify_journal(path).broken
    assert (broken.stream, broken.seq, broken.kind) == (TABLE, 6, "deleted")


def test_an_inserted_event_is_named(path: Path) -> None:
    stored = bodies(path, TABLE)
    fake = {**stored[3], "seq": 4, "data": {"note": "inserted"}, "prev": stored[3]["hash"]}
    fake.pop("hash")
    fake["hash"] = event_hash(fake)
    renumber = [
        ("UPDATE events SET seq = ? WHERE stream = ? AND seq = ?", (seq + 1, TABLE, seq))
        for seq in range(6, 3, -1)
    ]
    tamper(
        path,
        *renumber,
        ("INSERT INTO events (stream, seq, body) VALUES (?, 4, ?)", (TABLE, dumps(fake))),
        ("UPDATE streams SET last_seq = 7 WHERE stream = ?", (TABLE,)),
    )
    broken = verify_journal(path).broken
    assert (broken.stream, broken.seq, broken.kind) == (TABLE, 5, "inserted")
    assert "seq 4..4 were inserted" in broken.detail


def test_an_event_appended_past_the_head_is_named(path: Path) -> None:
    last = bodies(path, TABLE)[6]
    fake = {**last, "seq": 7, "prev": last["hash"]}
    fake.pop("hash")
    fake["hash"] = event_hash(fake)
    tamper(path, ("INSERT INTO events (stream, seq, body) VALUES (?, 7, ?)", (TABLE, dumps(fake))))
    broken = verify_journal(path).broken
    assert (broken.stream, broken.seq, broken.kind) == (TABLE, 7, "inserted")


def test_reordered_events_are_named(path: Path) -> None:
    stored = bodies(path, TABLE)
    tamper(
        path,
        ("UPDATE events SET body = ? WHERE stream = ? AND seq = 3", (dumps(stored[4]), TABLE)),
        ("UPDATE events SET body = ? WHERE stream = ? AND seq = 4", (dumps(stored[3]), TABLE)),
    )
    broken = verify_journal(path).broken
    assert (broken.stream, broken.seq, broken.kind) == (TABLE, 3, "reordered")


def test_an_unchained_body_is_named(path: Path) -> None:
    body = bodies(path, DEVICE)[2]
    del body["prev"], body["hash"]
    tamper(path, ("UPDATE events SET body = ? WHERE stream = ? AND seq = 2", (dumps(body), DEVICE)))
    broken = verify_journal(path).broken
    assert (broken.stream, broken.seq, broken.kind) == (DEVICE, 2, "unchained")


def test_verify_bodies_checks_an_export_without_heads(path: Path) -> None:
    rows = [(TABLE, seq, dumps(b)) for seq, b in sorted(bodies(path, TABLE).items())]
    assert verify_bodies(rows) is None
    # An export that starts mid-stream is anchored on the event before it.
    anchor = Anchor(2, json.loads(rows[1][2])["hash"])
    assert verify_bodies(rows[2:], anchors={TABLE: anchor}) is None
    assert verify_bodies(rows[2:]).kind == "deleted"
    assert verify_bodies([(TABLE, 1, "{not json")]).kind == "unreadable"


def test_prune_keeps_the_chain_verifiable(path: Path) -> None:
    journal = Journal(path)
    try:
        journal.mark_published(TABLE, [1, 2, 3, 4, 5, 6])
        journal.mark_published(DEVICE, [1, 2, 4, 5, 6])  # 3 not acknowledged yet
        removed = journal.prune(format_ts(T0 + timedelta(minutes=4)))
        # Table: seq 1..4 are older than minute 4. Device: only 1..2, 3 is unpublished.
        assert removed == 6
        assert journal.read_range(TABLE, 1, 4) == []
        assert len(journal.read_range(TABLE, 5, 6)) == 2
        assert len(journal.read_range(DEVICE, 1, 6)) == 4
        # The chain head is never pruned, however old.
        assert journal.prune(format_ts(T0 + timedelta(days=30))) == 1
        assert journal.read_range(TABLE, 1, 6) == [journal.read_range(TABLE, 6, 6)[0]]
        assert journal.chain_head(TABLE)[0] == 6
        assert journal.prune(format_ts(T0 + timedelta(days=30))) == 0
        # Numbering and chaining go on after the pruned stretch.
        journal.append(TABLE, builder(TABLE, 99))
    finally:
        journal.close()
    report = verify_journal(path)
    assert report.broken is None
    assert report.pruned[TABLE].up_to_seq == 5 and report.pruned[DEVICE].up_to_seq == 2


@pytest.mark.parametrize("damaged", ["{not json", "[1, 2]", '{"ts": 5}'])
def test_prune_stops_at_a_damaged_body_and_keeps_it(path: Path, damaged: str) -> None:
    """A body that is no event with a time is evidence: pruning keeps it and every event
    after it, where it used to fail every hour (or crash on a body that is no object)."""
    tamper(path, ("UPDATE events SET body = ? WHERE stream = ? AND seq = 3", (damaged, TABLE)))
    journal = Journal(path)
    try:
        journal.mark_published(TABLE, [1, 2, 3, 4, 5, 6])
        assert journal.prune(format_ts(T0 + timedelta(days=30))) == 2
        assert journal.read_range(TABLE, 3, 3) == [damaged]
    finally:
        journal.close()


def test_after_pruning_a_forged_first_event_fails_the_anchor(path: Path) -> None:
    journal = Journal(path)
    try:
        journal.mark_published(TABLE, [1, 2, 3, 4, 5, 6])
        journal.prune(format_ts(T0 + timedelta(minutes=3)))
    finally:
        journal.close()
    first = bodies(path, TABLE)[4]
    forged = rechained(first, prev="0" * 64)
    tamper(path, ("UPDATE events SET body = ? WHERE stream = ? AND seq = 4", (forged, TABLE)))
    broken = verify_journal(path).broken
    assert (broken.stream, broken.seq, broken.kind) == (TABLE, 4, "anchor_mismatch")
    tamper(path, ("DELETE FROM events WHERE stream = ? AND seq = 4", (TABLE,)))
    broken = verify_journal(path).broken
    assert (broken.stream, broken.seq, broken.kind) == (TABLE, 5, "deleted")


V1_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE streams (stream TEXT PRIMARY KEY, last_seq INTEGER NOT NULL);
CREATE TABLE events (
    stream TEXT NOT NULL, seq INTEGER NOT NULL, body TEXT NOT NULL,
    published INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (stream, seq)
) WITHOUT ROWID;
CREATE TABLE snapshots (table_id TEXT PRIMARY KEY, state TEXT NOT NULL);
CREATE TABLE command_ids (id TEXT PRIMARY KEY, ts TEXT NOT NULL);
INSERT INTO meta (key, value) VALUES ('schema_version', '1');
"""


def test_a_version_1_file_is_chained_when_first_opened(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    db = sqlite3.connect(path, isolation_level=None)
    db.executescript(V1_SCHEMA)
    old_bodies = {
        s: [builder(s, i, f"{s}{i}")(i + 1).to_json() for i in range(3)] for s in (TABLE, DEVICE)
    }
    for stream, texts in old_bodies.items():
        for seq, text in enumerate(texts, start=1):
            db.execute("INSERT INTO events VALUES (?, ?, ?, 1)", (stream, seq, text))
        db.execute("INSERT INTO streams VALUES (?, 3)", (stream,))
    db.close()
    with pytest.raises(AuditError, match="schema version"):
        verify_journal(path)

    journal = Journal(path)
    try:
        assert journal.append(TABLE, builder(TABLE, 9)).seq == 4
    finally:
        journal.close()
    assert verify_journal(path).broken is None
    for stream, texts in old_bodies.items():
        now = bodies(path, stream)
        for seq, text in enumerate(texts, start=1):
            kept = {k: v for k, v in now[seq].items() if k not in ("prev", "hash")}
            assert kept == json.loads(text), "migration changes nothing but the chain"
    db = sqlite3.connect(path)
    try:
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
    finally:
        db.close()
    assert meta["schema_version"] == "3"  # and on to snapshots chained (version 3)
    assert json.loads(meta["chain_migrated"]) == {"from_version": 1, "events": 6}


def _config(tmp: Path, retention: int | None) -> Path:
    (tmp / "fp.key").write_text("secret\n")
    body = {
        "site": "s1",
        "broker": {"url": "mqtt://127.0.0.1:1"},
        "journal": "journal.db",
        "operators": [{"id": "FP-1001", "role": "floorperson", "key_file": "fp.key"}],
        "tables": [
            {
                "id": "t1",
                "game": "roulette",
                "rules": {"wheel": "single_zero"},
                "devices": [{"id": "wheel", "profile": "cammegh-ss2", "port": "/dev/null"}],
            }
        ],
    }
    if retention is not None:
        body["journal_retention_days"] = retention
    path = tmp / "floord.yaml"
    path.write_text(yaml.safe_dump(body))
    return path


def test_retention_is_a_config_setting_of_at_least_one_day(tmp_path: Path) -> None:
    assert load_config(_config(tmp_path, None)).config.journal_retention_days is None
    assert load_config(_config(tmp_path, 30)).config.journal_retention_days == 30
    with pytest.raises(ConfigError) as caught:
        load_config(_config(tmp_path, 0))
    assert any("journal_retention_days" in p for p in caught.value.problems)


def test_the_daemon_prunes_at_start_by_its_retention(tmp_path: Path) -> None:
    write(tmp_path / "journal.db")
    journal = Journal(tmp_path / "journal.db")
    journal.mark_published(TABLE, [1, 2, 3, 4, 5, 6])
    journal.close()
    loaded = load_config(_config(tmp_path, 2))
    # Two days and three minutes after T0: events of minutes 0..2 are past retention.
    daemon = Daemon(loaded, clock=lambda: T0 + timedelta(days=2, minutes=3))

    async def first_pass() -> None:
        task = asyncio.create_task(daemon._prune_journal(2))
        try:
            for _ in range(1000):
                if daemon.journal.read_range(TABLE, 1, 1) == []:
                    break
                await asyncio.sleep(0.01)
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    try:
        asyncio.run(first_pass())
        assert daemon.journal.read_range(TABLE, 1, 3) == []
        assert len(daemon.journal.read_range(TABLE, 4, 6)) == 3
    finally:
        daemon.journal.close()
    assert verify_journal(tmp_path / "journal.db").broken is None
