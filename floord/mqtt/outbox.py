"""The journal going out at QoS 1: pipelined publishes, an event marked published only
after its PUBACK, each stream resent from its first gap. The journal's reads and marks run
on its own thread (`floord.journal.writer`): the loop never waits for SQLite. A commit's
rows come by their feed (`floord.journal.feed`), so a frame's event is not read back
before it goes out, and the acknowledgements are handed to the journal for its next
write to take (`AckWriter`, `floord.journal.watermark.Acks`), so the next rows go out
meanwhile and the next frame's commit does not wait behind them.

One implementation for every link that publishes journal rows (the table's link, a remote
adapter's link), so both keep the same ordering promise (docs/contract.md).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from functools import partial

import aiomqtt

from floord.journal.feed import Feed, Row, Wake
from floord.journal.store import Journal
from floord.mqtt.confirm import Message, publish_batch, refusal
from floord.mqtt.retained import RETAINED_EVERY_S

# How long the link's acknowledgements wait for a commit of events to write them, before
# a job of their own does (`AckWriter`): the pace of the retained `P/state`, the most a
# subscriber's view of the table lags, so at a table's pace of events (a wheel's every
# second or so, a card table's more often) most are written by the next event's commit
# and an event costs one job on the journal's thread, not two. A crash can lose this much
# of them: their events are sent again, and subscribers drop them by `seq`
# (docs/contract.md).
ACKS_WRITTEN_AFTER_S = RETAINED_EVERY_S


async def publish_in_order(
    client: aiomqtt.Client,
    items: Sequence[tuple[str, str]],
    *,
    ack_timeout: float,
    raise_after: bool = True,
) -> list[bool]:
    """QoS 1 publish of (topic, payload) pairs, pipelined; which ones were acked within
    `ack_timeout` of the batch's start.

    The PUBLISH packets leave in the order given, handed to the client one after the
    other, and one waiter takes the batch's PUBACKs (`floord.mqtt.confirm`): not a task,
    an event and a timeout for each message, as aiomqtt's own publish would.
    """
    acked, refused = await publish_batch(
        client, [Message(topic, body) for topic, body in items], ack_timeout=ack_timeout
    )
    failure = refusal(acked, refused)
    if raise_after and failure is not None:
        raise failure
    return acked


async def drain(
    client: aiomqtt.Client,
    journal: Journal,
    topics: Mapping[str, str],
    wake: asyncio.Event,
    *,
    window: int,
    ack_timeout: float,
    acked_after: Callable[[float], None] | None = None,
) -> None:
    """Publish the unacknowledged rows of `topics`' streams (stream -> topic) in batches of
    `window`, then whatever `wake` announces, forever; raise when a batch is not all acked.

    What a commit stores comes by the streams' feed (`floord.journal.feed`), not read
    back, as long as it continues each stream where this connection left off; else (the
    start, a backlog, a gap) the rows are read from the journal, which holds them all.
    A commit that feeds it sets `wake` itself, in the callback that tells its committer:
    the rows go out in the same turn of the loop as the committer's follow-up, not a turn
    after its `notify` (which is for what no feed carries).
    `acked_after` hears, for each batch acknowledged whole, the seconds from its publish
    to its last PUBACK."""
    feed = journal.feeds.follow(topics, wake=Wake(asyncio.get_running_loop(), wake.set))
    try:
        await _drain(
            client,
            journal,
            topics,
            wake,
            feed,
            window=window,
            ack_timeout=ack_timeout,
            acked_after=acked_after,
        )
    finally:
        journal.feeds.unfollow(feed)


async def _drain(
    client: aiomqtt.Client,
    journal: Journal,
    topics: Mapping[str, str],
    wake: asyncio.Event,
    feed: Feed,
    *,
    window: int,
    ack_timeout: float,
    acked_after: Callable[[float], None] | None,
) -> None:
    streams = list(topics)
    place = Place()
    acks = AckWriter(journal)
    woken = False
    try:
        while True:
            wake.clear()
            batch = place.fresh(feed.take(window))
            if batch is None or (woken and not batch):
                # The journal holds more than the feed gave, or a wake came with nothing
                # fed: read it (the acknowledgements so far written first).
                rows, marks = await journal.call(partial(_read, journal, streams, window))
                place.read(rows, marks, full=len(rows) >= window)
                batch = rows
            woken = False
            if not batch:
                if await acks.seen_through():
                    continue  # look again before waiting
                await wake.wait()
                woken = True
                continue
            items = [(topics[stream], body) for stream, _, body in batch]
            sent = time.perf_counter()
            acked = await publish_in_order(
                client, items, ack_timeout=ack_timeout, raise_after=False
            )
            if acked_after is not None and all(acked):
                acked_after(time.perf_counter() - sent)
            by_stream: dict[str, list[int]] = {}
            stopped: set[str] = set()
            for (stream, seq, _), ok in zip(batch, acked, strict=True):
                # Only an acknowledged prefix of each stream counts as published, so a
                # resend after a failure starts at the first gap and stays in order.
                if not ok:
                    stopped.add(stream)
                elif stream not in stopped:
                    by_stream.setdefault(stream, []).append(seq)
            acks.add(by_stream)
            if not all(acked):
                raise aiomqtt.MqttError("broker did not acknowledge every event of a batch")
    finally:
        acks.close()


class AckWriter:
    """The link's acknowledgements, on their way to the watermarks (`watermark.Acks`).

    Handed to the journal at once; the next commit of events writes them in its own
    transaction, or, should none come within `ACKS_WRITTEN_AFTER_S`, a job of their own
    does (without an fsync). Either way they are written even if the connection ends
    now; the next rows go out meanwhile. A job that failed fails the drain, as a failed
    read of the journal does, when the link next goes idle or hands in more."""

    def __init__(self, journal: Journal) -> None:
        self._journal = journal
        self._loop = asyncio.get_running_loop()
        self._jobs: list[Future[None]] = []
        self._timer: asyncio.TimerHandle | None = None

    def add(self, acked: dict[str, list[int]]) -> None:
        for job in [job for job in self._jobs if job.done()]:
            job.result()  # raises what the journal's thread raised
            self._jobs.remove(job)
        self._journal.acks.add(acked)
        if acked and self._timer is None:
            self._timer = self._loop.call_later(ACKS_WRITTEN_AFTER_S, self._write)

    async def seen_through(self) -> bool:
        """Wait for the jobs handed in (raising what failed); False if there were none."""
        if not self._jobs:
            return False
        jobs, self._jobs = self._jobs, []
        for job in jobs:
            await asyncio.wrap_future(job)
        return True

    def close(self) -> None:
        """The connection ended: what is still waiting is written now."""
        if self._timer is not None:
            self._timer.cancel()
            self._write()

    def _write(self) -> None:
        self._timer = None
        if self._journal.acks:  # else a commit since wrote them
            self._jobs.append(self._journal.submit(self._journal.write_acks))


class Place:
    """Where this connection's publishing stands: each stream's next seq to send, and
    whether the journal may hold more than the last read returned (`behind`)."""

    def __init__(self) -> None:
        self.next: dict[str, int] = {}
        self.behind = True  # nothing read yet

    def read(self, rows: list[Row], marks: dict[str, int], *, full: bool) -> None:
        """A read of the journal: every stream's rows past its watermark (all of them
        unless `full`, the read's limit reached)."""
        for stream, up_to in marks.items():
            self.next[stream] = up_to + 1
        for stream, seq, _ in rows:
            self.next[stream] = seq + 1
        self.behind = full

    def fresh(self, rows: list[Row]) -> list[Row] | None:
        """Of the rows fed since the last take, those that continue their streams, to
        send now; None if the journal must be read instead (a gap: rows the feed dropped,
        or the journal holds more than was read). Rows the last read returned already
        are skipped."""
        if self.behind:
            return None
        out: list[Row] = []
        for row in rows:
            stream, seq, _ = row
            expected = self.next.get(stream)
            if expected is None or seq > expected:
                return None
            if seq == expected:
                out.append(row)
                self.next[stream] = seq + 1
        # By stream, then seq, as a read of the journal gives them (a table's record
        # before its devices' streams), so the order on the wire is the same either way.
        out.sort(key=_stream_of)
        return out


def _stream_of(row: Row) -> str:
    return row[0]


def _read(journal: Journal, streams: list[str], window: int) -> tuple[list[Row], dict[str, int]]:
    """One job on the journal's thread: the rows past the watermarks, and the marks."""
    return journal.unpublished(streams, limit=window), journal.marks(streams)
