"""FLF/1's frames as bytes, on the device side: checksums, the frame writer, the parser
of the host's frames.

Built from `docs/protocols/framing.md` alone (never from `drivers/`), so one misreading
cannot hide in both ends. Pure functions and a parser with no I/O, kept apart from the
channel (`framed.py`), which writes what `encode_frame` makes and feeds the host's bytes
to `FrameParser`, and from the card devices (`card_device.py`), which check their fields
with `field_problem` before a frame is queued.
"""

from __future__ import annotations

import binascii
import re
from collections.abc import Sequence
from dataclasses import dataclass

STX = 0x02
ETX = 0x03
CRLF = b"\r\n"
CHECKSUMS: dict[str, int] = {"crc16-ccitt": 4, "xor8": 2}  # algorithm: hex digits
_KIND = re.compile(r"[A-Z]{3}")
_BODY = re.compile(r"([0-9A-F]{2})\|([A-Z]{3})((?:\|[ -{}~]*)*)")


def crc16_ccitt(data: bytes) -> int:
    """CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, no final xor.

    `binascii.crc_hqx` is exactly that CRC (XMODEM's) when started at 0xFFFF."""
    return binascii.crc_hqx(data, 0xFFFF)


def checksum(body: bytes, algorithm: str) -> str:
    """The CHK of the bytes strictly between STX and ETX, upper-case hex."""
    if algorithm == "crc16-ccitt":
        return f"{crc16_ccitt(body):04X}"
    if algorithm == "xor8":
        value = 0
        for byte in body:
            value ^= byte
        return f"{value:02X}"
    raise ValueError(f"checksum: one of {', '.join(CHECKSUMS)} expected, found {algorithm!r}")


def field_problem(text: str) -> str | None:
    """Why `text` cannot be a field (printable ASCII 0x20-0x7E except `|`), or None."""
    bad = [ch for ch in text if not (" " <= ch <= "~") or ch == "|"]
    if bad:
        return f"printable ASCII without '|' expected, found {text!r}"
    return None


def encode_frame(
    seq: int, kind: str, fields: Sequence[str], algorithm: str, *, garble: bool = False
) -> bytes:
    """One whole frame, STX to LF. `garble` writes a checksum that is wrong (by one bit)."""
    if not 0 <= seq <= 0xFF:
        raise ValueError(f"seq: 0 to 255 expected, found {seq}")
    if _KIND.fullmatch(kind) is None:
        raise ValueError(f"type: three upper-case letters expected, found {kind!r}")
    for text in fields:
        problem = field_problem(text)
        if problem:
            raise ValueError(f"{kind} field: {problem}")
    body = f"{seq:02X}|{kind}{''.join('|' + text for text in fields)}".encode("ascii")
    chk = checksum(body, algorithm)
    if garble:
        chk = f"{int(chk, 16) ^ 1:0{len(chk)}X}"
    return bytes([STX]) + body + bytes([ETX]) + chk.encode("ascii") + CRLF


@dataclass(frozen=True)
class HostFrame:
    """A well-formed frame from the host with a good checksum."""

    seq: int
    kind: str
    fields: tuple[str, ...]


@dataclass(frozen=True)
class BadFrame:
    """Bytes that started as a frame but are not one; never acknowledged."""

    reason: str
    raw: bytes


class FrameParser:
    """Host bytes to frames: skips to STX, restarts on STX, ends after ETX CHK CR LF."""

    def __init__(self, algorithm: str, max_length: int) -> None:
        self._width = CHECKSUMS[algorithm]
        self._algorithm = algorithm
        self._max = max_length
        self._buf = bytearray()
        self._etx = -1

    def reset(self) -> None:
        self._buf.clear()
        self._etx = -1

    def feed(self, data: bytes) -> list[HostFrame | BadFrame]:
        out: list[HostFrame | BadFrame] = []
        for byte in data:
            if byte == STX:
                if self._buf:
                    out.append(BadFrame("a new STX inside a frame", bytes(self._buf)))
                self.reset()
                self._buf.append(byte)
                continue
            if not self._buf:
                continue  # outside a frame: skipped to the next STX
            self._buf.append(byte)
            if self._etx < 0 and byte == ETX:
                self._etx = len(self._buf) - 1
            if len(self._buf) > self._max:
                out.append(BadFrame(f"longer than {self._max} bytes", bytes(self._buf)))
                self.reset()
            elif self._etx >= 0 and len(self._buf) == self._etx + 1 + self._width + 2:
                out.append(self._decode(bytes(self._buf)))
                self.reset()
        return out

    def _decode(self, raw: bytes) -> HostFrame | BadFrame:
        body, tail = raw[1 : self._etx], raw[self._etx + 1 :]
        chk, end = tail[: self._width], tail[self._width :]
        match = _BODY.fullmatch(body.decode("latin-1"))
        if end != CRLF or match is None or re.fullmatch(rb"[0-9A-F]+", chk) is None:
            return BadFrame("bad form", raw)
        if chk.decode("ascii") != checksum(body, self._algorithm):
            return BadFrame("bad checksum", raw)
        seq, kind, rest = match.groups()
        fields = tuple(rest.split("|")[1:]) if rest else ()
        return HostFrame(int(seq, 16), kind, fields)
