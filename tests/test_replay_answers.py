"""What an adapter reads to answer a replay request, and how often it says
`device.online` again for one (`floord.adapters.replay_answers`).

A catch-up of a long stream, a batch at a time, reads each row once looking for
`device.online` (it read every row from the asked seq to the end for every batch, so a
day's stream took quadratic time); an announcement is made at most once a second.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from floord.adapters.replay_answers import AnnounceGate, OnlineSeen, replay_rows
from floord.contract import DEVICE_REPLAY_BATCH, Envelope, EventType
from floord.journal.store import Journal

pytestmark = pytest.mark.unit

STREAM = "RL-01/devices/wheel"


class CountingJournal:
    """The journal's two reads a replay makes, with the rows each returned counted."""

    def __init__(self, journal: Journal) -> None:
        self.journal = journal
        self.rows_read = 0

    def last_seq(self, stream: str) -> int:
        return self.journal.last_seq(stream)

    def read_range(self, stream: str, first: int, last: int) -> list[str]:
        rows = self.journal.read_range(stream, first, last)
        self.rows_read += len(rows)
        return rows


def _append(journal: Journal, kind: str, n: int = 1) -> None:
    def build(seq: int) -> Envelope:
        return Envelope(
            site="s1",
            table="RL-01",
            seq=seq,
            ts="2026-01-02T03:04:05.000000Z",
            type=kind,
            source="wheel",
            data={"port": "/dev/pts/3"} if kind == EventType.DEVICE_ONLINE else {"n": seq},
        )

    for _ in range(n):
        journal.append(STREAM, build)


@pytest.fixture
def journal(tmp_path: Path):  # type: ignore[no-untyped-def]
    journal = Journal(tmp_path / "adapter.db")
    yield journal
    journal.close()


def test_said_since_finds_the_last_online_in_the_range(journal: Journal) -> None:
    _append(journal, "wheel.status", 9)
    _append(journal, EventType.DEVICE_ONLINE)  # seq 10
    _append(journal, "wheel.status", 90)
    seen = OnlineSeen(journal, STREAM)
    assert seen.said_since(5, 100) is True
    assert seen.said_since(10, 100) is True
    assert seen.said_since(11, 100) is False
    assert seen.said_since(1, 9) is False
    _append(journal, EventType.DEVICE_ONLINE)  # seq 101
    assert seen.said_since(11, 100) is False  # not read past the last asked for
    assert seen.said_since(11, 101) is True
    assert seen.last_online == 101


def test_a_catch_up_in_batches_reads_each_row_once(journal: Journal) -> None:
    _append(journal, EventType.DEVICE_ONLINE)
    _append(journal, "wheel.status", 5_000)
    counting = CountingJournal(journal)
    seen = OnlineSeen(counting, STREAM)
    first, batches, delivered = 2, 0, 0
    while True:
        _, rows, said = replay_rows(counting, STREAM, seen, first, True)
        assert said is False  # the online at seq 1 is behind every batch asked for
        if not rows:
            break
        batches += 1
        delivered += len(rows)
        first += len(rows)
    assert delivered == 5_000 and batches == -(-5_000 // DEVICE_REPLAY_BATCH)
    # The batches' own rows, and the stream once for device.online (it read 27,500
    # rows for this catch-up, a scan to the end for every batch).
    assert counting.rows_read == delivered + 5_001


def test_no_scan_when_no_announcement_is_asked(journal: Journal) -> None:
    _append(journal, "wheel.status", 1_200)
    counting = CountingJournal(journal)
    seen = OnlineSeen(counting, STREAM)
    last, rows, said = replay_rows(counting, STREAM, seen, 1, False)
    assert (last, len(rows), said) == (1_200, DEVICE_REPLAY_BATCH, True)
    assert counting.rows_read == DEVICE_REPLAY_BATCH and seen.read_to == 0


def test_the_gate_allows_one_announcement_a_second_and_keeps_one_waiting() -> None:
    now = [100.0]
    gate = AnnounceGate(lambda: now[0], every_s=1.0)
    assert gate.ask() == 0.0  # the first: now
    assert gate.due() is False  # nothing waits
    now[0] = 100.25
    assert gate.ask() == pytest.approx(0.75)
    now[0] = 100.5
    assert gate.ask() == pytest.approx(0.5)  # the same one waiting, not a second
    now[0] = 101.0
    assert gate.due() is True  # made when its time is up
    assert gate.due() is False  # and only once
    now[0] = 101.5
    assert gate.ask() == pytest.approx(0.5)  # a second after the one made at 101.0
    now[0] = 103.0
    assert gate.due() is True
    now[0] = 104.5
    assert gate.ask() == 0.0  # a second has gone by: now again
