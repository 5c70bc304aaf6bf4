"""The device side of FLF/1, the framing every simulated card-table device shares.

Built from `docs/protocols/framing.md` alone (never from `drivers/`), so one misreading
cannot hide in both ends. It holds the link quirks a profile may set and `FrameChannel`:
the device's numbering, acknowledgement, resend and heartbeat machinery over a `Link`;
the bytes of a frame (checksums, the frame writer, the host's parser) are `wire.py`'s.

Readings of the page where it leaves a choice (the strict one each time):
- Stop and wait. The host calls a frame whose SEQ is neither the last one + 1 nor the
  same as the last one "lost", so a resend is only a repeat when nothing was numbered in
  between. The device therefore sends nothing numbered (not even an `ACK`) while one of
  its frames waits for its `ACK`; the waiting `ACK`s go first once that frame is
  acknowledged or given up.
- A frame the device gives up is followed at once by `FLT|90`. A given-up `FLT|90` is not
  followed by another one: the loss is already being reported, and a deaf host would
  otherwise get an endless chain of them.
- An empty read from the link (a client came or left, a dead line came back) is a
  reconnect: the counter restarts at `00`, the frame awaiting its `ACK` is dropped and
  half a host frame is forgotten. Frames not yet sent stay queued.
- Host frames: `IDQ` and `TST` with a good form and checksum are acknowledged, then
  answered. One with fields is acknowledged and refused with `NAK|2|bad field`. An
  unknown `TYPE` is not acknowledged (as the page says) and is refused with
  `NAK|1|unknown command`. Bad checksums and bad forms are ignored (no `ACK`), counted in
  `host_errors`. The device does not de-duplicate host frames: the page gives the repeat
  rule to the host only, and answering `IDQ` or `TST` twice is harmless.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from floord.profiles import DeviceProfile
from simulators.flf1.wire import CHECKSUMS, BadFrame, FrameParser, HostFrame, encode_frame
from simulators.link import Link

LINK_FAULT: tuple[str, str] = ("90", "link: frame not acknowledged")
HOST_TYPES = frozenset({"IDQ", "TST", "ACK"})


# ----- the profile's link quirks ------------------------------------------------------


def _number(profile: DeviceProfile, key: str, default: Any, *, integer: bool, least: int) -> Any:
    """A numeric quirk: an integer >= `least`, or (not `integer`) a number > 0."""
    value = profile.quirks.get(key, default)
    if integer:
        good = isinstance(value, int) and not isinstance(value, bool) and value >= least
        expected = f"an integer >= {least}"
    else:
        good = isinstance(value, int | float) and not isinstance(value, bool) and value > 0
        expected = "a number > 0"
    if not good:
        raise ValueError(
            f"profile {profile.model}: quirks.{key}: {expected} expected, found {value!r}"
        )
    return value


@dataclass(frozen=True)
class LinkQuirks:
    """The FLF/1 settings a profile's `quirks` may change (the page's defaults otherwise)."""

    checksum: str = "crc16-ccitt"
    ack_timeout_s: float = 0.5
    max_resends: int = 3
    heartbeat_s: float = 1.0
    max_frame_length: int = 256

    @classmethod
    def of(cls, profile: DeviceProfile) -> LinkQuirks:
        algorithm = profile.quirks.get("checksum", cls.checksum)
        if algorithm not in CHECKSUMS:
            raise ValueError(
                f"profile {profile.model}: quirks.checksum: one of {', '.join(CHECKSUMS)} "
                f"expected, found {algorithm!r}"
            )
        return cls(
            checksum=algorithm,
            ack_timeout_s=float(_number(profile, "ack_timeout_s", 0.5, integer=False, least=0)),
            max_resends=_number(profile, "max_resends", 3, integer=True, least=0),
            heartbeat_s=float(_number(profile, "heartbeat_s", 1.0, integer=False, least=0)),
            max_frame_length=_number(profile, "max_frame_length", 256, integer=True, least=16),
        )


# ----- the channel --------------------------------------------------------------------

Answer = Callable[[HostFrame], list[tuple[str, tuple[str, ...]]]]


@dataclass
class _Waiting:
    """The one frame sent and not yet acknowledged."""

    seq: int
    kind: str
    fields: tuple[str, ...]
    frame: bytes
    deadline: float
    resends: int = 0
    acked: bool = False


@dataclass(frozen=True)
class _Queued:
    kind: str = ""
    fields: tuple[str, ...] = ()
    raw: bytes | None = None


@dataclass
class ChannelLog:
    """What the channel did, for tests and for an engineer reading a simulator's state."""

    resends: int = 0
    given_up: list[int] = field(default_factory=list)
    acks_ignored: int = 0
    host_errors: list[str] = field(default_factory=list)
    resets: int = 0


class FrameChannel:
    """The device's end of one FLF/1 link: numbers, sends, resends, acknowledges, beats.

    `answer` turns an accepted `IDQ` or `TST` into the reply frames (type, fields).
    """

    def __init__(self, link: Link, quirks: LinkQuirks, speed: float, answer: Answer) -> None:
        self.quirks = quirks
        self.log = ChannelLog()
        self._link = link
        self._speed = speed
        self._answer = answer
        self._loop = asyncio.get_running_loop()
        self._parser = FrameParser(quirks.checksum, quirks.max_frame_length)
        self._queue: deque[_Queued] = deque()
        self._acks: deque[int] = deque()
        self._waiting: _Waiting | None = None
        self._seq = 0
        self._muted = False
        self._garble = False
        self._drop_acks = 0
        self._last_write = self._loop.time()
        self._wake = asyncio.Event()
        self._progress = asyncio.Event()  # set each time the sender did something
        self._tasks: list[asyncio.Task[None]] = []

    # ----- what the device asks for ----------------------------------------------------

    def start(self) -> None:
        self._last_write = self._loop.time()
        self._tasks = [
            asyncio.create_task(self._read_host(), name="flf-device-read"),
            asyncio.create_task(self._send_loop(), name="flf-device-send"),
        ]

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks = []

    def frame_length(self, kind: str, fields: Sequence[str]) -> int:
        return len(encode_frame(0, kind, fields, self.quirks.checksum))

    def send(self, kind: str, fields: Sequence[str]) -> None:
        """Queue a frame that needs an `ACK` (refused at once if it is too long or bad)."""
        length = self.frame_length(kind, fields)
        if length > self.quirks.max_frame_length:
            raise ValueError(f"{kind}: {length} bytes, over max_frame_length")
        self._queue.append(_Queued(kind, tuple(fields)))
        self._wake.set()

    def send_raw(self, data: bytes) -> None:
        """Queue bytes to be written verbatim, in order with the frames."""
        self._queue.append(_Queued(raw=data))
        self._wake.set()

    def garble_next(self) -> None:
        """The next frame that needs an `ACK` goes out once with a wrong checksum."""
        self._garble = True

    def drop_acks(self, count: int) -> None:
        """Ignore the host's next `count` ACKs (so frames are resent)."""
        self._drop_acks += count

    async def quiet(self, seconds: float) -> None:
        """Send nothing (not even heartbeats) and hear nothing for `seconds` device time.

        What was queued before goes out first, so a scenario's steps keep their order.
        """
        await self._settle(lambda: not (self._queue or self._acks))
        self._muted = True
        try:
            await asyncio.sleep(seconds / self._speed)
        finally:
            self._muted = False
            self._wake.set()

    async def unplug(self, seconds: float) -> None:
        """The link drops for `seconds` (see `Link.drop`) once what was queued went out."""
        await self._settle(lambda: not (self._queue or self._acks))
        self._muted = True
        try:
            await self._link.drop(seconds / self._speed)
        finally:
            self._muted = False
            self._wake.set()

    async def drain(self) -> None:
        """Wait until every queued frame was acknowledged or given up."""
        await self._settle(lambda: not (self._queue or self._acks or self._waiting))

    async def _settle(self, done: Callable[[], bool]) -> None:
        while not done():
            self._progress.clear()
            await self._progress.wait()

    # ----- sending ---------------------------------------------------------------------

    async def _write(self, data: bytes) -> None:
        await self._link.write(data)
        self._last_write = self._loop.time()

    def _next_seq(self) -> int:
        seq = self._seq
        self._seq = (self._seq + 1) % 256
        return seq

    async def _send_loop(self) -> None:
        while True:
            self._wake.clear()
            timeout = await self._step()
            self._progress.set()
            if timeout == 0.0:
                continue
            # asyncio.timeout, not wait_for: on 3.11 wait_for can swallow a cancellation
            # that arrives as the event is set, and the channel would never close.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(timeout):
                    await self._wake.wait()

    async def _step(self) -> float | None:
        """Do the one next thing; return how long to wait for news (0: go on, None: ever)."""
        if self._muted:
            return None
        now = self._loop.time()
        waiting = self._waiting
        if waiting is not None:
            if waiting.acked:
                self._waiting = None
                return 0.0
            if now < waiting.deadline:
                return waiting.deadline - now
            if waiting.resends < self.quirks.max_resends:
                waiting.resends += 1
                self.log.resends += 1
                waiting.deadline = now + self.quirks.ack_timeout_s / self._speed
                await self._write(waiting.frame)
                return 0.0
            self._waiting = None
            self.log.given_up.append(waiting.seq)
            if (waiting.kind, waiting.fields[:1]) != ("FLT", LINK_FAULT[:1]):
                self._queue.appendleft(_Queued("FLT", LINK_FAULT))
            return 0.0
        if self._acks:
            seq = self._acks.popleft()
            await self._write(
                encode_frame(self._next_seq(), "ACK", [f"{seq:02X}"], self.quirks.checksum)
            )
            return 0.0
        if self._queue:
            await self._transmit(self._queue.popleft(), now)
            return 0.0
        due = self._last_write + self.quirks.heartbeat_s / self._speed
        if now >= due:
            self._queue.append(_Queued("HBT"))
            return 0.0
        return due - now

    async def _transmit(self, item: _Queued, now: float) -> None:
        if item.raw is not None:
            await self._write(item.raw)
            return
        seq = self._next_seq()
        frame = encode_frame(seq, item.kind, item.fields, self.quirks.checksum)
        deadline = now + self.quirks.ack_timeout_s / self._speed
        self._waiting = _Waiting(seq, item.kind, item.fields, frame, deadline)
        if self._garble:
            self._garble = False
            garbled = encode_frame(seq, item.kind, item.fields, self.quirks.checksum, garble=True)
            await self._write(garbled)
        else:
            await self._write(frame)

    # ----- hearing the host ------------------------------------------------------------

    def _reset(self) -> None:
        """A reconnect: counters from 00, the waiting frame and half a host frame dropped."""
        self.log.resets += 1
        self._seq = 0
        self._waiting = None
        self._acks.clear()
        self._parser.reset()
        self._wake.set()

    async def _read_host(self) -> None:
        while True:
            data = await self._link.read()
            if not data:
                self._reset()
                continue
            if self._muted:
                continue
            for item in self._parser.feed(data):
                if isinstance(item, BadFrame):
                    self.log.host_errors.append(f"{item.reason}: {item.raw!r}"[:120])
                else:
                    self._accept(item)
            self._wake.set()

    def _accept(self, frame: HostFrame) -> None:
        if frame.kind == "ACK":
            self._on_ack(frame)
            return
        if frame.kind not in HOST_TYPES:
            self.log.host_errors.append(f"unknown type {frame.kind}")
            self._queue.append(_Queued("NAK", ("1", "unknown command")))
            return
        self._acks.append(frame.seq)
        if frame.fields:
            self._queue.append(_Queued("NAK", ("2", "bad field")))
            return
        for kind, fields in self._answer(frame):
            self.send(kind, fields)

    def _on_ack(self, frame: HostFrame) -> None:
        if len(frame.fields) != 1 or re.fullmatch(r"[0-9A-F]{2}", frame.fields[0]) is None:
            self.log.host_errors.append(f"ACK with bad fields {frame.fields!r}")
            return
        if self._drop_acks > 0:
            self._drop_acks -= 1
            self.log.acks_ignored += 1
            return
        waiting = self._waiting
        if waiting is not None and int(frame.fields[0], 16) == waiting.seq:
            waiting.acked = True
        else:
            self.log.host_errors.append(f"ACK of {frame.fields[0]}: no such frame waiting")
