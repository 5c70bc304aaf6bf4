"""Cutting the SS2 byte stream into lines.

The wheel ends every line with CR LF, but lines arrive cut, merged or full of noise.
The framer only splits on LF and bounds a line's length, so a burst of garbage costs one
`device.protocol_error` and the next LF brings the stream back in step. The result is the
same however the bytes are split across reads: a line's fate depends only on its bytes.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Framed:
    """One line's bytes without its LF, or (overlong) the first bytes of a line too long."""

    data: bytes
    overlong: bool = False


class LineFramer:
    """Splits bytes on LF; a line over `max_length` bytes (CR included) is cut and dropped.

    An overlong line is reported once, as soon as it passes the limit, and everything up to
    the next LF is discarded: that is the resynchronisation point.
    """

    def __init__(self, max_length: int) -> None:
        if max_length < 1:
            raise ValueError(f"max_line_length must be positive, found {max_length}")
        self._max = max_length
        self._buffer = bytearray()
        self._discarding = False

    @property
    def max_length(self) -> int:
        return self._max

    def reset(self) -> None:
        self._buffer.clear()
        self._discarding = False

    def feed(self, data: bytes) -> list[Framed]:
        out: list[Framed] = []
        start = 0
        while (end := data.find(b"\n", start)) >= 0:
            piece = data[start:end]
            start = end + 1
            if self._discarding:
                self._discarding = False
                continue
            self._buffer += piece
            line = bytes(self._buffer)
            self._buffer.clear()
            if len(line) > self._max:
                out.append(Framed(line[: self._max + 1], overlong=True))
            else:
                out.append(Framed(line))
        if not self._discarding:
            self._buffer += data[start:]
            if len(self._buffer) > self._max:
                out.append(Framed(bytes(self._buffer[: self._max + 1]), overlong=True))
                self._buffer.clear()
                self._discarding = True
        return out
