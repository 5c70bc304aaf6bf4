"""FLF/1 frames as bytes: checksums, encoding, decoding, and cutting a stream into frames.

The codec half of `docs/protocols/framing.md`, shared by the three card-device families'
drivers (`drivers/flf1/framed.py`). It knows nothing of message types beyond the frame's form.
"""

from __future__ import annotations

import binascii
import re
from collections.abc import Callable
from dataclasses import dataclass

STX, ETX = 0x02, 0x03
HEX2 = re.compile(r"[0-9A-F]{2}")
_TYPE = re.compile(r"[A-Z]{3}")


# ----- checksums ------------------------------------------------------------------


def crc16_ccitt_false(data: bytes) -> int:
    """CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, no final xor.

    `binascii.crc_hqx` is exactly that CRC (XMODEM's) when started at 0xFFFF."""
    return binascii.crc_hqx(data, 0xFFFF)


def xor8(data: bytes) -> int:
    """The xor of all bytes."""
    value = 0
    for byte in data:
        value ^= byte
    return value


# name -> (function, hex digits)
CHECKSUMS: dict[str, tuple[Callable[[bytes], int], int]] = {
    "crc16-ccitt": (crc16_ccitt_false, 4),
    "xor8": (xor8, 2),
}


# ----- frame codec ----------------------------------------------------------------


class FrameError(ValueError):
    """A frame that breaks the framing or its message's grammar; the text says how."""


@dataclass(frozen=True)
class Frame:
    """One decoded frame: its sequence number, type, fields and the bytes it came in."""

    seq: int
    type: str
    fields: tuple[str, ...]
    raw: bytes

    @property
    def text(self) -> str:
        """The frame from its TYPE on, as a `DeviceReply` carries it."""
        return "|".join((self.type, *self.fields))


def encode_frame(seq: int, kind: str, fields: tuple[str, ...], checksum: str) -> bytes:
    """The bytes of one frame, STX to LF."""
    if not 0 <= seq <= 0xFF or not _TYPE.fullmatch(kind):
        raise ValueError(f"bad frame header: seq {seq!r}, type {kind!r}")
    for value in fields:
        if any(not 0x20 <= ord(c) <= 0x7E or c == "|" for c in value):
            raise ValueError(f"field {value!r} holds a byte FLF/1 does not allow")
    body = "|".join((f"{seq:02X}", kind, *fields)).encode("ascii")
    function, digits = CHECKSUMS[checksum]
    check = f"{function(body):0{digits}X}".encode("ascii")
    return bytes([STX]) + body + bytes([ETX]) + check + b"\r\n"


def decode_frame(raw: bytes, checksum: str) -> Frame:
    """Check one complete frame (STX to LF) and split it; FrameError says what is wrong."""
    function, digits = CHECKSUMS[checksum]
    end = raw.find(ETX)
    if raw[:1] != bytes([STX]) or end < 0:
        raise FrameError("frame without STX and ETX")
    body, trailer = raw[1:end], raw[end + 1 :]
    check = trailer[:digits].decode("ascii", "replace")
    if trailer[digits:] != b"\r\n" or not re.fullmatch(f"[0-9A-F]{{{digits}}}", check):
        raise FrameError(f"bad trailer: {digits} upper-case hex digits then CR LF expected")
    computed = function(body)
    if int(check, 16) != computed:
        raise FrameError(f"checksum mismatch: frame says {check}, computed {computed:0{digits}X}")
    if any(not 0x20 <= b <= 0x7E for b in body):
        raise FrameError("control or non-ASCII byte inside the frame")
    parts = body.decode("ascii").split("|")
    if len(parts) < 2 or not HEX2.fullmatch(parts[0]) or not _TYPE.fullmatch(parts[1]):
        raise FrameError("bad header: SEQ (2 upper-case hex) | TYPE (3 upper-case letters)")
    return Frame(int(parts[0], 16), parts[1], tuple(parts[2:]), raw)


@dataclass(frozen=True)
class Cut:
    """A frame the splitter could not complete, or bytes outside any frame."""

    reason: str
    raw: bytes


class FrameSplitter:
    """Cuts a byte stream into candidate frames (STX ... ETX CHK CR LF).

    Bytes outside frames are skipped to the next STX and reported once per run; an STX
    inside a frame abandons it and starts a new one; a frame longer than the limit is
    reported and skipped to the next STX. What comes out depends only on the bytes, never
    on how they were split across reads.
    """

    def __init__(self, max_length: int, check_digits: int) -> None:
        self._max = max_length
        self._trailer = check_digits + 2
        self.reset()

    def reset(self) -> None:
        self._buffer = bytearray()
        self._state = "skip"  # skip | body | trailer | discard
        self._garbage_reported = False
        self._need = 0

    def feed(self, data: bytes) -> list[bytes | Cut]:
        out: list[bytes | Cut] = []
        for byte in data:
            if byte == STX:
                self._start(out)
                continue
            if self._state == "discard":
                continue
            self._buffer.append(byte)
            if self._state == "skip":
                if len(self._buffer) > self._max and not self._garbage_reported:
                    out.append(Cut("bytes outside a frame", bytes(self._buffer)))
                    self._garbage_reported = True
                if len(self._buffer) > self._max:
                    self._buffer.clear()
                continue
            if len(self._buffer) > self._max:
                out.append(Cut(f"frame longer than {self._max} bytes", bytes(self._buffer)))
                self._buffer.clear()
                self._state = "discard"
            elif self._state == "body" and byte == ETX:
                self._state, self._need = "trailer", self._trailer
            elif self._state == "trailer":
                self._need -= 1
                if self._need == 0 or byte == 0x0A:
                    out.append(bytes(self._buffer))
                    self._buffer.clear()
                    self._state, self._garbage_reported = "skip", False
        return out

    def _start(self, out: list[bytes | Cut]) -> None:
        if self._state in ("body", "trailer"):
            out.append(Cut("frame cut by a new STX", bytes(self._buffer)))
        elif self._state == "skip" and self._buffer and not self._garbage_reported:
            out.append(Cut("bytes outside a frame", bytes(self._buffer)))
        self._buffer = bytearray([STX])
        self._state, self._garbage_reported = "body", False
