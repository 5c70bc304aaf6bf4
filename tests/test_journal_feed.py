"""The journal's feed: what a commit stores, handed to its publisher (floord.journal.feed),
and how the outbox checks it continues each stream (floord.mqtt.outbox.Place). A batch's
one timeout is tested in test_publish_batch.py."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from mqtt_link_support import builder as build

from floord.contract import Envelope
from floord.journal.feed import Wake
from floord.journal.store import Journal, JournalError
from floord.mqtt.outbox import Place

pytestmark = pytest.mark.unit


def test_a_commit_feeds_the_rows_it_stored_to_the_publisher_of_their_streams(
    tmp_path: Path,
) -> None:
    journal = Journal(tmp_path / "j.db")
    try:
        feed = journal.feeds.follow(["t1", "t1/devices/wheel"])
        journal.append_group(
            "t1", [build("t1"), build("t1")], before=[("t1/devices/wheel", [build("w")])]
        )
        journal.append("other", build("other"))  # not a stream this feed follows
        journal.append_many("t1/devices/wheel", [build("w")], published=True)  # a copy
        rows = feed.take(100)
        assert [(s, q) for s, q, _ in rows] == [("t1/devices/wheel", 1), ("t1", 1), ("t1", 2)]
        # The same bytes a read of the journal gives.
        assert [body for _, _, body in rows[1:]] == journal.read_range("t1", 1, 2)
        assert rows[0][2] == journal.read_range("t1/devices/wheel", 1, 1)[0]
        assert feed.take(100) == []
        journal.feeds.unfollow(feed)
        journal.append("t1", build("t1"))
        assert feed.take(100) == []
    finally:
        journal.close()


def test_a_commit_wakes_its_publisher_in_the_turn_its_committer_goes_on(tmp_path: Path) -> None:
    """The feed's wake comes with the committer's outcome, in one callback: in the loop's
    next turn the committer goes on first (a runner hands in its next commit before rows
    go out, so the disk is not left idle), then the publisher; once a commit, and only
    for a commit that fed it."""
    journal = Journal(tmp_path / "j.db")

    async def scenario() -> list[str]:
        seen: list[str] = []
        woken = asyncio.Event()

        def wake() -> None:
            seen.append(f"woken with {len(feed._rows)} rows fed")
            woken.set()

        async def publisher() -> None:
            while True:
                await woken.wait()
                woken.clear()
                seen.append(f"publisher took {len(feed.take(100))}")

        feed = journal.feeds.follow(["t1"], wake=Wake(asyncio.get_running_loop(), wake))
        publishing = asyncio.create_task(publisher())
        envelopes = await journal.append_many_async("t1", [build("t1"), build("t1")])
        seen.append(f"committer went on with {len(envelopes)}")
        await journal.append_many_async("other", [build("other")])  # feeds nothing
        await asyncio.sleep(0.05)
        journal.feeds.unfollow(feed)
        publishing.cancel()
        await asyncio.gather(publishing, return_exceptions=True)
        return seen

    try:
        assert asyncio.run(scenario()) == [
            "woken with 2 rows fed",
            "committer went on with 2",
            "publisher took 2",
        ]
    finally:
        journal.close()


def test_a_commit_waited_for_off_the_loop_wakes_the_publisher_too(tmp_path: Path) -> None:
    """A commit no loop waits for (a tool's, start-up's) sends its wake on its own."""
    journal = Journal(tmp_path / "j.db")

    async def scenario() -> int:
        loop = asyncio.get_running_loop()
        woken = asyncio.Event()
        feed = journal.feeds.follow(["t1"], wake=Wake(loop, woken.set))
        await loop.run_in_executor(None, journal.append, "t1", build("t1"))
        await asyncio.wait_for(woken.wait(), 5)
        return len(feed.take(100))

    try:
        assert asyncio.run(scenario()) == 1
    finally:
        journal.close()


def test_a_wake_that_fails_leaves_no_committer_waiting(tmp_path: Path) -> None:
    """A publisher's wake that raises (a bug) is the loop's to report; the commit's
    caller still hears its outcome."""
    journal = Journal(tmp_path / "j.db")

    async def scenario() -> tuple[int, list[str]]:
        loop = asyncio.get_running_loop()
        reported: list[str] = []
        loop.set_exception_handler(
            lambda _loop, context: reported.append(repr(context["exception"]))
        )

        def broken() -> None:
            raise RuntimeError("a publisher's bug")

        feed = journal.feeds.follow(["t1"], wake=Wake(loop, broken))
        envelopes = await asyncio.wait_for(journal.append_many_async("t1", [build("t1")]), 5)
        journal.feeds.unfollow(feed)
        return len(envelopes), reported

    try:
        assert asyncio.run(scenario()) == (1, ['RuntimeError("a publisher\'s bug")'])
    finally:
        journal.close()


def test_a_refused_commit_feeds_nothing(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.db")
    try:
        feed = journal.feeds.follow(["t1"])

        def broken(seq: int) -> Envelope:
            raise ValueError("a bug building the event")

        with pytest.raises(JournalError):
            journal.append_many("t1", [build("t1"), broken])
        assert feed.take(100) == []
        assert journal.last_seq("t1") == 0
    finally:
        journal.close()


def test_a_feed_holds_at_most_its_limit_the_oldest_dropped(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.db")
    try:
        feed = journal.feeds.follow(["t1"], limit=3)
        journal.append_many("t1", [build("t1")] * 5)
        assert [q for _, q, _ in feed.take(2)] == [3, 4]
        assert [q for _, q, _ in feed.take(2)] == [5]
        # A newer publisher of the same stream takes over; the older one is fed no more.
        newer = journal.feeds.follow(["t1"])
        journal.append("t1", build("t1"))
        assert feed.take(10) == [] and [q for _, q, _ in newer.take(10)] == [6]
    finally:
        journal.close()


def row(stream: str, seq: int) -> tuple[str, int, str]:
    return (stream, seq, f"{stream}#{seq}")


def test_place_sends_what_continues_each_stream_and_reads_the_journal_on_a_gap() -> None:
    place = Place()
    assert place.fresh([row("t1", 1)]) is None  # nothing read yet: read the journal
    place.read([row("t1", 4), row("t1", 5)], {"t1": 3, "t1/devices/w": 7}, full=False)
    # Rows the read returned already are skipped; the next ones continue; by stream.
    assert place.fresh([row("t1/devices/w", 8), row("t1", 5), row("t1", 6)]) == [
        row("t1", 6),
        row("t1/devices/w", 8),
    ]
    assert place.fresh([]) == []
    assert place.fresh([row("t1", 8)]) is None  # seq 7 never came: a gap
    place.read([row("t1", 7), row("t1", 8)], {"t1": 6, "t1/devices/w": 8}, full=False)
    assert place.fresh([row("t1", 9)]) == [row("t1", 9)]
    assert place.fresh([row("t1/new", 1)]) is None  # a stream it has not read
    place.read([row("t1", 10)], {"t1": 9}, full=True)  # the journal holds more
    assert place.fresh([row("t1", 11)]) is None
