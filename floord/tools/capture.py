"""Capture a real device's bytes to a file, and turn a capture into golden-frame steps.

A driver's golden files (`tests/golden/`) are byte sequences with the times they came at;
the surest source of such bytes is the device itself. `capture` listens on a port (a
serial device, a pty, `socket://HOST:PORT`) and records every read as it came, with
its time since the capture started (monotonic clock), hex-encoded, one JSON object a
line, written and flushed as it arrives so a capture cut short keeps what it had::

    {"capture": 1, "port": "/dev/ttyUSB0", "baud": 9600, "started": "2026-...Z", ...}
    {"t": 0.000412, "dir": "in", "hex": "2a583b363b3031303b32333b303b3030303b300d0a"}
    {"t": 0.5003, "dir": "in", "hex": "..."}

`dir` is `in` (from the device) or `out` (bytes the capture itself sent with `--send`,
such as `*V\\r\\n` to make a wheel identify itself). The capture is a passive listener
besides: a device that waits for a host's acknowledgements (FLF/1) repeats its frames
and gives up, as it would with an absent host; tap such a line instead of replacing
the host (see docs/rigs.md).

`golden_steps` turns a capture into the `> <now> b"<bytes>"` lines both golden formats
share. It does not write the `<` lines (what the driver must make of the bytes): those
are written by hand from the protocol reference, or the golden test would only check
the driver against itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from floord.profiles import SerialSettings
from floord.transport.base import Transport
from floord.transport.stream import TransportError, open_transport
from floord.untrusted import read_json

CAPTURE_VERSION = 1
OPEN_TIMEOUT_S = 5.0


class CaptureError(ValueError):
    """A capture that cannot be made or read; the message names the file and line."""


@dataclass(frozen=True)
class Chunk:
    """One read (or one write of `--send`) and when it happened, in capture seconds."""

    t: float
    data: bytes
    direction: str = "in"

    def to_json(self) -> str:
        return json.dumps({"t": round(self.t, 6), "dir": self.direction, "hex": self.data.hex()})


def header(port: str, settings: SerialSettings, profile: str | None) -> str:
    """The first line of a capture: where, how and when it was made."""
    return json.dumps(
        {
            "capture": CAPTURE_VERSION,
            "port": port,
            "baud": settings.baudrate,
            "serial": f"{settings.bytesize}{settings.parity}{settings.stopbits}",
            "profile": profile,
            "started": datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z"),
        }
    )


async def capture(
    port: str,
    settings: SerialSettings,
    seconds: float,
    out: IO[str],
    *,
    send: Iterable[bytes] = (),
    profile: str | None = None,
) -> tuple[int, int]:
    """Record what `port` sends for `seconds` (or until it closes, or SIGINT/SIGTERM).

    Returns (chunks, bytes) received. Raises `TransportError` if the port cannot be opened.
    """
    if not seconds > 0:
        raise CaptureError(f"seconds: > 0 expected, found {seconds}")
    transport = await open_transport(port, settings, OPEN_TIMEOUT_S)
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    handled = []
    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signum, stop.set)
            handled.append(signum)
    out.write(header(port, settings, profile) + "\n")
    out.flush()
    started = loop.time()
    chunks = total = 0
    try:
        for sent in send:
            await transport.write(sent)
            out.write(Chunk(loop.time() - started, sent, "out").to_json() + "\n")
        out.flush()
        while not stop.is_set():
            remaining = started + seconds - loop.time()
            if remaining <= 0:
                break
            data = await _read_or_stop(transport, stop, remaining)
            if data is None:
                break
            if not data:
                break  # the port closed (a socket peer left)
            chunks += 1
            total += len(data)
            out.write(Chunk(loop.time() - started, data).to_json() + "\n")
            out.flush()
    finally:
        for signum in handled:
            loop.remove_signal_handler(signum)
        await transport.close()
    return chunks, total


async def _read_or_stop(transport: Transport, stop: asyncio.Event, timeout: float) -> bytes | None:
    """The next read, or None when the time is up or a stop was asked for."""
    reading = asyncio.ensure_future(transport.read())
    stopping = asyncio.ensure_future(stop.wait())
    try:
        done, _ = await asyncio.wait(
            {reading, stopping}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
        )
        if reading in done:
            return reading.result()
        return None
    except TransportError:
        return b""
    finally:
        for task in (reading, stopping):
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, TransportError):
                    await task


def read_capture(path: Path) -> tuple[dict[str, Any], list[Chunk]]:
    """A capture file's header and chunks; a line it cannot read is an error naming it."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise CaptureError(f"{path}: cannot read: {exc}") from exc
    if not lines:
        raise CaptureError(f"{path}: empty, a capture header expected")
    head = _json_line(path, 1, lines[0])
    if head.get("capture") != CAPTURE_VERSION:
        raise CaptureError(f"{path}:1: a capture {CAPTURE_VERSION} header expected, found {head}")
    chunks = []
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        item = _json_line(path, number, line)
        t, direction, text = item.get("t"), item.get("dir"), item.get("hex")
        if not isinstance(t, int | float) or isinstance(t, bool) or t < 0:
            raise CaptureError(f"{path}:{number}: t: seconds >= 0 expected, found {t!r}")
        if direction not in ("in", "out") or not isinstance(text, str):
            raise CaptureError(f"{path}:{number}: dir in|out and hex text expected, found {item}")
        try:
            data = bytes.fromhex(text)
        except ValueError as exc:
            raise CaptureError(f"{path}:{number}: hex: {exc}") from exc
        chunks.append(Chunk(float(t), data, direction))
    return head, chunks


def _json_line(path: Path, number: int, line: str) -> dict[str, Any]:
    try:
        item = read_json(line)
    except ValueError as exc:
        raise CaptureError(f"{path}:{number}: a JSON object expected: {exc}") from exc
    if not isinstance(item, dict):
        raise CaptureError(f"{path}:{number}: a JSON object expected, found {line[:60]!r}")
    return item


def _lines(chunks: Iterable[Chunk]) -> Iterator[tuple[float, bytes]]:
    """Whole lines (up to and with LF), each at the time of the read that ended it."""
    pending = b""
    last = 0.0
    for chunk in chunks:
        pending += chunk.data
        last = chunk.t
        while b"\n" in pending:
            line, _, pending = pending.partition(b"\n")
            yield chunk.t, line + b"\n"
    if pending:
        yield last, pending  # a line the capture ended in the middle of, as it was


def golden_steps(
    chunks: Iterable[Chunk],
    *,
    split: str = "lines",
    start: float = 0.0,
    end: float | None = None,
) -> list[str]:
    """`> <now> <bytes literal>` lines of the device's bytes between `start` and `end`.

    `split`: `lines` (one step per line the device sent: what a reviewer reads best) or
    `reads` (one step per read, as the port gave them: keeps the real cut points). Times
    start at 0.0 at the first step, in milliseconds.
    """
    if split not in ("lines", "reads"):
        raise CaptureError(f"split: lines or reads expected, found {split!r}")
    received = [c for c in chunks if c.direction == "in"]
    pieces = _lines(received) if split == "lines" else ((c.t, c.data) for c in received)
    kept = [(t, data) for t, data in pieces if t >= start and (end is None or t <= end)]
    if not kept:
        return []
    origin = kept[0][0]
    return [f"> {round(t - origin, 3)} {data!r}" for t, data in kept]


def golden_case(name: str, steps: list[str], source: str) -> str:
    """A golden case holding the steps; its `<` lines are left for a person to write."""
    return "\n".join(
        [
            f"# Captured from a real device ({source}). The `<` lines (what the driver must",
            "# give) are to be written by hand from the protocol reference, under each step.",
            f"=== {name}",
            *steps,
            "",
        ]
    )
