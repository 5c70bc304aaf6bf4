"""A host's ear for the simulated card devices, written from `docs/protocols/framing.md`.

It does not use `simulators/flf1/wire.py`: its own regular expression splits frames, its own
checksums (`binascii.crc_hqx`, a plain xor) check them, so a misreading of the page in
the simulator's wire code cannot pass its own tests. Profiles are built in code.
"""

from __future__ import annotations

import asyncio
import binascii
import contextlib
import itertools
import os
import re
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from functools import reduce
from operator import xor
from typing import Any

from floord.profiles import DeviceProfile
from simulators.link import open_pty_link

HANG_S = 15.0  # a guard against a hung test, not a claim about speed
FRAME = re.compile(
    rb"\x02([0-9A-F]{2})\|([A-Z]{3})((?:\|[\x20-\x7b\x7d\x7e]*)*)\x03([0-9A-F]{2}|[0-9A-F]{4})\r\n"
)


def host_checksum(body: bytes, algorithm: str) -> str:
    if algorithm == "xor8":
        return f"{reduce(xor, body, 0):02X}"
    return f"{binascii.crc_hqx(body, 0xFFFF):04X}"


def host_frame(seq: int, kind: str, fields: tuple[str, ...], algorithm: str) -> bytes:
    body = f"{seq:02X}|{kind}".encode() + b"".join(b"|" + f.encode() for f in fields)
    return b"\x02" + body + b"\x03" + host_checksum(body, algorithm).encode() + b"\r\n"


@dataclass(frozen=True)
class Seen:
    """One frame the host read: `good` is whether its checksum is right."""

    seq: int
    kind: str
    fields: tuple[str, ...]
    good: bool
    raw: bytes
    at: float


class HostEnd:
    """Frames from the device's bytes; ACKs every good frame but ACK when `auto_ack`."""

    def __init__(self, write: Callable[[bytes], Any], algorithm: str, auto_ack: bool) -> None:
        self.loop = asyncio.get_running_loop()
        self.algorithm = algorithm
        self.auto_ack = auto_ack
        self.frames: list[Seen] = []
        self.junk: list[bytes] = []
        self.seq = 0
        self._write = write
        self._pending = bytearray()
        self._arrived = asyncio.Event()

    def feed(self, data: bytes) -> None:
        self._pending += data
        while True:
            end = self._pending.find(b"\r\n")
            if end < 0:
                break
            chunk = bytes(self._pending[: end + 2])
            del self._pending[: end + 2]
            start = chunk.rfind(b"\x02")
            match = FRAME.fullmatch(chunk[start:]) if start >= 0 else None
            if start != 0 or match is None:
                self.junk.append(chunk)
            if match is None:
                continue
            seq, kind, rest, chk = match.groups()
            body = chunk[start + 1 : chunk.index(b"\x03", start)]
            good = chk.decode() == host_checksum(body, self.algorithm)
            fields = tuple(rest.decode().split("|")[1:])
            self.frames.append(
                Seen(int(seq, 16), kind.decode(), fields, good, chunk, self.loop.time())
            )
            if self.auto_ack and good and kind != b"ACK":
                self.send("ACK", (f"{int(seq, 16):02X}",))
        self._arrived.set()

    def send(self, kind: str, fields: tuple[str, ...] = ()) -> int:
        seq = self.seq
        self.seq = (self.seq + 1) % 256
        self._write(host_frame(seq, kind, fields, self.algorithm))
        return seq

    def send_raw(self, data: bytes) -> None:
        self._write(data)

    async def wait_for(self, predicate: Callable[[Seen], bool], start: int = 0) -> int:
        """The index of the first frame from `start` that satisfies `predicate`."""
        deadline = self.loop.time() + HANG_S
        while True:
            for index in range(start, len(self.frames)):
                if predicate(self.frames[index]):
                    return index
            remaining = deadline - self.loop.time()
            if remaining <= 0:
                raise AssertionError(f"no such frame; last: {self.frames[-6:]!r}")
            self._arrived.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._arrived.wait(), remaining)

    async def wait_kind(self, kind: str, start: int = 0) -> int:
        return await self.wait_for(lambda f: f.kind == kind and f.good, start)

    def distinct(self, start: int = 0) -> list[Seen]:
        """Good frames, a resend (same SEQ and bytes as the one before) counted once."""
        out: list[Seen] = []
        for frame in self.frames[start:]:
            if frame.good and not (out and out[-1].raw == frame.raw):
                out.append(frame)
        return out

    def messages(self, start: int = 0) -> list[tuple[str, ...]]:
        """Type and fields of each distinct frame but the link's own (HBT, ACK)."""
        return [(f.kind, *f.fields) for f in self.distinct(start) if f.kind not in ("HBT", "ACK")]


def assert_sequence_increases(frames: list[Seen]) -> None:
    for before, after in itertools.pairwise(frames):
        assert after.seq == (before.seq + 1) % 256, (before, after)


class PtyHost(HostEnd):
    """The host's side of a real pty: raw os.read and os.write on the slave."""

    def __init__(self, path: str, algorithm: str, auto_ack: bool) -> None:
        self.fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        super().__init__(lambda data: os.write(self.fd, data), algorithm, auto_ack)
        self.loop.add_reader(self.fd, self._readable)

    def _readable(self) -> None:
        with contextlib.suppress(BlockingIOError):
            self.feed(os.read(self.fd, 4096))

    def close(self) -> None:
        self.loop.remove_reader(self.fd)
        os.close(self.fd)


TIMEOUTS = {
    "silence_s": 3.0, "connect_s": 3.0, "reply_s": 1.0, "power_on_quiet_s": 0.0,
    "reconnect_min_s": 0.5, "reconnect_max_s": 5.0,
}  # fmt: skip
SIMULATOR_OF = {"card_reader": "card_reader", "dealing_shoe": "dealing_shoe",
                "card_shuffler": "card_shuffler"}  # fmt: skip
# Slow ACK timeouts unless a test is about resends: a busy machine must not cause one.
CALM = {"ack_timeout_s": 3.0, "heartbeat_s": 0.5}


def profile(family: str, **quirks: Any) -> DeviceProfile:
    return DeviceProfile.model_validate({
        "spec": 1, "model": f"test-{family.replace('_', '-')}", "maker": "floord reference",
        "name": f"a {family} built in a test", "family": family, "driver": SIMULATOR_OF[family],
        "simulator": SIMULATOR_OF[family], "serial": {"baudrate": 19200}, "timeouts": TIMEOUTS,
        "quirks": {**CALM, **quirks},
    })  # fmt: skip


@contextlib.asynccontextmanager
async def on_pty(
    simulator: Any, *, algorithm: str = "crc16-ccitt", auto_ack: bool = True
) -> AsyncIterator[tuple[PtyHost, asyncio.Task[None]]]:
    """A built simulator on a real pty, the host side open; everything closed afterwards."""
    fds_before = set(os.listdir("/proc/self/fd"))
    link, path = await open_pty_link()
    host = PtyHost(path, algorithm, auto_ack)
    task = asyncio.create_task(simulator.run(link))
    try:
        yield host, task
    finally:
        task.cancel()
        (outcome,) = await asyncio.gather(task, return_exceptions=True)
        host.close()
        await link.close()
        if isinstance(outcome, Exception):
            raise outcome
        assert asyncio.all_tasks() == {asyncio.current_task()}
        assert set(os.listdir("/proc/self/fd")) <= fds_before  # no descriptor left open
