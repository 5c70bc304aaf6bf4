"""A device session's reading: each chunk decoded in the transport's callback that read it.

A wheel repeats its status frame several times a second (eight at the load bench's 4x
clock), so a daemon of 50 tables reads about 400 chunks a second, nearly all of which
the driver turns into nothing. Read by a task, each chunk would wake it: a future set, a
handle queued, one more turn of the event loop, the task resumed and suspended again.
Here the transport hands the chunk to `Reception.received` (`floord.transport.base`),
which feeds the driver and hands on what it said in that same callback; the session's
task sleeps until it is needed.

The driver's own bytes to the device (`Outgoing`, an acknowledgement) are written in
the callback too, when the link takes them at once and no command is being written:
an acknowledgement goes out before anything another task writes after its frame was
read (a device that answers requests only once its frame is acknowledged sees them in
the order a read loop wrote them). Only when one must be awaited (the link's buffer is
full, a command's write under way) is the session's task needed: nothing the device
said after it may be handed on before it is written, so an `Outgoing` and everything
after it are held, in order, with every chunk read meanwhile, until the task has
written it and caught up. The task also sees the session's end: the link closed or
broke (after every chunk read before it), the adapter stopping, or a failure (the
driver's, or the identification's), which it raises as a read loop would have. Silence
is timed as a read loop's would be: from the moment the reading caught up with what the
device said (`floord.adapters.silence`).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable, Sequence

from floord.adapters.silence import Silence
from floord.events import DeviceEvent, DeviceOutput, DeviceReply, Outgoing
from floord.transport.base import TransportError


class Reception:
    """What one session reads, decoded as it arrives (a `floord.transport.base.Receiver`).

    `take(data)` feeds a chunk to the driver (and notes that the device spoke); `hand`
    passes on one of its outputs that is not `Outgoing`; `write_now` writes an
    `Outgoing`'s bytes if that needs no wait (False: it does), `write` awaits them;
    `limit()` is the silence allowed from now; `stopping()` says the adapter
    stops, after which nothing read is taken."""

    def __init__(
        self,
        *,
        take: Callable[[bytes], Sequence[DeviceOutput]],
        hand: Callable[[DeviceEvent | DeviceReply], None],
        write_now: Callable[[bytes], bool],
        write: Callable[[bytes], Awaitable[None]],
        silence: Silence,
        limit: Callable[[], float],
        stopping: Callable[[], bool],
    ) -> None:
        self._take = take
        self._hand = hand
        self._write_now = write_now
        self._write = write
        self._silence = silence
        self._limit = limit
        self._stopping = stopping
        # From an `Outgoing` not yet written: it, the outputs after it and the chunks
        # read since, in order.
        self._held: deque[bytes | DeviceOutput] = deque()
        self._woken = asyncio.Event()
        self._ended = False
        self._end: str | None = None
        self._failure: BaseException | None = None
        self._over = False

    # ----- the transport's callbacks --------------------------------------------------

    def received(self, data: bytes) -> None:
        if self._over or self._ended or self._failure is not None:
            return
        if self._stopping():
            self._finish(None)
            return
        self._silence.done()
        if self._held:
            self._held.append(data)
            return
        try:
            self._pass(deque(self._take(data)))
        except Exception as exc:  # the driver's or the record's: the session fails
            self.fail(exc)
            return
        if not self._held:
            self._silence.reading(self._limit())

    def lost(self, error: TransportError | None) -> None:
        if self._over or self._ended or self._failure is not None:
            return
        self._finish(f"link broke: {error}" if error is not None else "link closed")

    # ----- the session's --------------------------------------------------------------

    def fail(self, failure: BaseException) -> None:
        """End the session with `failure`, raised by `run`; what is held is dropped."""
        if self._over or self._failure is not None:
            return
        self._failure = failure
        self._held.clear()
        self._woken.set()

    async def run(self) -> str | None:
        """Write what is held as it comes, until the session ends; then why the device is
        offline (None: the adapter stops), or raise what failed."""
        while True:
            await self._woken.wait()
            self._woken.clear()
            while self._held and self._failure is None:
                item = self._held.popleft()
                if isinstance(item, Outgoing):
                    try:
                        await self._write(item.payload)
                    except TransportError as exc:
                        return f"link broke: {exc}"
                elif isinstance(item, bytes):
                    if self._stopping():
                        return None
                    self._held.extendleft(reversed(self._take(item)))
                else:
                    self._hand(item)
            if self._failure is not None:
                raise self._failure
            if self._ended:
                return self._end
            self._silence.reading(self._limit())

    def close(self) -> None:
        """The session is over: whatever the transport still calls back with is dropped."""
        self._over = True
        self._held.clear()

    # ----- within ---------------------------------------------------------------------

    def _pass(self, outputs: deque[DeviceOutput]) -> None:
        """Hand on `outputs` in order, writing each `Outgoing` at once; from one that
        must be awaited, it and the rest wait for the task. A link that ended while
        written to ends the session; the rest is dropped."""
        while outputs:
            item = outputs.popleft()
            if isinstance(item, Outgoing):
                try:
                    written = self._write_now(item.payload)
                except TransportError as exc:
                    self._finish(f"link broke: {exc}")
                    return
                if not written:
                    self._held.append(item)
                    self._held.extend(outputs)
                    self._woken.set()
                    return
            else:
                self._hand(item)

    def _finish(self, end: str | None) -> None:
        """The link ended (or the adapter stops): once what is held is written and
        handed on, `run` returns `end`."""
        self._ended, self._end = True, end
        self._woken.set()
