"""Driver for the Cammegh Slingshot 2 (SS2) automatic roulette wheel's host port.

Bytes in, normalised events and command replies out; command names in, bytes out. It
does no I/O and reads no clock: the adapter passes the time of each read. The protocol
facts are in shared/reference/cammegh-ss2.md; where the reference is silent the driver
is strict, and anything it does not understand becomes a `device.protocol_error`.
"""

from __future__ import annotations

import re
from typing import Any

from drivers.cammegh_ss2.framing import LineFramer
from drivers.cammegh_ss2.game import GameTracker, Grace
from drivers.cammegh_ss2.protocol import (
    COMMAND_TABLE,
    LONGEST_DOCUMENTED_LINE,
    NO_LINES,
    NO_PREFIX,
    REPLY_PREFIXES,
    SELF_TEST_TIMEOUT_S,
    SUPPORTED_POCKETS,
    LineError,
    StatusFrame,
    fault_text,
    parse_fault_line,
    parse_number_line,
    parse_pockets,
    parse_status,
    parse_version,
    wheel_labels,
)
from drivers.text import escape_raw, protocol_error
from floord.contract import EventType
from floord.events import DeviceCommand, DeviceEvent, DeviceReply, Driver, Request
from floord.profiles import DeviceProfile

Output = DeviceEvent | DeviceReply
HANDSHAKE = ("identify", "pockets")
# A byte outside printable ASCII (0x20-0x7E): one C scan of a line, not a generator.
_NOT_PRINTABLE = re.compile(rb"[^\x20-\x7e]")


def _quirk(profile: DeviceProfile, key: str, kind: type) -> Any:
    """A required quirk of the profile, of the right type, or a ValueError naming it."""
    if key not in profile.quirks:
        raise ValueError(f"profile {profile.model!r}: quirks.{key} is required by the driver")
    value = profile.quirks[key]
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, kind) or isinstance(value, bool):
        raise ValueError(
            f"profile {profile.model!r}: quirks.{key} must be {kind.__name__}, found {value!r}"
        )
    return value


class Ss2Driver:
    """One SS2 wheel on one host port: decode what it sends, encode what the host asks."""

    COMMANDS: frozenset[str] = frozenset(COMMAND_TABLE)

    def __init__(self, profile: DeviceProfile, pockets: int) -> None:
        if pockets not in SUPPORTED_POCKETS:
            raise ValueError(f"pockets must be one of 37, 38, 39, 40, found {pockets!r}")
        self._profile = profile
        self._pockets = pockets
        self._labels = wheel_labels(pockets)
        tails = _quirk(profile, "cut_status_tails", list)
        self._cut_tails = frozenset(str(t) for t in tails)
        # The profile's limit, but never below the wheel's own longest documented reply.
        limit = _quirk(profile, "max_line_length", int)
        self._framer = LineFramer(max(limit, LONGEST_DOCUMENTED_LINE))
        self._game = GameTracker(
            Grace(
                failed_launch_s=_quirk(profile, "failed_launch_grace_s", float),
                ball_not_detected_s=_quirk(profile, "ball_not_detected_grace_s", float),
                ball_not_detected_frames=_quirk(profile, "ball_not_detected_grace_frames", int),
            )
        )
        self._status_polls = 0
        self._last_frame: StatusFrame | None = None

    @property
    def line_limit(self) -> int:
        """The longest line accepted, in bytes before the LF (CR included)."""
        return self._framer.max_length

    def reset(self) -> None:
        """Forget buffered bytes, the game state and unanswered polls (after a reconnect)."""
        self._framer.reset()
        self._game.reset()
        self._status_polls = 0

    def feed(self, data: bytes, now: float) -> list[Output]:
        """Decode bytes read at monotonic time `now`; a partial line waits for the next call."""
        out: list[Output] = []
        for framed in self._framer.feed(data):
            if framed.overlong:
                reason = f"line longer than {self._framer.max_length} bytes"
                out.append(protocol_error(reason, framed.data))
            else:
                out.extend(self._line(framed.data, now))
        return out

    def _line(self, raw: bytes, now: float) -> list[Output]:
        line = raw[:-1] if raw.endswith(b"\r") else raw
        if _NOT_PRINTABLE.search(line):
            return [protocol_error("non-ASCII or control byte in line", line)]
        text = line.decode("ascii")
        try:
            if text.startswith("*X"):
                return self._status(text, now)
            if text in NO_LINES:
                return [DeviceReply(prefix=NO_PREFIX, text=text)]
            if text.startswith("*"):
                return self._reply(text)
            number = parse_number_line(text, self._labels, self._cut_tails)
        except LineError as exc:
            return [protocol_error(str(exc), line)]
        return list(self._game.number_line(number, line))

    def _status(self, text: str, now: float) -> list[Output]:
        # The wheel repeats its frame until something changes (eight a second at the
        # load bench's 4x): a repeat is the same frame, decoded once (it is frozen).
        frame = self._last_frame
        if frame is None or frame.text != text:
            frame = self._last_frame = parse_status(text, self._labels)
        out: list[Output] = list(self._game.status(frame, now))
        if self._status_polls:
            self._status_polls -= 1
            out.append(DeviceReply(prefix="*X", text=text))
        return out

    def _reply(self, text: str) -> list[Output]:
        prefix = text.split(" ", 1)[0]
        if prefix not in REPLY_PREFIXES:
            raise LineError(f"unknown packet prefix {escape_raw(prefix.encode('ascii'), 16)}")
        out: list[Output] = []
        if prefix == "*F":
            code = parse_fault_line(text)
            if code:
                data = {"code": code, "text": fault_text(code), "origin": "fault_line"}
                out.append(DeviceEvent(EventType.DEVICE_FAULT, data))
        out.append(DeviceReply(prefix=prefix, text=text))
        return out

    def encode(self, command: DeviceCommand) -> Request:
        """The bytes of a host command and how to recognise its reply."""
        if command.name not in COMMAND_TABLE:
            known = ", ".join(sorted(COMMAND_TABLE))
            raise ValueError(f"unknown SS2 command {command.name!r}; known: {known}")
        if command.args:
            raise ValueError(f"SS2 command {command.name!r} takes no arguments")
        if command.name == "status":
            self._status_polls += 1
        return self._request(command.name)

    def _request(self, name: str) -> Request:
        text, prefix = COMMAND_TABLE[name]
        timeout = SELF_TEST_TIMEOUT_S if name == "self_test" else self._profile.timeouts.reply_s
        return Request(
            name=name,
            payload=text.encode("ascii") + b"\r\n",
            reply_prefix=prefix,
            timeout_s=timeout,
        )

    def handshake(self) -> list[Request]:
        """What to send on connect to identify the wheel: `*V`, then `*T Z`."""
        return [self._request(name) for name in HANDSHAKE]

    def identity(self, replies: dict[str, DeviceReply]) -> DeviceEvent:
        """`device.identified` from the handshake replies, or why they cannot identify it."""
        for name in HANDSHAKE:
            prefix = COMMAND_TABLE[name][1]
            reply = replies.get(name)
            if reply is None:
                return _identity_error(f"no reply to {name!r} ({prefix})", "")
            if reply.prefix != prefix:
                return _identity_error(
                    f"reply to {name!r} has prefix {reply.prefix!r}, not {prefix!r}", reply.text
                )
        version = replies["identify"].text
        try:
            firmware, version_text = parse_version(version)
        except LineError as exc:
            return _identity_error(str(exc), version)
        pockets_text = replies["pockets"].text
        try:
            pockets = parse_pockets(pockets_text)
        except LineError as exc:
            return _identity_error(str(exc), pockets_text)
        # A wheel with another pocket count than the table's rules is reported as it is:
        # whether it may be played is the engine's judgement (58 Pa. Code § 531.1), which
        # halts the table; the driver only reports what the wheel says.
        return DeviceEvent(
            EventType.DEVICE_IDENTIFIED,
            {
                "maker": self._profile.maker,
                "model": self._profile.model,
                "firmware": firmware,
                "version_text": version_text,
                "pockets": pockets,
                "serial": None,
            },
        )


def _identity_error(reason: str, text: str) -> DeviceEvent:
    """A handshake reply that cannot identify the wheel."""
    return protocol_error(reason, text.encode("utf-8", "backslashreplace"))


DRIVER: type[Driver] = Ss2Driver  # mypy checks it is a Driver
