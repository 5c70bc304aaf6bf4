"""The host side of LW/1 (`protocol.md`): a roulette wheel result reporter's lines in,
floord's normalised wheel events out.

The driver checks each line's checksum and grammar and that a spin's messages follow
its `SPIN`; a line that fails is one `device.protocol_error` and nothing else, and the
next line is read afresh. Whether a spin is a valid game is the engine's judgement, not
the driver's. No I/O: the adapter reads and writes (floord.events.Driver).
"""

from __future__ import annotations

from functools import reduce
from typing import Any

from floord.contract import EventType
from floord.events import DeviceCommand, DeviceEvent, DeviceOutput, DeviceReply, Driver, Request
from floord.profiles import DeviceProfile

MAX_LINE = 64  # bytes, "\r\n" included
RAW_LIMIT = 80  # characters of a bad line quoted in a protocol error
DIRECTIONS = ("cw", "ccw")
WHEEL_POCKETS = (37, 38)
FAULTS = {1: "pocket sensor failed", 2: "rotor sensor failed", 3: "ball sensor failed"}


class LineError(ValueError):
    """A line LW/1 does not allow; the message says why."""


def checksum(body: bytes) -> str:
    """The exclusive-or of the body's bytes, two upper-case hex digits."""
    return f"{reduce(lambda acc, byte: acc ^ byte, body, 0):02X}"


def quote(raw: bytes) -> str:
    """Printable ASCII of `raw`, escapes for the rest, at most RAW_LIMIT characters."""
    text = "".join(chr(b) if 0x20 <= b <= 0x7E and b != 0x5C else f"\\x{b:02x}" for b in raw)
    return text[:RAW_LIMIT]


def protocol_error(reason: str, raw: bytes) -> DeviceEvent:
    return DeviceEvent(EventType.DEVICE_PROTOCOL_ERROR, {"reason": reason, "raw": quote(raw)})


def pocket_labels(pockets: int) -> frozenset[str]:
    """0 to 36, and 00 on a double-zero wheel."""
    return frozenset({str(n) for n in range(37)} | ({"00"} if pockets == 38 else set()))


def words_of(line: bytes) -> list[str]:
    """A line's words, its checksum checked (LineError naming what is wrong)."""
    if any(not 0x20 <= b <= 0x7E for b in line):
        raise LineError("a byte outside printable ASCII")
    body, star, given = line.rpartition(b"*")
    if not star:
        raise LineError("no checksum (*HH)")
    if given.decode() != checksum(body):
        raise LineError(f"checksum {given.decode()!r}, expected {checksum(body)!r}")
    words = body.decode().split(" ")
    if not all(words):
        raise LineError("words are separated by one space")
    return words


def spin_number(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 99999:
        raise LineError(f"a spin number from 1 to 99999 expected, found {text!r}")
    return int(text)


def direction(text: str) -> str:
    if text not in DIRECTIONS:
        raise LineError(f"cw or ccw expected, found {text!r}")
    return text


class LineWheelDriver:
    """One LW/1 wheel on one link; `pockets` is the table's wheel (37 or 38)."""

    def __init__(self, profile: DeviceProfile, pockets: int) -> None:
        if type(pockets) is not int or pockets not in WHEEL_POCKETS:
            raise ValueError(f"pockets must be 37 or 38, found {pockets!r}")
        self.profile = profile
        self.pockets = pockets
        self.labels = pocket_labels(pockets)
        self.reset()

    def reset(self) -> None:
        self._buffer = b""
        self._overlong = False  # discarding up to the next "\n"
        self._spin: tuple[int, str, float] | None = None  # number, rotor direction, rpm

    def feed(self, data: bytes, now: float) -> list[DeviceOutput]:
        out: list[DeviceOutput] = []
        self._buffer += data
        while b"\n" in self._buffer:
            line, self._buffer = self._buffer.split(b"\n", 1)
            if self._overlong:
                self._overlong = False
                continue
            out += self._line(line.removesuffix(b"\r"))
        if len(self._buffer) >= MAX_LINE and not self._overlong:
            out.append(protocol_error(f"a line longer than {MAX_LINE} bytes", self._buffer))
            self._buffer, self._overlong = b"", True
        elif self._overlong:
            self._buffer = b""
        return out

    def _line(self, line: bytes) -> list[DeviceOutput]:
        if not line:
            return []
        if len(line) + 2 > MAX_LINE:
            return [protocol_error(f"a line longer than {MAX_LINE} bytes", line)]
        try:
            words = words_of(line)
            return self._message(words[0], words[1:])
        except LineError as exc:
            return [protocol_error(str(exc), line)]

    def _message(self, kind: str, args: list[str]) -> list[DeviceOutput]:
        if kind == "HB" and not args:
            return []
        if kind == "ID":
            return [DeviceReply("ID", " ".join(["ID", *args]))]
        if kind == "FLT" and len(args) >= 2 and args[0].isdigit():
            code = int(args[0])
            text = " ".join(args[1:])
            return [
                DeviceEvent(
                    EventType.DEVICE_FAULT, {"code": code, "text": text, "origin": "device"}
                )
            ]
        if kind == "SPIN" and len(args) == 3:
            number, rotor = spin_number(args[0]), direction(args[1])
            if not args[2].isdigit() or not 1 <= int(args[2]) <= 999:
                raise LineError(f"SPIN: rpm x10 from 1 to 999 expected, found {args[2]!r}")
            rpm = int(args[2]) / 10
            self._spin = (number, rotor, rpm)
            data = {"spin": number, "state": 1, "rotor_direction": rotor, "rotor_rpm": rpm}
            return [DeviceEvent(EventType.WHEEL_GAME_STARTED, data)]
        if kind in ("BALL", "NMB", "RES") and args:
            return self._in_spin(kind, spin_number(args[0]), args[1:])
        raise LineError(f"{kind}: not an LW/1 message of {len(args)} words")

    def _in_spin(self, kind: str, number: int, args: list[str]) -> list[DeviceOutput]:
        spin = self._spin
        if spin is None or spin[0] != number:
            raise LineError(f"{kind}: spin {number} is not the spin in progress")
        data: dict[str, Any] = {"spin": number}
        if kind == "BALL" and len(args) == 1:
            data |= {
                "rotor_direction": spin[1],
                "rotor_rpm": spin[2],
                "ball_direction": direction(args[0]),
            }
            return [DeviceEvent(EventType.WHEEL_BALL_LAUNCHED, data)]
        if kind == "NMB" and not args:
            return [DeviceEvent(EventType.WHEEL_NO_MORE_BETS, data)]
        if kind == "RES" and len(args) == 1:
            if args[0] not in self.labels:
                raise LineError(
                    f"RES: {args[0]!r} is not a pocket of a {self.pockets}-pocket wheel"
                )
            self._spin = None  # the ball is at rest: the next message of a spin is SPIN
            return [
                DeviceEvent(EventType.WHEEL_NUMBER, {**data, "number": args[0], "origin": "sensor"})
            ]
        raise LineError(f"{kind}: not an LW/1 message of {len(args) + 1} words")

    def encode(self, command: DeviceCommand) -> Request:
        if command.name != "identify" or command.args:
            raise ValueError(f"LW/1 knows only the command identify, found {command.name!r}")
        return Request("identify", b"ID?*32\r\n", "ID", self.profile.timeouts.reply_s)

    def handshake(self) -> list[Request]:
        return [self.encode(DeviceCommand(device="", name="identify"))]

    def identity(self, replies: dict[str, DeviceReply]) -> DeviceEvent:
        """`device.identified` with the wheel's `pockets`, from its `ID` answer. A wheel
        of another kind than the table's is reported as it is: the engine judges it."""
        reply = replies.get("identify")
        words = reply.text.split(" ") if reply else []
        if len(words) != 4 or words[3] not in ("37", "38"):
            text = reply.text if reply else ""
            return protocol_error("ID: ID <serial> <firmware> <37|38> expected", text.encode())
        _, serial, firmware, pockets = words
        data = {
            "maker": self.profile.maker,
            "model": self.profile.model,
            "serial": serial,
            "firmware": firmware,
            "pockets": int(pockets),
        }
        return DeviceEvent(EventType.DEVICE_IDENTIFIED, data)


DRIVER: type[Driver] = LineWheelDriver  # mypy checks it is a Driver
