"""The archive's ledger on a real SQLite store: what each arriving event is to a
stream (new, a gap's fill, a duplicate, a fork), the chain checks, a restore's epochs,
the head a table's state names, and which replays the planner asks for."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from archive_support import chained

from floord.archive.arrivals import Where, read_arrival, where
from floord.archive.batch import Batch
from floord.archive.ledger import Ledger
from floord.archive.requests import ReplayPlanner
from floord.archive.sqlite_store import SqliteStore
from floord.journal.chain import event_hash

pytestmark = pytest.mark.unit

SITE = "casino"
TABLE = Where(SITE, "RL-01", None, False)
WHEEL = Where(SITE, "RL-01", "wheel", False)


class Archive:
    """A store and its ledger, fed one batch at a time as the writer does."""

    def __init__(self, path: Path) -> None:
        self.store = SqliteStore(path)
        self.store.migrate()
        self.reload()

    def reload(self) -> None:
        s = self.store
        self.ledger = Ledger(s.heads(), s.gaps(), s.epochs(), lambda: datetime.now(UTC))

    def feed(self, at: Where, *bodies: dict) -> Batch:
        batch = Batch()
        for body in bodies:
            self.ledger.take(read_arrival(at, json.dumps(body).encode()), batch, self.store.link_at)
        self.store.write(batch, datetime.now(UTC))
        self.ledger.committed()
        return batch

    def seqs(self, stream: str = "RL-01", epoch: int = 0) -> list[int]:
        rows = self.store._execute(
            "SELECT seq FROM archive_events WHERE stream = ? AND epoch = ? ORDER BY seq",
            (stream, epoch),
        )
        return [r[0] for r in rows]


def test_new_gap_fill_duplicate_and_fork(tmp_path: Path) -> None:
    a = Archive(tmp_path / "a.db")
    record = chained(SITE, "RL-01", "RL-01", 6)
    batch = a.feed(TABLE, record[0], record[1], record[4])
    assert not batch.breaks and [g.first for g in batch.gaps[(SITE, "RL-01", 0)]] == [3]
    assert {k: [(g.first, g.last) for g in v] for k, v in a.ledger.wanted().items()} == {
        (SITE, "RL-01"): [(3, 4)]
    }
    a.reload()  # a restart finds the gap again in the database
    batch = a.feed(TABLE, record[3], record[2], record[1], record[5])
    assert batch.duplicates == 1 and not batch.breaks
    assert a.seqs() == [1, 2, 3, 4, 5, 6] and a.ledger.wanted() == {}
    forged = dict(record[2], data={"n": -1})
    forged["hash"] = event_hash(forged)
    assert [b.kind for b in a.feed(TABLE, forged).breaks] == ["fork"]
    assert a.seqs() == [1, 2, 3, 4, 5, 6]


def test_broken_links_are_named(tmp_path: Path) -> None:
    a = Archive(tmp_path / "a.db")
    record = chained(SITE, "RL-01", "RL-01", 5)
    wrong_prev = dict(record[1], prev="0" * 64)
    wrong_prev["hash"] = event_hash(wrong_prev)
    batch = a.feed(TABLE, record[0], wrong_prev)
    assert [(b.seq, b.kind) for b in batch.breaks] == [(2, "prev_mismatch")]
    # seq 4 held, then a 3 whose hash 4 does not link to.
    other = dict(record[2], data={"n": 33})
    other["hash"] = event_hash(other)
    a.feed(TABLE, record[3])
    kinds = [(b.seq, b.kind) for b in a.feed(TABLE, other).breaks]
    # Held seq 2 is the one with the wrong prev, so 3 (linking to the real 2) misses it.
    assert kinds == [(3, "prev_mismatch"), (3, "next_mismatch")]
    edited = dict(record[4], data={"n": 55})
    assert [b.kind for b in a.feed(TABLE, edited).breaks] == ["edited"]


def test_a_device_gap_is_recorded_unfillable(tmp_path: Path) -> None:
    a = Archive(tmp_path / "a.db")
    wheel = chained(SITE, "RL-01/devices/wheel", "RL-01", 4)
    a.feed(WHEEL, wheel[0], wheel[3])
    [gap] = a.store.gaps()[(SITE, "RL-01/devices/wheel", 0)]
    assert (gap.first, gap.last, gap.fillable) == (2, 3, False)
    assert a.ledger.wanted() == {}


def test_a_restore_starts_an_epoch_on_the_table_and_its_devices(tmp_path: Path) -> None:
    a = Archive(tmp_path / "a.db")
    record = chained(SITE, "RL-01", "RL-01", 5)
    wheel = chained(SITE, "RL-01/devices/wheel", "RL-01", 3)
    a.feed(TABLE, *record)
    a.feed(WHEEL, *wheel)
    # The journal is put back at table seq 3 and wheel seq 2: the record goes on from there.
    restored = {
        **record[3],
        "type": "journal.restored",
        "source": "daemon",
        "prev": record[2]["hash"],
        "data": {
            "head": {"seq": 3, "hash": record[2]["hash"]},
            "streams": {"RL-01/devices/wheel": {"seq": 2, "hash": wheel[1]["hash"]}},
        },
    }
    restored["hash"] = event_hash(restored)
    batch = a.feed(TABLE, restored)
    assert not batch.breaks
    assert sorted((e.stream, e.epoch, e.after_seq) for e in a.store.epochs()) == [
        ("RL-01", 1, 3),
        ("RL-01/devices/wheel", 1, 2),
    ]
    assert a.seqs("RL-01", 0) == [1, 2, 3, 4, 5] and a.seqs("RL-01", 1) == [4]
    new_wheel = dict(wheel[2], data={"n": "after the restore"})
    new_wheel["hash"] = event_hash(new_wheel)
    assert not a.feed(WHEEL, new_wheel).breaks
    assert a.seqs("RL-01/devices/wheel", 1) == [3]
    a.reload()
    assert a.feed(TABLE, restored).duplicates == 1  # the same restore again starts nothing
    assert len(a.store.epochs()) == 2


def test_the_state_head_is_owed_and_must_match(tmp_path: Path) -> None:
    a = Archive(tmp_path / "a.db")
    record = chained(SITE, "RL-01", "RL-01", 4)
    a.feed(TABLE, record[0])
    batch = Batch()
    a.ledger.tail(SITE, "RL-01", 4, record[3]["hash"], 10.0)
    a.ledger.settle(batch, 10.5, 1.0)
    assert not batch.writes  # within the grace: its events may be on their way
    a.ledger.settle(batch, 11.0, 1.0)
    a.store.write(batch, datetime.now(UTC))
    assert [(g.first, g.last) for g in a.ledger.wanted()[(SITE, "RL-01")]] == [(2, 4)]
    assert not a.feed(TABLE, *record[1:]).breaks
    assert a.seqs() == [1, 2, 3, 4] and a.ledger.wanted() == {}


def test_the_planner_waits_the_grace_asks_once_and_backs_off_a_refusal(tmp_path: Path) -> None:
    a = Archive(tmp_path / "a.db")
    record = chained(SITE, "RL-01", "RL-01", 3)
    a.feed(TABLE, record[0], record[2])
    wanted = a.ledger.wanted()
    planner = ReplayPlanner(grace_s=1.0, retry_s=5.0, max_outstanding=4)
    now = datetime.now(UTC)
    assert planner.due(wanted, 0.0, now) == []
    [ask] = planner.due(wanted, 0.0, now + timedelta(seconds=2))
    assert (ask.table, ask.first, ask.last) == ("RL-01", 2, 2)
    planner.sent(ask, "cmd-1")
    assert planner.due(wanted, 1.0, now + timedelta(seconds=3)) == []  # one at a time
    assert planner.answered("cmd-1", False, 1.0) == ask
    assert planner.due(wanted, 2.0, now + timedelta(seconds=4)) == []  # held back
    assert len(planner.due(wanted, 12.0, now + timedelta(seconds=14))) == 1


def test_only_the_event_topics_are_streams() -> None:
    assert where("floor/v1", "floor/v1/s/RL-01/events") == TABLE.__class__(
        "s", "RL-01", None, False
    )
    assert where("floor/v1", "floor/v1/s/RL-01/devices/wheel/events").stream == (
        "RL-01/devices/wheel"
    )
    assert where("floor/v1", "floor/v1/s/RL-01/replay").replayed
    for topic in (
        "floor/v1/s/RL-01/state",
        "floor/v1/s/RL-01/devices/wheel/replay",
        "x/s/t/events",
    ):
        assert where("floor/v1", topic) is None
    body = chained(SITE, "RL-01", "RL-01", 1)[0]
    for bad, why in (
        ({**body, "table": "RL-02"}, "an envelope of casino/RL-01"),
        ({**body, "seq": True}, "positive integer"),
        ({**body, "seq": 2**70}, "positive integer"),  # no store holds it: the writer died
        ({**body, "ts": "2026-01-01T00:00:00"}, "zone"),
        ({**body, "ts": "9999-12-31T23:59:59-01:00"}, "out of range"),
        ({**body, "hash": "xyz"}, "`hash`"),
    ):
        with pytest.raises(ValueError, match=why):
            read_arrival(TABLE, json.dumps(bad).encode())
