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

`deque.extend` on the journal's thread and `popleft` on the loop's are each atomic in
CPython, so a feed needs no lock.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

# Rows a feed holds: several of the link's batches (`floord.journal.batches`).
from floord.journal.batches import FEED_LIMIT

Row = tuple[str, int, str]  # (stream, seq, stored JSON)


class Feed:
    """The rows committed on some streams since the publisher last took them."""

    def __init__(self, streams: Iterable[str], limit: int = FEED_LIMIT) -> None:
        self.streams = frozenset(streams)
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

    def follow(self, streams: Iterable[str], limit: int = FEED_LIMIT) -> Feed:
        """A new feed of `streams`' commits (replacing any older feed of them)."""
        feed = Feed(streams, limit)
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
        for row in rows:
            feed = by_stream.get(row[0])
            if feed is not None:
                feed.put([row])
