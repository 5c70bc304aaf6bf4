"""FLF/1, the host side of the link every card-table device family shares.

`docs/protocols/framing.md` is the specification. `framed_codec` holds the frame's bytes
(checksums, codec, resynchronising on STX) and `framed_fields` the profile's quirks and
the shared field grammar; this module is the link itself: the device's sequence numbers
(repeat and loss), the host's own counter and its ACKs, the heartbeat, the messages every
family has (`IDN`, `HBT`, `FLT`, `FLC`, `TMP`, `NAK`, `ACK`), commands and identity. A
family driver (`card_reader`, `dealing_shoe`, `card_shuffler`) subclasses `FramedDriver`
and adds only its own messages. No I/O and no clock: the adapter passes the time of
each read.

A `DeviceReply`'s text is the frame from its TYPE on (`IDN|maker|model|...`), without
the SEQ, so that the adapter can match it to a request by prefix.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar

from drivers.flf1.codec import (
    CHECKSUMS,
    HEX2,
    Cut,
    Frame,
    FrameError,
    FrameSplitter,
    decode_frame,
    encode_frame,
)
from drivers.flf1.fields import (
    Output,
    code_text,
    expect_fields,
    link_quirks,
    parse_identity,
    parse_int,
    parse_text,
)
from drivers.text import escape_raw, protocol_error
from floord.contract import EventType
from floord.events import DeviceCommand, DeviceEvent, DeviceReply, Outgoing, Request
from floord.profiles import DeviceProfile

# ----- the driver -----------------------------------------------------------------

COMMANDS: dict[str, tuple[str, str]] = {"identify": ("IDQ", "IDN"), "self_test": ("TST", "TSR")}
# `FLT|90`: the device gave up a frame the host never acknowledged (framing.md).
LINK_FAULT_CODE = 90
COMMON_TYPES = frozenset({"IDN", "HBT", "FLT", "FLC", "TMP", "NAK", "ACK"})
NAK_CODES = {1: "unknown command", 2: "bad field", 3: "busy"}


class FramedDriver(ABC):
    """The host end of one FLF/1 link; a family subclass decodes its own messages.

    Subclasses set `FAMILY`, `TYPES` (their own device-to-host types), `FLAGS` (the
    capability quirks, each also an IDN capability word), `CAPABILITIES` (every word the
    family's IDN may list), `FAULT_CODES`, `TAMPER_CODES`, and implement `message`.
    """

    FAMILY: ClassVar[str] = ""
    TYPES: ClassVar[frozenset[str]] = frozenset()
    FLAGS: ClassVar[tuple[str, ...]] = ()
    CAPABILITIES: ClassVar[frozenset[str]] = frozenset()
    FAULT_CODES: ClassVar[dict[int, str]] = {}
    TAMPER_CODES: ClassVar[dict[int, str]] = {}
    COMMANDS: ClassVar[frozenset[str]] = frozenset(COMMANDS)

    def __init__(self, profile: DeviceProfile) -> None:
        if profile.family != self.FAMILY:
            raise ValueError(
                f"profile {profile.model!r} is a {profile.family}, not a {self.FAMILY}"
            )
        self.profile = profile
        self.quirks = link_quirks(profile, self.FLAGS, self.FAULT_CODES, self.TAMPER_CODES)
        digits = CHECKSUMS[self.quirks.checksum][1]
        self._splitter = FrameSplitter(self.quirks.max_frame_length, digits)
        self.reset()

    def reset(self) -> None:
        """Forget buffered bytes and both sequence counters (a family adds its own state)."""
        self._splitter.reset()
        self._host_seq = 0
        self._last: Frame | None = None
        self._last_heard: float | None = None

    @abstractmethod
    def message(self, frame: Frame) -> list[Output]:
        """The outputs of one of the family's own frames; FrameError if it breaks the page.

        It must check every field before it changes any state: a frame it refuses is not
        acknowledged, and the device's resend must find the state as it was.
        """

    # ----- bytes in ---------------------------------------------------------------

    def feed(self, data: bytes, now: float) -> list[Output]:
        """Decode bytes read at monotonic time `now`; a partial frame waits for more."""
        out: list[Output] = []
        for piece in self._splitter.feed(data):
            if isinstance(piece, Cut):
                out.append(protocol_error(piece.reason, piece.raw))
            else:
                out.extend(self._frame(piece, now))
        return out

    def _frame(self, raw: bytes, now: float) -> list[Output]:
        try:
            frame = decode_frame(raw, self.quirks.checksum)
        except FrameError as exc:
            return [protocol_error(str(exc), raw)]
        out: list[Output] = self._heartbeat(now)
        last = self._last
        if last is not None and frame.seq == last.seq:
            if frame.raw == last.raw:  # a resend: acknowledged again, reported once
                return out + ([] if frame.type == "ACK" else [self._ack(frame.seq)])
            if not (frame.type == "IDN" and frame.seq == 0):
                reason = f"SEQ {frame.seq:02X} again with a different frame"
                return [*out, protocol_error(reason, raw)]
        if frame.type not in COMMON_TYPES and frame.type not in self.TYPES:
            return [*out, protocol_error(f"unknown type {frame.type} for a {self.FAMILY}", raw)]
        try:
            decoded = self._common(frame) if frame.type in COMMON_TYPES else self.message(frame)
        except FrameError as exc:
            return [*out, protocol_error(str(exc), raw)]
        power_on = frame.type == "IDN" and frame.seq == 0
        if last is not None and frame.seq != (last.seq + 1) % 256 and not power_on:
            lost = (frame.seq - last.seq - 1) % 256
            reason = f"{lost} frame(s) lost: SEQ {frame.seq:02X} after {last.seq:02X}"
            out.append(protocol_error(reason, raw))
        self._last = frame
        if frame.type != "ACK":
            out.append(self._ack(frame.seq))
        return out + decoded

    def _heartbeat(self, now: float) -> list[Output]:
        """`device.heartbeat_lost` when the gap since the last frame held the profile's
        `timeouts.heartbeat_loss_beats` missed heartbeats (default 3).

        The device sends something at least every `heartbeat_s`; half a period of jitter
        is tolerated before a heartbeat counts as missed. Fewer missed beats than the
        threshold (one late beat: a busy host, a USB hub's hiccup) are not a loss: the
        trade-off is in docs/protocols/framing.md.
        """
        previous, self._last_heard = self._last_heard, now
        if previous is None:
            return []
        missed = int((now - previous) / self.quirks.heartbeat_s - 0.5)
        if missed < self.profile.timeouts.heartbeat_loss_beats:
            return []
        return [DeviceEvent(EventType.DEVICE_HEARTBEAT_LOST, {"missed": missed})]

    def _ack(self, seq: int) -> Outgoing:
        return Outgoing(self._host_frame("ACK", (f"{seq:02X}",)))

    def _host_frame(self, kind: str, fields: tuple[str, ...]) -> bytes:
        seq, self._host_seq = self._host_seq, (self._host_seq + 1) % 256
        return encode_frame(seq, kind, fields, self.quirks.checksum)

    def _common(self, frame: Frame) -> list[Output]:
        kind = frame.type
        if kind in ("HBT", "ACK"):
            fields = expect_fields(frame) if kind == "HBT" else expect_fields(frame, "seq")
            if kind == "ACK" and not HEX2.fullmatch(fields[0]):
                raise FrameError(
                    f"ACK: a SEQ of 2 upper-case hex digits expected, found {fields[0]!r}"
                )
            return []
        if kind == "IDN":
            parse_identity(frame.fields)
            return [DeviceReply(prefix="IDN", text=frame.text)]
        if kind == "FLC":
            parse_int(expect_fields(frame, "code")[0], "FLC code")
            return []  # a fault stays latched for the engine until the device re-identifies
        raw_code, text = expect_fields(frame, "code", "text")
        code = parse_int(raw_code, f"{kind} code")
        parse_text(text, f"{kind} text")
        if kind == "NAK":
            if code not in NAK_CODES:
                raise FrameError(f"NAK: code 1, 2 or 3 expected, found {code}")
            return [DeviceReply(prefix="NAK", text=frame.text)]
        if kind == "TMP":
            data = {"code": code, "text": code_text(code, text, self.quirks.tamper_codes)}
            return [DeviceEvent(EventType.DEVICE_TAMPER, data)]
        if code == LINK_FAULT_CODE:
            # A report about the link, not the device's health: frames it sent were never
            # acknowledged (the host was away, or they were garbled). The device works; an
            # event may have been lost, which is what the record must say.
            return [
                DeviceEvent(
                    EventType.DEVICE_PROTOCOL_ERROR,
                    {
                        "reason": "the device gave up a frame that was not acknowledged "
                        "(FLT 90): an event may have been lost",
                        "raw": escape_raw(frame.text.encode()),
                    },
                )
            ]
        data = {"code": code, "text": code_text(code, text, self.quirks.fault_codes)}
        return [DeviceEvent(EventType.DEVICE_FAULT, {**data, "origin": "device"})]

    # ----- commands ---------------------------------------------------------------

    def encode(self, command: DeviceCommand) -> Request:
        """The host frame of a command (numbered now) and the type of its answer."""
        if command.name not in COMMANDS:
            known = ", ".join(sorted(COMMANDS))
            raise ValueError(f"unknown {self.FAMILY} command {command.name!r}; known: {known}")
        if command.args:
            raise ValueError(f"{self.FAMILY} command {command.name!r} takes no arguments")
        kind, reply = COMMANDS[command.name]
        return Request(
            name=command.name,
            payload=self._host_frame(kind, ()),
            reply_prefix=reply,
            timeout_s=self.profile.timeouts.reply_s,
        )

    def handshake(self) -> list[Request]:
        """What to send on connect: `IDQ`, answered by `IDN`."""
        return [self.encode(DeviceCommand(device=self.profile.model, name="identify"))]

    def identity(self, replies: dict[str, DeviceReply]) -> DeviceEvent:
        """`device.identified` from the `IDN` reply, or why it cannot identify this device."""
        reply = replies.get("identify")
        if reply is None or reply.prefix != "IDN" or not reply.text.startswith("IDN|"):
            text = reply.text if reply else ""
            return _identity_error("no IDN reply to identify", text)
        try:
            ident = parse_identity(tuple(reply.text.split("|")[1:]))
        except FrameError as exc:
            return _identity_error(str(exc), reply.text)
        unknown = sorted(set(ident.capabilities) - self.CAPABILITIES)
        if unknown:
            return _identity_error(
                f"capabilities unknown to a {self.FAMILY}: {unknown}", reply.text
            )
        for flag in self.FLAGS:
            has, wants = flag in ident.capabilities, self.quirks.flags[flag]
            if has != wants:
                said = "lists" if has else "does not list"
                reason = (
                    f"capability mismatch: the device {said} {flag!r}, "
                    f"profile {self.profile.model!r} has quirks.{flag}: {str(wants).lower()}"
                )
                return _identity_error(reason, reply.text)
        data = {
            "maker": ident.maker,
            "model": ident.model,
            "serial": ident.serial,
            "firmware": ident.firmware,
            "capabilities": list(ident.capabilities),
        }
        return DeviceEvent(EventType.DEVICE_IDENTIFIED, data)


def _identity_error(reason: str, text: str) -> DeviceEvent:
    return protocol_error(reason, text.encode("utf-8", "backslashreplace"))
