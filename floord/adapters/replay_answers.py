"""What an adapter process reads to answer the daemon's replay request, and when it says
`device.online` again for it.

A replay request names the first seq the daemon lacks; the answer is a batch of the
stored rows from there (`DEVICE_REPLAY_BATCH`). With `announce: true` the adapter also
says `device.online` again (`announced: true`) when its device is online and no
`device.online` lies between that seq and the stream's last: a restarted daemon counts
every device as not seen.

Two bounds keep a request's cost and its rows independent of what the sender asks:
- Where the stream last said `device.online` is kept as rows are read: each request
  reads only the rows appended since the one before (`OnlineSeen`), so a catch-up of a
  long stream, a batch at a time, reads each row once, not once a batch.
- An announcement adds a row to the record, so at most one is made a second
  (`ANNOUNCE_EVERY_S`, `AnnounceGate`); one asked for sooner is made when the second
  is up, unless the stream has said `device.online` from the seq asked for since. A
  daemon that restarts gets its announcement at once; a peer repeating requests adds
  a row a second at most.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from floord.contract import DEVICE_REPLAY_BATCH, EventType
from floord.untrusted import read_json

# Rows read at a time when looking for `device.online`.
SCAN_CHUNK = 1000
# The shortest time between two announcements (a row each), in seconds.
ANNOUNCE_EVERY_S = 1.0


class StreamReads(Protocol):
    """The two reads of the adapter's journal a replay makes (`Journal`'s)."""

    def last_seq(self, stream: str) -> int: ...

    def read_range(self, stream: str, from_seq: int, to_seq: int) -> list[str]: ...


class OnlineSeen:
    """The seq of the stream's last `device.online`, read forward from where the last
    look stopped. Runs on the journal's thread (its reads are the journal's)."""

    def __init__(self, journal: StreamReads, stream: str) -> None:
        self._journal = journal
        self._stream = stream
        self.read_to = 0  # the last seq looked at
        self.last_online = 0  # the seq of the last `device.online` seen (0: none)

    def said_since(self, first: int, last: int) -> bool:
        """Whether the stream says `device.online` anywhere in first..last."""
        start = self.read_to + 1
        while start <= last:
            end = min(last, start + SCAN_CHUNK - 1)
            for row in self._journal.read_range(self._stream, start, end):
                body = read_json(row)
                if isinstance(body, dict) and body.get("type") == EventType.DEVICE_ONLINE:
                    seq = body.get("seq")
                    if isinstance(seq, int) and not isinstance(seq, bool):
                        self.last_online = max(self.last_online, seq)
            start = end + 1
        self.read_to = max(self.read_to, last)
        return first <= self.last_online <= last


def replay_rows(
    journal: StreamReads, stream: str, seen: OnlineSeen, first: int, announce: bool
) -> tuple[int, list[str], bool]:
    """The stream's last seq, the rows of a replay from `first`, and, when an
    announcement is asked for, whether the stream says `device.online` from `first` on
    (the daemon reads those rows anyway, so it needs none); run on the journal's thread."""
    last = journal.last_seq(stream)
    end = min(last, first + DEVICE_REPLAY_BATCH - 1)
    rows = journal.read_range(stream, first, end) if first <= last else []
    return last, rows, seen.said_since(first, last) if announce else True


class AnnounceGate:
    """At most one announcement every `every_s` seconds of the loop's clock: one asked
    for sooner waits until the time is up (`due`)."""

    def __init__(self, clock: Callable[[], float], every_s: float = ANNOUNCE_EVERY_S) -> None:
        self._clock = clock
        self._every_s = every_s
        self._last: float | None = None
        self.waiting = False  # an announcement asked for and not yet made

    def ask(self) -> float:
        """An announcement is asked for: 0.0 when it may be made now (it is taken as
        made), else the seconds to wait before `due`."""
        now = self._clock()
        if self._last is None or now - self._last >= self._every_s:
            self._last, self.waiting = now, False
            return 0.0
        self.waiting = True
        return self._every_s - (now - self._last)

    def due(self) -> bool:
        """The wait is over: whether the announcement asked for is still to be made
        (it is taken as made)."""
        if not self.waiting:
            return False
        self._last, self.waiting = self._clock(), False
        return True
