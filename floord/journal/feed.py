"""Rows just committed, handed to their stream's publisher without reading them back.

The outbox (`floord.mqtt.outbox`) publishes what the journal holds past each stream's
watermark. Reading that back after every commit would cost a round trip to the
journal's thread and a query per frame, on the path from a device's frame to its event on
the broker. So each publisher follows its streams: every commit puts the rows it
stored on those streams (seq and stored JSON, the same bytes a read would give) in the
publisher's feed, on the journal's thread right after the COMMIT, before the caller
hears of it. The publisher takes them on the event loop.

A feed is only a shortcut, never the record: it holds at most `limit` rows (the oldest
go first, so a publisher that falls behind, or is not connected, costs no memory), and
the publisher checks that what it takes continues each stream where it left off. Any
gap (rows dropped, a publisher that is behind the journal) sends it back to reading the
journal, which holds everything. Rows stored as published already (a remote adapter's
stream copied by the daemon) are not fed.

A feed may also wake its publisher (`Wake`): a commit that fed it leaves that wake due,
and the journal's thread runs it on the publisher's loop in the same callback that tells
the committer, right after (`floord.journal.writer`). So the publisher takes the rows in
the loop's next turn, behind the committer's own step, not a turn later on its word; and
one self-pipe write on the thread says both.

`deque.extend` on the journal's thread and `popleft` on the loop's are each atomic in
CPython, so a feed needs no lock.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Iterable
from typing import NamedTuple

# Rows a feed holds: several of the link's batches (`floord.journal.batches`).
from floord.journal.batches import FEED_LIMIT

Row = tuple[str, int, str]  # (stream, seq, stored JSON)


class Wake(NamedTuple):
    """What wakes a feed's publisher: `call`, run on `loop`."""

    loop: asyncio.AbstractEventLoop
    call: Callable[[], None]


class Feed:
    """The rows committed on some streams since the publisher last took them."""

    def __init__(
        self, streams: Iterable[str], limit: int = FEED_LIMIT, wake: Wake | None = None
    ) -> None:
        self.streams = frozenset(streams)
        self.wake = wake
        self._rows: deque[Row] = deque(maxlen=limit)

    def put(self, rows: list[Row]) -> None:
        """On the journal's thread, once the rows are committed."""
        self._rows.extend(rows)

    def take(self, limit: int) -> list[Row]:
        """On the loop: up to `limit` of the rows fed since the last take, in commit order."""
        out: list[Row] = []
        rows = self._rows
        while len(out) < limit:
            try:
                out.append(rows.popleft())
            except IndexError:
                break
        return out


class Feeds:
    """A journal's feeds, by stream (one publisher a stream)."""

    def __init__(self) -> None:
        self._by_stream: dict[str, Feed] = {}
        # The wakes of the feeds fed since `due` last took them (the journal's thread's).
        self._due: dict[Wake, None] = {}

    def follow(
        self, streams: Iterable[str], limit: int = FEED_LIMIT, wake: Wake | None = None
    ) -> Feed:
        """A new feed of `streams`' commits (replacing any older feed of them), woken by
        `wake` when a commit feeds it."""
        feed = Feed(streams, limit, wake)
        # A new dict, swapped in whole: the journal's thread may be reading the old one.
        self._by_stream = {**self._by_stream, **dict.fromkeys(feed.streams, feed)}
        return feed

    def unfollow(self, feed: Feed) -> None:
        """Stop feeding `feed` (its publisher's connection ended)."""
        self._by_stream = {s: f for s, f in self._by_stream.items() if f is not feed}

    def put(self, rows: list[Row]) -> None:
        """The rows a commit stored (journal's thread, after the COMMIT), to their feeds."""
        by_stream = self._by_stream
        if not by_stream:
            return
        due = self._due
        for row in rows:
            feed = by_stream.get(row[0])
            if feed is not None:
                feed.put([row])
                if feed.wake is not None:
                    due[feed.wake] = None

    def due(self) -> list[Wake]:
        """The wakes of the feeds fed since the last call (journal's thread), taken."""
        if not self._due:
            return []
        due, self._due = self._due, {}
        return list(due)
