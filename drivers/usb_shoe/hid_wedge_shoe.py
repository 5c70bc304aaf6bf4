"""Driver for a card-reading shoe that attaches as a USB HID keyboard ("keyboard wedge").

The shoe types each card it reads as a few key presses ending in Enter (`AS⏎`,
`10H⏎`, or a vendor code such as `S01⏎`); the profile's `card_codes` table says which
card each typed code is. `floord/transport/usb.py` reads the boot keyboard reports from
the interrupt IN endpoint and hands them over unchanged, 8 bytes each (HID 1.11
Appendix B: modifier bits, a reserved byte, six key usage ids); this driver turns them
into `shoe.card_drawn`. No I/O and no clock.

Decoding, strictly:
- Only key-down edges type: a key held across reports counts once, and the same key
  typed twice must be released in between (as every keyboard does).
- Shift (left 0x02 or right 0x20) selects upper case; any other modifier held while a key
  goes down (Ctrl, Alt, GUI) is no typing a shoe does: a protocol error.
- Letters, digits and Enter are the whole alphabet; any other key is a protocol error.
- The rollover/phantom report (usage 0x01 in the key slots), POST fail (0x02) and
  undefined error (0x03) mean key presses were lost: a protocol error, and the line being
  typed is dropped, because a shortened code could name another card.
- A non-zero reserved byte is not a boot report: a protocol error.
- At Enter the line is looked up in `card_codes`; an unknown code, an empty line and a
  line longer than `max_line_length` are protocol errors, never a guessed card.

Identity. A keyboard has no command channel, so who the shoe is comes from its USB
descriptors (idVendor, idProduct, bcdDevice and the manufacturer, product and serial
number strings), which only the transport can read. The transport and this driver share
one small record for them, interleaved with the 8-byte reports at a report boundary:
`DESCRIPTOR_MAGIC` (6 bytes), a 2-byte big-endian body length, then the body: a JSON
object (`DESCRIPTOR_KEYS`). Its reserved byte is 0xFF, so no valid boot report looks like
it. The same header with an empty body is the host's query (`DESCRIPTOR_QUERY`): the
driver's `identify` command writes it, the transport answers with the record, and the
driver turns the record into a `DeviceReply` for `identity`. The transport also sends
the record unasked when it opens the device (enumeration is the shoe's greeting), which
is what brings the adapter online before the first card is drawn.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, ClassVar

from drivers.text import protocol_error as bytes_error
from floord.contract import EventType
from floord.events import DeviceCommand, DeviceEvent, DeviceReply, Driver, Request
from floord.profiles import DeviceProfile

Output = DeviceEvent | DeviceReply

REPORT_SIZE = 8
DESCRIPTOR_MAGIC = b"\x00\xffUSBD"
DESCRIPTOR_QUERY = DESCRIPTOR_MAGIC + b"\x00\x00"
DESCRIPTOR_PREFIX = "USB-DESCRIPTORS"
DESCRIPTOR_KEYS = frozenset(
    {
        "id_vendor",
        "id_product",
        "bcd_device",
        "manufacturer",
        "product",
        "serial_number",
        "interface",
        "endpoint",
    }
)
MAX_DESCRIPTOR_BODY = 2048

USAGE_ENTER = 0x28
PHANTOM_USAGES = {0x01: "rollover (too many keys down)", 0x02: "POST fail", 0x03: "error"}
SHIFT_BITS = 0x02 | 0x20
OTHER_MODIFIER_BITS = 0xFF & ~SHIFT_BITS
RANKS = "A23456789TJQK"
SUITS = "SHDC"
ALL_CARDS = frozenset(rank + suit for rank in RANKS for suit in SUITS)
QUIRKS = frozenset(
    {
        "vendor_id",
        "product_id",
        "interface",
        "endpoint",
        "card_codes",
        "max_line_length",
        "recognition",
        "double",
    }
)
# Optional: the code the shoe types when the dealer presses its "new shoe" key, so a
# shoe that cannot sense a load can still say a new batch was placed in it.
OPTIONAL_QUIRKS = frozenset({"load_code"})


USB_STRING_MAX = 126


def usage_char(usage: int, shifted: bool) -> str | None:
    """The character a HID usage id types (letters and digits), or None for any other key."""
    if 0x04 <= usage <= 0x1D:
        letter = chr(ord("a") + usage - 0x04)
        return letter.upper() if shifted else letter
    if 0x1E <= usage <= 0x27 and not shifted:
        return "0" if usage == 0x27 else chr(ord("1") + usage - 0x1E)
    return None


@dataclass(frozen=True)
class WedgeQuirks:
    """The profile's quirks, checked: a bad table is refused when the driver is built."""

    vendor_id: int
    product_id: int
    interface: int
    endpoint: int
    card_codes: dict[str, str]
    max_line_length: int
    load_code: str | None = None


def wedge_quirks(profile: DeviceProfile) -> WedgeQuirks:
    """Read the profile's quirks; an unknown, missing or ill-typed one is a ValueError."""
    quirks = dict(profile.quirks)
    where = f"profile {profile.model!r}: quirks"
    for key in quirks:
        if key not in QUIRKS | OPTIONAL_QUIRKS:
            known = ", ".join(sorted(QUIRKS | OPTIONAL_QUIRKS))
            raise ValueError(f"{where}.{key}: unknown quirk (known: {known})")
    for key in QUIRKS:
        if key not in quirks:
            raise ValueError(f"{where}.{key}: a value expected, found nothing")
    if quirks["recognition"] is not True or quirks["double"] is not False:
        raise ValueError(
            f"{where}: a wedge shoe reads cards on one side (recognition: true, "
            f"double: false), found {quirks['recognition']!r}, {quirks['double']!r}"
        )
    ids = {}
    for key, top in (
        ("vendor_id", 0xFFFF),
        ("product_id", 0xFFFF),
        ("interface", 0xFF),
        ("endpoint", 0xFF),
        ("max_line_length", 64),
    ):
        value = quirks[key]
        if type(value) is not int or not 0 <= value <= top:
            raise ValueError(f"{where}.{key}: an integer 0..{top} expected, found {value!r}")
        ids[key] = value
    if not ids["endpoint"] & 0x80:
        raise ValueError(
            f"{where}.endpoint: an IN endpoint (0x81..) expected, found {ids['endpoint']:#04x}"
        )
    if ids["max_line_length"] < 1:
        raise ValueError(f"{where}.max_line_length: at least 1 expected")
    cards = _card_codes(quirks["card_codes"], ids["max_line_length"], where)
    load_code = quirks.get("load_code")
    if load_code is not None and (
        not isinstance(load_code, str)
        or not load_code.isalnum()
        or not load_code.isascii()
        or len(load_code) > ids["max_line_length"]
        or load_code in cards
    ):
        raise ValueError(
            f"{where}.load_code: a code of letters and digits, no longer than "
            f"max_line_length and not a card's code, expected, found {load_code!r}"
        )
    return WedgeQuirks(card_codes=cards, load_code=load_code, **ids)


def _card_codes(table: Any, max_length: int, where: str) -> dict[str, str]:
    """The code table: every typeable code to one card, each of the 52 cards exactly once."""
    if not isinstance(table, dict):
        raise ValueError(f"{where}.card_codes: a mapping of code to card expected")
    typeable = {usage_char(u, s) for u in range(0x04, 0x28) for s in (False, True)} - {None}
    codes: dict[str, str] = {}
    for code, card in table.items():
        if not isinstance(code, str) or not code or not set(code) <= typeable:
            raise ValueError(
                f"{where}.card_codes: a code of letters and digits expected, found {code!r}"
            )
        if len(code) > max_length:
            raise ValueError(f"{where}.card_codes: {code!r} is longer than max_line_length")
        if card not in ALL_CARDS:
            raise ValueError(
                f"{where}.card_codes.{code}: a card (rank A 2-9 T J Q K, "
                f"suit S H D C) expected, found {card!r}"
            )
        codes[code] = card
    missing = sorted(ALL_CARDS - set(codes.values()))
    if missing or len(codes) != len(ALL_CARDS):
        raise ValueError(
            f"{where}.card_codes: each of the 52 cards once expected; "
            f"missing {missing}, {len(codes)} codes"
        )
    return codes


def _printable(text: str) -> str:
    """`text` with every character that is not printable (a control character, a lone
    surrogate) written as its Python escape, so that no decoded byte reaches the record
    or a log unescaped."""
    if text.isprintable():
        return text
    return "".join(
        ch if ch.isprintable() else ch.encode("unicode_escape", "backslashreplace").decode("ascii")
        for ch in text
    )


def protocol_error(reason: str, raw: str) -> DeviceEvent:
    """The shared `device.protocol_error` for text the wedge typed (keys, not bytes)."""
    return bytes_error(reason, raw.encode("utf-8", "backslashreplace"))


def _hex(report: bytes) -> str:
    return report.hex(" ")


class HidWedgeShoeDriver:
    """One keyboard-wedge shoe on one USB link."""

    FAMILY = "dealing_shoe"
    COMMANDS: ClassVar[frozenset[str]] = frozenset({"identify"})
    CAPABILITIES: ClassVar[tuple[str, ...]] = ("recognition",)

    def __init__(self, profile: DeviceProfile) -> None:
        if profile.family != self.FAMILY:
            raise ValueError(
                f"profile {profile.model!r} is a {profile.family}, not a {self.FAMILY}"
            )
        self.profile = profile
        self.quirks = wedge_quirks(profile)
        self.reset()

    def reset(self) -> None:
        """Forget buffered bytes, keys held, the line typed so far and the card count.

        A reconnect starts the count again: a wedge shoe has no load signal, so `count`
        is the cards drawn since the link was opened.
        """
        self._buffer = b""
        self._held: frozenset[int] = frozenset()
        self._line = ""
        self._dropping = False  # the line lost keys or overflowed: drop it at Enter
        self._count = 0

    # ----- bytes in ---------------------------------------------------------------

    def feed(self, data: bytes, now: float) -> list[Output]:
        """Decode reports read at monotonic time `now`; a partial report waits for more.

        `now` is part of every driver's interface; a keyboard's reports carry nothing a
        clock could check (it is silent between cards), so it is not used.
        """
        self._buffer += data
        out: list[Output] = []
        while len(self._buffer) >= REPORT_SIZE:
            if self._buffer.startswith(DESCRIPTOR_MAGIC):
                size = int.from_bytes(self._buffer[6:8], "big")
                if size > MAX_DESCRIPTOR_BODY:
                    out.append(
                        protocol_error(
                            f"descriptor record of {size} bytes, at most "
                            f"{MAX_DESCRIPTOR_BODY} expected",
                            _hex(self._buffer[:REPORT_SIZE]),
                        )
                    )
                    self._buffer = b""
                    break
                if len(self._buffer) < REPORT_SIZE + size:
                    break
                body = self._buffer[REPORT_SIZE : REPORT_SIZE + size]
                self._buffer = self._buffer[REPORT_SIZE + size :]
                out.append(self._descriptor(body))
                continue
            report, self._buffer = self._buffer[:REPORT_SIZE], self._buffer[REPORT_SIZE:]
            out.extend(self._report(report))
        return out

    def _descriptor(self, body: bytes) -> Output:
        if not body:
            return protocol_error("a descriptor query from the device side", "")
        text = _printable(body.decode("utf-8", "backslashreplace"))
        return DeviceReply(prefix=DESCRIPTOR_PREFIX, text=f"{DESCRIPTOR_PREFIX} {text}")

    def _report(self, report: bytes) -> list[Output]:
        modifiers, reserved, keys = report[0], report[1], [k for k in report[2:] if k]
        if reserved:
            return [
                protocol_error(f"reserved byte {reserved:#04x}, a boot report has 0", _hex(report))
            ]
        phantom = [PHANTOM_USAGES[k] for k in keys if k in PHANTOM_USAGES]
        if phantom:
            # Keys held stay as they were (HID 1.11 B.1: phantom state); the line lost keys.
            return self._drop(f"keyboard reported {phantom[0]}: key presses lost", _hex(report))
        pressed = [k for k in dict.fromkeys(keys) if k not in self._held]
        self._held = frozenset(keys)
        out: list[Output] = []
        for usage in pressed:
            out.extend(self._key(usage, modifiers, report))
        return out

    def _key(self, usage: int, modifiers: int, report: bytes) -> list[Output]:
        if usage == USAGE_ENTER:
            return self._enter()
        if self._dropping:
            return []
        if modifiers & OTHER_MODIFIER_BITS:
            return self._drop(
                f"key {usage:#04x} with modifiers {modifiers:#04x}: only Shift types a code",
                _hex(report),
            )
        char = usage_char(usage, bool(modifiers & SHIFT_BITS))
        if char is None:
            return self._drop(
                f"key {usage:#04x} (shift {bool(modifiers & SHIFT_BITS)}) is not a letter or digit",
                _hex(report),
            )
        self._line += char
        if len(self._line) > self.quirks.max_line_length:
            return self._drop(
                f"line longer than {self.quirks.max_line_length} characters without Enter",
                self._line,
            )
        return []

    def _drop(self, reason: str, raw: str) -> list[Output]:
        """Report once, then ignore the rest of the line up to its Enter."""
        if self._dropping:
            return []
        self._dropping = True
        return [protocol_error(reason, raw)]

    def _enter(self) -> list[Output]:
        line, dropping = self._line, self._dropping
        self._line, self._dropping = "", False
        if dropping:
            return []
        if not line:
            return [protocol_error("Enter without a card code", "")]
        if line == self.quirks.load_code:
            self._count = 0
            return [DeviceEvent(EventType.SHOE_LOADED, {"side": None, "cards": None})]
        card = self.quirks.card_codes.get(line)
        if card is None:
            return [protocol_error(f"unknown card code {line!r}", line)]
        self._count += 1
        data = {"count": self._count, "card": card, "side": None}
        return [DeviceEvent(EventType.SHOE_CARD_DRAWN, data)]

    # ----- commands and identity ----------------------------------------------------

    def encode(self, command: DeviceCommand) -> Request:
        """`identify` asks the transport for the descriptor record; a wedge takes no other."""
        if command.name not in self.COMMANDS:
            known = ", ".join(sorted(self.COMMANDS))
            raise ValueError(f"unknown hid_wedge_shoe command {command.name!r}; known: {known}")
        if command.args:
            raise ValueError(f"hid_wedge_shoe command {command.name!r} takes no arguments")
        return Request(
            name=command.name,
            payload=DESCRIPTOR_QUERY,
            reply_prefix=DESCRIPTOR_PREFIX,
            timeout_s=self.profile.timeouts.reply_s,
        )

    def handshake(self) -> list[Request]:
        """What to send on connect: the descriptor query, answered by the transport."""
        return [self.encode(DeviceCommand(device=self.profile.model, name="identify"))]

    def identity(self, replies: dict[str, DeviceReply]) -> DeviceEvent:
        """`device.identified` from the descriptor record, or why it is not this shoe."""
        reply = replies.get("identify")
        head = f"{DESCRIPTOR_PREFIX} "
        if reply is None or not reply.text.startswith(head):
            return protocol_error("no descriptor record to identify", reply.text if reply else "")
        try:
            record = json.loads(reply.text[len(head) :])
        except ValueError as exc:
            return protocol_error(f"descriptor record: JSON expected: {exc}", reply.text)
        problem = self._record_problem(record)
        if problem:
            return protocol_error(problem, reply.text)
        bcd = record["bcd_device"]
        data = {
            "maker": record["manufacturer"],
            "model": record["product"],
            "serial": record["serial_number"],
            "firmware": f"{bcd >> 8:x}.{bcd & 0xFF:02x}",
            "capabilities": list(self.CAPABILITIES),
        }
        return DeviceEvent(EventType.DEVICE_IDENTIFIED, data)

    def _record_problem(self, record: Any) -> str | None:
        if not isinstance(record, dict) or set(record) != DESCRIPTOR_KEYS:
            keys = sorted(record) if isinstance(record, dict) else type(record).__name__
            return f"descriptor record: keys {sorted(DESCRIPTOR_KEYS)} expected, found {keys}"
        for key in ("manufacturer", "product", "serial_number"):
            if record[key] is not None and not isinstance(record[key], str):
                return f"descriptor record: {key}: a string or null expected"
            # A USB string descriptor holds at most 126 characters; what is not
            # printable (a control character, a lone surrogate) is no maker's name.
            if isinstance(record[key], str) and (
                len(record[key]) > USB_STRING_MAX or not record[key].isprintable()
            ):
                return (
                    f"descriptor record: {key}: printable text of at most "
                    f"{USB_STRING_MAX} characters expected"
                )
        for key in ("id_vendor", "id_product", "bcd_device", "interface", "endpoint"):
            if type(record[key]) is not int or not 0 <= record[key] <= 0xFFFF:
                return f"descriptor record: {key}: an integer 0..0xFFFF expected"
        q = self.quirks
        expected = {
            "id_vendor": q.vendor_id,
            "id_product": q.product_id,
            "interface": q.interface,
            "endpoint": q.endpoint,
        }
        for key, want in expected.items():
            if record[key] != want:
                return (
                    f"descriptor mismatch: the device has {key} {record[key]:#06x}, "
                    f"profile {self.profile.model!r} expects {want:#06x}"
                )
        return None


DRIVER: type[Driver] = HidWedgeShoeDriver  # mypy checks it is a Driver
