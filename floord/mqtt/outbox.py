"""The journal going out at QoS 1: pipelined publishes, an event marked published only
after its PUBACK, each stream resent from its first gap. The journal's reads and marks run
on its own thread (`floord.journal.writer`), awaited: the loop never waits for SQLite.

One implementation for every link that publishes journal rows (the table's link, a remote
adapter's link), so both keep the same ordering promise (docs/contract.md).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from functools import partial

import aiomqtt

from floord.journal.store import Journal


async def publish_in_order(
    client: aiomqtt.Client,
    items: Sequence[tuple[str, str]],
    *,
    ack_timeout: float,
    raise_after: bool = True,
) -> list[bool]:
    """QoS 1 publish of (topic, payload) pairs, pipelined; which ones were acked.

    The PUBLISH packets leave in the order given (each task hands its message to
    the client on its first step, and tasks start in creation order).
    """
    tasks = [
        asyncio.create_task(client.publish(topic, body, qos=1, timeout=ack_timeout))
        for topic, body in items
    ]
    try:
        await asyncio.wait(tasks)
    finally:
        unfinished = [t for t in tasks if not t.done()]
        for task in unfinished:
            task.cancel()
        if unfinished:
            await asyncio.wait(unfinished)
    acked = [not t.cancelled() and t.exception() is None for t in tasks]
    if raise_after and not all(acked):
        first = next(t for t in tasks if t.cancelled() or t.exception() is not None)
        if first.cancelled():
            raise aiomqtt.MqttError("publish was cancelled")
        raise first.exception()  # type: ignore[misc]
    return acked


async def drain(
    client: aiomqtt.Client,
    journal: Journal,
    topics: Mapping[str, str],
    wake: asyncio.Event,
    *,
    window: int,
    ack_timeout: float,
) -> None:
    """Publish the unacknowledged rows of `topics`' streams (stream -> topic) in batches of
    `window`, then whatever `wake` announces, forever; raise when a batch is not all acked."""
    streams = list(topics)
    batch: list[tuple[str, int, str]] | None = None  # None: to be read
    while True:
        if batch is None:
            wake.clear()
            batch = await journal.unpublished_async(streams, limit=window)
        if not batch:
            await wake.wait()
            batch = None
            continue
        items = [(topics[stream], body) for stream, _, body in batch]
        acked = await publish_in_order(client, items, ack_timeout=ack_timeout, raise_after=False)
        by_stream: dict[str, list[int]] = {}
        stopped: set[str] = set()
        for (stream, seq, _), ok in zip(batch, acked, strict=True):
            # Only an acknowledged prefix of each stream counts as published, so a
            # resend after a failure starts at the first gap and stays in order.
            if not ok:
                stopped.add(stream)
            elif stream not in stopped:
                by_stream.setdefault(stream, []).append(seq)
        wake.clear()
        # Shielded: the broker acknowledged these, so the marks are written even when
        # the connection ends (and this job is cancelled) while it waits its turn on the
        # journal's thread; else a lost link would send them all again.
        job = partial(_marked_then_next, journal, by_stream, streams, window)
        batch = await asyncio.shield(journal.call(job))
        if not all(acked):
            raise aiomqtt.MqttError("broker did not acknowledge every event of a batch")


def _marked_then_next(
    journal: Journal, marks: dict[str, list[int]], streams: list[str], window: int
) -> list[tuple[str, int, str]]:
    """Move the streams' watermarks over `marks`, then read the next batch: one job on
    the journal's thread, not one a stream and one more to read."""
    for stream, seqs in marks.items():
        journal.mark_published(stream, seqs)
    return journal.unpublished(streams, limit=window)
